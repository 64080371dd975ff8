#!/usr/bin/env bash
# Prepared in session 22 for the next session with nvidia-h200 budget (about 9 minutes of one call; bundle:
# build/bin/mdh peer_mdh peer_prl device_peak mdh_codegen_soak_tests -- apps experiments.json experiments.gpu.json
# experiments.xeon.json; carry .device-bundle; start with `source .device-bundle/env.sh`).
# a) F_INLINE on the machine's 16 Xeon cores: PRL and Gaussian benchmarked (the default now inlines f and unrolls
#    its loops; the committed tuned configurations predate the family, so they call f), then both tuned again from
#    the default for 120 s each and benchmarked again: issue 12's PRL goal is >= 1.0x the threaded C++.
# b) F_INLINE on the H200 (its default search keeps `call`): the committed Gaussian 4096^2 and PRL configurations
#    with each value, verified, to decide whether GPUs should search it.
# c) The CPU soak with POCL_WORK_GROUP_METHOD=cbs, pocl/pocl issue 1435's workaround for PoCL 5 with LLVM 16, with
#    MDH_TUNABLE_VERBOSE=1 so that a crash names its configuration; then the GPU soak for what time is left.
set -u
out=${OUT:-/tmp/next}
mkdir -p "$out/t"
export NVIDIA_TF32_OVERRIDE=0
end=$(($(date +%s) + ${SECONDS_TOTAL:-540}))
stamp() { echo "## $(date -u +%T) $*"; }
{
stamp "Xeon before"
bash scripts/device_run.sh bench cpu experiments.xeon.json --seconds 90 prl:RW gaussian:RW 2>&1 | grep -vE '^==' | tail -10
bash scripts/device_run.sh retune cpu experiments.xeon.json --tune-seconds 240 --bench-seconds 90 prl:RW gaussian:RW \
  2>&1 | grep -vE '^==' | tail -14
stamp "H200: F_INLINE per value on the committed configurations"
for c in gaussian-PC:apps/gaussian.mdh prl-RW:apps/prl.mdh; do
  name=${c%%:*} spec=${c#*:}
  for v in call inline unrolled; do
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['config']['F_INLINE']=sys.argv[2]; json.dump(d,open(sys.argv[3],'w'))" \
      "results/nvidia-h200/$name.json" "$v" "$out/t/$name-$v.json"
    size=$(python3 -c "import json,sys; print(','.join('%s=%d' % kv for kv in json.load(open(sys.argv[1]))['sizes'].items()))" \
      "results/nvidia-h200/$name.json")
    echo "$name $v: $(mdh run "$spec" --size "$size" --config "$out/t/$name-$v.json" --device gpu --repeat 50 --verify 2>&1 |
      grep -E 'kernel time|PASS|FAIL|error' | cut -c1-90 | tr '\n' ' ')"
  done
done
left=$((end - $(date +%s)))
stamp "soak, $left s"
((left > 60)) && POCL_WORK_GROUP_METHOD=cbs MDH_TUNABLE_VERBOSE=1 bash scripts/device_run.sh soak --seconds "$left" \
  --out "$out/soak.tar.gz" 2>&1 | tail -50
stamp done
} 2>&1 | tee "$out/log.txt"
tar czf "$out/results.tar.gz" results/pocl-cpu-intel-xeon-16c/benchmark.csv results/pocl-cpu-intel-xeon-16c/prl-RW.json* \
  results/pocl-cpu-intel-xeon-16c/gaussian-RW.json* "$out/t" 2>/dev/null
rm -rf "$out/t"
