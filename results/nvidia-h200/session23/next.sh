#!/usr/bin/env bash
# Prepared in session 23 for the next call on nvidia-h200 (about 9 minutes; bundle: build/bin/mdh peer_mdh peer_prl
# device_peak mdh_codegen_soak_tests -- apps experiments.json experiments.gpu.json experiments.xeon.json; carry
# .device-bundle; start with `source .device-bundle/env.sh`).
# a) WG_COMBINE's device-wide fence on NVIDIA (inline PTX membar.gl since 3c2867e, never built on the device): the
#    PTX must show membar.gl (not membar.cta), DOT 2^24 must verify, and be timed against `kernel` again.
# b) PRL 32768x1024 on the 16 Xeon cores: the CPU default (8x4 private tile of an unrolled f) against smaller private
#    tiles, which ran 1.1-1.5x faster on the 2-core VM (237-272 ms against 362 at 8192x1024), beside the threaded C++;
#    then the retune with seeds exempt from the median compile deadline (2d93e87).
# a2) GEMV 4096^2 with float4 runs into private caches (its best configurations load A one float at a time).
# c) The GPU soak with the time left (the 14 md_homs that session 23's 250 s did not reach, with membar.gl).
set -u
out=${OUT:-/tmp/next}
mkdir -p "$out/t"
export NVIDIA_TF32_OVERRIDE=0
end=$(($(date +%s) + ${SECONDS_TOTAL:-540}))
stamp() { echo "## $(date -u +%T) $*"; }
with() {  # with FILE NAME KEY=VALUE...: FILE's config (or tuning result) with those values -> $out/t/NAME.json
  local src=$1 name=$2
  shift 2
  python3 scripts/config_with.py "$src" "$out/t/$name.json" "$@"
}
{
stamp "a) WG_COMBINE last with membar.gl"
dot=results/nvidia-h200/dot-RW.json
with "$dot" dot-last WG_COMBINE=last
mdh inspect apps/dot.mdh --size K=16777216 --config "$out/t/dot-last.json" --device gpu -o "$out/t/inspect" 2>&1 | tail -3
grep -hE "membar|fence|atom" "$out"/t/inspect/*.ptx | sort | uniq -c
for round in 1 2; do
  for v in kernel last; do
    with "$dot" "dot-$v" WG_COMBINE=$v
    echo "dot $v (r$round): $(mdh run apps/dot.mdh --size K=16777216 --config "$out/t/dot-$v.json" --device gpu \
      --repeat 100 --warmup 5 --verify 2>&1 | grep -E 'kernel time|per kernel|PASS|FAIL|error' | cut -c1-100 | tr '\n' ' ')"
  done
done
# GEMV 4096^2 (77% of the copy bandwidth): its best configurations read A with scalar loads (no cache, so
# VECTOR_WIDTH has no effect); these read float4 runs into private caches, each work-item's runs next to its
# neighbours' (strided ownership with runs of 4). Checked on PoCL in session 23 (the float4 loads are generated).
gemv=results/nvidia-h200/gemv-PC.json
for v in "16 256" "8 256" "16 128" "32 128"; do
  read -r pt wi <<<"$v"
  with "$gemv" "gemv-v4-$pt-$wi" PT_SIZE_k=$pt NUM_WI_k=$wi OWNERSHIP_k=strided STRIDED_RUN_k=4 MEM_INP_P_A=private \
    VECTOR_WIDTH_A=4 MEM_INP_P_x=private VECTOR_WIDTH_x=4
  echo "gemv float4 runs PT_SIZE_k $pt NUM_WI_k $wi: $(mdh run apps/gemv.mdh --size I=4096,K=4096 \
    --config "$out/t/gemv-v4-$pt-$wi.json" --device gpu --repeat 100 --warmup 5 --verify 2>&1 |
    grep -E 'kernel time|PASS|FAIL|error' | cut -c1-100 | tr '\n' ' ')"
done
echo "gemv committed: $(mdh run apps/gemv.mdh --size I=4096,K=4096 --config "$gemv" --device gpu --repeat 100 \
  --warmup 5 2>&1 | grep -E 'kernel time' | cut -c1-100)"
device_peak --device gpu 2>&1 | grep -iE "copy|GB/s" | head -3

stamp "b) PRL on the Xeon: private tiles"
mdh tune apps/prl.mdh --size N=32768,M=1024 --device cpu --evals 1 --no-transfer --finalists 0 --prl-data \
  --out "$out/t/prl-default.json" 2>&1 | grep -E "^best|error"
for v in "1 1 1" "1 1 4" "16 1 4" "16 2 1" "1 2 1"; do
  read -r wi pti ptj <<<"$v"
  lt=$((wi * pti))
  with "$out/t/prl-default.json" "prl-$wi-$pti-$ptj" NUM_WI_i=$wi PT_SIZE_i=$pti PT_SIZE_j=$ptj LT_SIZE_i=$lt \
    NUM_WG_i=$((32768 / lt))
  echo "prl NUM_WI_i $wi PT $pti x $ptj: $(mdh run apps/prl.mdh --size N=32768,M=1024 --config "$out/t/prl-$wi-$pti-$ptj.json" \
    --device cpu --repeat 5 --prl-data --verify 2>&1 | grep -E 'kernel time|PASS|FAIL|error' | cut -c1-70 | tr '\n' ' ')"
done
echo "prl default: $(mdh run apps/prl.mdh --size N=32768,M=1024 --config "$out/t/prl-default.json" --device cpu --repeat 5 \
  --prl-data 2>&1 | grep -E 'kernel time' | cut -c1-70)"
bash scripts/device_run.sh retune cpu experiments.xeon.json --tune-seconds 150 --bench-seconds 80 prl:RW 2>&1 |
  grep -vE '^==' | tail -8

left=$((end - $(date +%s)))
stamp "c) GPU soak, $left s"
((left > 60)) && MDH_TUNABLE_VERBOSE=1 bash scripts/device_run.sh soak --seconds "$left" --gpu-jobs 16 --cpu-jobs 0 \
  --filter 'prl|minplus|contraction4|strided|matrix_chain|tc_' \
  --out "$out/soak.tar.gz" \
  2>&1 | sed -n '1,/soak on cpu/p' | tail -30
stamp done
} 2>&1 | tee "$out/log.txt"
tar czf "$out/results.tar.gz" results/pocl-cpu-intel-xeon-16c/benchmark.csv results/pocl-cpu-intel-xeon-16c/prl-RW.json* \
  "$out/t" 2>/dev/null
rm -rf "$out/t"
