#!/usr/bin/env bash
# Session 14, call 9 on nvidia-h200: VECTOR_WIDTH_<buffer> (issue 12 item 5, vector copies into the input caches).
# 1. GPU soak, every TunableSoak case (the family is in the random draws): 400 s, 15 GPU jobs.
# 2. GEMM 4096^3: the committed tuned configuration against the same with float4 copies
#    (results/configs/gemm4096-h200-vector4.json), 50 runs each after 3 warm-ups, verified, twice in turn.
# 3. 60 s of `mdh tune` GEMM 1024^3 with the family searchable: does the search pick widths above 1?
# Bundle: build/bin/mdh build/bin/mdh_codegen_soak_tests -- apps experiments.json experiments.gpu.json.
set -u
out=${OUT:-/tmp/gpu9}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh soak --seconds 400 --shards 8 --gpu-jobs 15 --cpu-jobs 0 \
  --out "$out/soak.tar.gz" 2>&1 | tail -25
for round in 1 2; do
  for c in results/nvidia-h200/gemm-PC-4096.json results/configs/gemm4096-h200-vector4.json; do
    echo "round $round $(basename "$c"): $(mdh run apps/gemm.mdh --size I=4096,J=4096,K=4096 --device gpu --config "$c" \
      --repeat 50 --warmup 3 --verify 2>&1 | grep -E 'kernel time|PASS|FAIL|error' | cut -c1-110 | tr '\n' ' ')"
  done
done
mdh tune apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --budget 60s --no-transfer \
  --journal "$out/gemm1024.journal" --out "$out/gemm1024.json" 2>&1 | grep -E '^(stopped|time|per eval|compiles of|best)'
python3 - "$out/gemm1024.journal" <<'PY'
import json, sys, collections
recs = [json.loads(l) for l in open(sys.argv[1])][1:]
ok = sorted((r for r in recs if r['status'] == 'ok'), key=lambda r: r['cost'])
widths = collections.Counter((r['config'].get('VECTOR_WIDTH_A'), r['config'].get('VECTOR_WIDTH_B')) for r in recs)
print('widths drawn (A, B):', dict(widths))
print('best 5 (ms, widths):', [(round(r['cost'] * 1e3, 4), r['config'].get('VECTOR_WIDTH_A'), r['config'].get('VECTOR_WIDTH_B')) for r in ok[:5]])
PY
