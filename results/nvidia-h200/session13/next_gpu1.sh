#!/usr/bin/env bash
# Prepared in session 13 (no device time was left to run it): the first nvidia-h200 call of the next session.
# Bundle: ../shared/device/bundle.sh build/bin/mdh build/bin/mdh_codegen_soak_tests -- apps experiments.json
#         experiments.gpu.json; carry [".device-bundle"]; start with `source .device-bundle/env.sh`.
# 1. GPU soak of the session's new kernel shapes (WG_SWIZZLE_<d>; the property tests draw them on PoCL, 587 of the
#    coverage test's configurations): 240 s, every TunableSoak case.
# 2. WG_SWIZZLE on GEMM 4096^3 (0.62x cuBLAS in session 12; its inputs of 64 MiB exceed the 50 MiB L2): the default
#    configuration with WG_SWIZZLE_i = 1, 2, 4, 8, 16, 30 runs each, verified.
# 3. Where an evaluation's time goes (issue 13 item 3): 60 s of `mdh tune` GEMM 1024^3, the new `per evaluation:`
#    line (kernel source, program, device, verification, elsewhere), with spill rejection (helper's check: the
#    journal header says "spilling_candidates":"rejected", reasons "spills: ...").
set -u
out=${OUT:-/tmp/next1}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh soak --seconds 240 --shards 8 --gpu-jobs 15 --cpu-jobs 0 \
  --out "$out/soak.tar.gz" 2>&1 | tail -25
size=I=4096,J=4096,K=4096
mdh tune apps/gemm.mdh --size $size --device gpu --evals 1 --no-transfer --out /tmp/default.json \
  --journal /tmp/default.journal --force > /dev/null 2>&1
for s in 1 2 4 8 16; do
  python3 - "$s" <<'PY'
import json, sys
c = json.load(open('/tmp/default.json'))['config']
c['WG_SWIZZLE_i'] = int(sys.argv[1])
json.dump(c, open('/tmp/swizzle.json', 'w'))
PY
  echo "WG_SWIZZLE_i=$s: $(mdh run apps/gemm.mdh --size $size --device gpu --config /tmp/swizzle.json --repeat 30 \
    --warmup 3 --verify 2>&1 | grep -E 'kernel time|error|FAIL' | head -2)"
done
mdh tune apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --budget 60s --no-transfer \
  --journal "$out/gemm1024.journal" --out "$out/gemm1024.json" 2>&1 | tail -8
head -c 400 "$out/gemm1024.journal" | grep -o '"spilling_candidates":"[a-z]*"'
grep -c 'spills: ' "$out/gemm1024.journal"
