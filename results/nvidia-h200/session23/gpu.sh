#!/usr/bin/env bash
# Session 23's H200 call (one call of at most 600 s; bundle: build/bin/mdh peer_mdh peer_prl device_peak
# mdh_codegen_soak_tests -- apps experiments.json experiments.gpu.json experiments.xeon.json; carry .device-bundle;
# start with `source .device-bundle/env.sh`).
# a) WG_COMBINE on the H200: DOT 2^24 and GEMV 4096^2 with the second kernel (kernel) and with the last work-group
#    folding (last), each verified, 100 timed runs, with each kernel's share; the PTX of mem_fence; then the tuner
#    (which now searches the family) for 40 s on each, from the stored results.
# b) F_INLINE per value on the committed Gaussian 4096^2 and PRL configurations (GPUs search only `call` so far).
# c) The 16 Xeon cores: PRL and Gaussian benchmarked with the CPU default that inlines f and unrolls its loops, then
#    tuned again and benchmarked (issue 12's PRL goal: >= 1.0x the threaded C++).
# d) The GPU soak with what time is left (the kernels' new shapes: WG_COMBINE last, F_INLINE).
set -u
out=${OUT:-/tmp/s23}
mkdir -p "$out/t"
export NVIDIA_TF32_OVERRIDE=0
end=$(($(date +%s) + ${SECONDS_TOTAL:-560}))
stamp() { echo "## $(date -u +%T) $*"; }
with() {  # with FILE KEY=VALUE...: FILE's config (or tuning result) with those values -> $out/t/NAME.json
  local src=$1 name=$2
  shift 2
  python3 - "$src" "$out/t/$name.json" "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
c = d.get('config', d)
for kv in sys.argv[3:]:
    k, v = kv.split('=')
    c[k] = int(v) if v.lstrip('-').isdigit() else v
json.dump(c, open(sys.argv[2], 'w'))
EOF
}
run() {  # run NAME SPEC SIZE CONFIG
  echo "$1: $(mdh run "$2" --size "$3" --config "$4" --device gpu --repeat 100 --warmup 5 --verify 2>&1 |
    grep -E 'kernel time|per kernel|whole call|PASS|FAIL|error' | sed -E 's/ over 100 runs//; s/verify \(reference in double\): //' |
    cut -c1-110 | tr '\n' ' ')"
}
{
stamp "a) WG_COMBINE"
dot=results/nvidia-h200/dot-RW.json gemv=results/nvidia-h200/gemv-PC.json
for round in 1 2; do  # two rounds in opposite order: their spread is the noise
  list=(kernel last)
  ((round == 2)) && list=(last kernel)
  for v in "${list[@]}"; do
    with "$dot" "dot-$v" WG_COMBINE=$v
    run "dot committed $v (r$round)" apps/dot.mdh K=16777216 "$out/t/dot-$v.json"
  done
done
for wg in 1024 4096; do
  for v in kernel last; do
    with "$dot" "dot-$wg-$v" WG_COMBINE=$v NUM_WG_k=$wg
    run "dot NUM_WG_k=$wg $v" apps/dot.mdh K=16777216 "$out/t/dot-$wg-$v.json"
  done
done
for v in kernel last; do
  with "$gemv" "gemv-k2-$v" WG_COMBINE=$v NUM_WG_k=2 LT_SIZE_k=2048
  run "gemv NUM_WG_k=2 LT_SIZE_k=2048 $v" apps/gemv.mdh I=4096,K=4096 "$out/t/gemv-k2-$v.json"
done
run "gemv committed" apps/gemv.mdh I=4096,K=4096 "$gemv"
mdh inspect apps/dot.mdh --size K=16777216 --config "$out/t/dot-last.json" --device gpu -o "$out/t/inspect" 2>&1 | tail -4
grep -hE "membar|fence|atom" "$out"/t/inspect/*.ptx 2>/dev/null | sort | uniq -c | head
for c in dot:apps/dot.mdh:K=16777216 gemv:apps/gemv.mdh:I=4096,K=4096; do
  IFS=: read -r name spec size <<<"$c"
  mdh tune "$spec" --size "$size" --device gpu --budget 40s --journal "$out/t/$name.journal" --out "$out/t/$name-tuned.json" 2>&1 |
    grep -E "^(stopped|best|time)|error" | cut -c1-200
  python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['config']; print(sys.argv[1], 'WG_COMBINE', c.get('WG_COMBINE'), 'NUM_WG', {k: v for k, v in c.items() if k.startswith('NUM_WG')})" "$out/t/$name-tuned.json" 2>&1
  grep -c '"WG_COMBINE":"last"' "$out/t/$name.journal" | sed "s/^/$name journal records with last: /"
done

stamp "b) F_INLINE per value on the committed configurations"
for c in gaussian-PC:apps/gaussian.mdh prl-RW:apps/prl.mdh; do
  name=${c%%:*} spec=${c#*:}
  size=$(python3 -c "import json,sys; print(','.join('%s=%d' % kv for kv in json.load(open(sys.argv[1]))['sizes'].items()))" \
    "results/nvidia-h200/$name.json")
  for v in call inline unrolled; do
    with "results/nvidia-h200/$name.json" "$name-$v" F_INLINE=$v
    extra=()
    [[ $name == prl* ]] && extra=(--prl-data)
    echo "$name $v: $(mdh run "$spec" --size "$size" --config "$out/t/$name-$v.json" --device gpu --repeat 50 --verify \
      "${extra[@]}" 2>&1 | grep -E 'kernel time|PASS|FAIL|error' | cut -c1-100 | tr '\n' ' ')"
  done
done

stamp "c) Xeon: PRL and Gaussian"
bash scripts/device_run.sh bench cpu experiments.xeon.json --seconds 80 prl:RW gaussian:RW 2>&1 | grep -vE '^==' | tail -8
left=$((end - $(date +%s) - 120))
((left > 170)) && left=170
if ((left > 60)); then
  bash scripts/device_run.sh retune cpu experiments.xeon.json --tune-seconds "$left" --bench-seconds 80 prl:RW gaussian:RW \
    2>&1 | grep -vE '^==' | tail -12
fi

left=$((end - $(date +%s)))
stamp "d) GPU soak, $left s"
((left > 60)) && POCL_WORK_GROUP_METHOD=cbs MDH_TUNABLE_VERBOSE=1 bash scripts/device_run.sh soak --seconds "$left" --out "$out/soak.tar.gz" 2>&1 | tail -40
stamp done
} 2>&1 | tee "$out/log.txt"
tar czf "$out/results.tar.gz" results/pocl-cpu-intel-xeon-16c/benchmark.csv results/pocl-cpu-intel-xeon-16c/prl-RW.json* \
  results/pocl-cpu-intel-xeon-16c/gaussian-RW.json* "$out/t" 2>/dev/null
rm -rf "$out/t"
