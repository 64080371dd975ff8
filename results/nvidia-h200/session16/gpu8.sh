#!/usr/bin/env bash
# Session 16, call 8 on nvidia-h200, the binary of merged main (small-output default, whole warps, DOUBLE_BUFFER
# local, UNROLL_STEPS):
# 1. The GPU defaults that changed (GEMM 10x500x64 and MCC: the reduction split for small outputs; MCC and PRL:
#    whole warps) against the defaults of e4837b9 (mdh_old), 30 runs after 3 warm-ups, verified, two rounds; GEMM
#    1024^3 and a contraction whose defaults must not change.
# 2. GEMM 10x500x64 tuned 60 s from the new default (auc_bandit seed 1; the committed configuration is evaluated
#    too, through transfer), which then replaces the committed result.
# 3. The changed cases benchmarked with the peers in one run (device_run.sh bench; PRL with its threaded C++
#    baseline on the 16 host cores).
# Bundle: build/bin/mdh /tmp/mdh_old/mdh_old build/bin/peer_mdh build/bin/device_peak build/bin/peer_prl build-cuda/bin/peer_cuda
#         -- apps experiments.json experiments.gpu.json
set -u
out=${OUT:-/tmp/gpu8}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
t() {  # BINARY SPEC SIZE ARGS...
  local bin=$1 spec=$2 size=$3; shift 3
  "$bin" run "$spec" --size "$size" --device gpu --config default --repeat 30 --warmup 3 --verify "$@" </dev/null 2>&1 |
    grep -E 'kernel time|PASS|FAIL|error' | sed -E 's/ over 30 runs.*//; s/kernel time: //; s/verify.*(PASS|FAIL).*/\1/' |
    cut -c1-100 | tr '\n' ' '
}
for round in 1 2; do
  echo "== defaults, round $round: old (e4837b9) | new"
  while read -r spec size extra; do
    echo "$spec $size: $(t mdh_old $spec $size $extra) | $(t mdh $spec $size $extra)"
  done <<'CASES'
apps/gemm.mdh I=10,J=500,K=64
apps/mcc.mdh N=1,P=7,Q=7,K=512,C=512,R=3,S=3
apps/prl.mdh N=32768,M=1024 --prl-data
apps/gemm.mdh I=1024,J=1024,K=1024
apps/tc/abcdef-gdab-efgc.mdh A=24,B=16,C=16,D=16,E=24,F=16,G=24
CASES
done
mdh tune apps/gemm.mdh --size I=10,J=500,K=64 --device gpu --technique auc_bandit --seed 1 --budget 60s \
  --journal "$out/gemm-RW.json.journal" --out "$out/gemm-RW.json" 2>&1 | grep -E '^(stopped|best)'
cp "$out/gemm-RW.json" results/nvidia-h200/gemm-RW.json && cp "$out/gemm-RW.json.journal" results/nvidia-h200/gemm-RW.json.journal
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh bench gpu experiments.gpu.json --seconds 330 gemm:RW mcc:RW \
  prl:RW tc-abcdef-gdab-efgc:RW tc-abcdef-gfab-degc:RW 2>&1 | grep -vE '^==' | tail -30
tar czf "$out/bench.tar.gz" results/nvidia-h200/records/gemm-RW-* results/nvidia-h200/records/mcc-RW-* \
  results/nvidia-h200/records/prl-RW-* results/nvidia-h200/records/tc-abcdef-gdab-efgc-RW-* \
  results/nvidia-h200/records/tc-abcdef-gfab-degc-RW-* results/nvidia-h200/records/device_peak.json* \
  results/nvidia-h200/benchmark.json results/nvidia-h200/benchmark.csv 2>/dev/null
