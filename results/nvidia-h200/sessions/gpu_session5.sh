#!/usr/bin/env bash
# Session 2, first device-machine call: why tuning workers miss the NVIDIA platform (with the worker's own ICD
# report), the tunable-kernel facts (space size, three hand-picked GEMM 1024^3 configs), evaluations per second with
# and without parallel compilation, GEMM 256^3 200 evaluations + verify, then mdh tuning of experiments.gpu.json.
# Run there as: source .device-bundle/env.sh; bash scripts/gpu_session5.sh
set -u
export MDH_BIN=$PWD/.device-bundle/bin CUDA_CACHE_DISABLE=1
nvidia-smi -L; mdh devices | grep -E "^  [0-9]"
slug=$(mdh devices --slug gpu); echo "slug $slug"
echo "== ICD report of this shell"; mdh devices --icd
echo "== worker check: GEMM 64^3, 3 evaluations in worker processes"
mdh tune apps/gemm.mdh --size I=64,J=64,K=64 --device gpu --evals 3 --compile-threads 0 --out /tmp/x.json 2>&1 | tail -2
python3 -c "
import json
for line in open('/tmp/x.json.journal').readlines()[1:3]:
    r = json.loads(line); print(r.get('status'), r.get('reason', '')[:1500])"
echo "== a child of a process that initialised OpenCL (python ctypes), and one of a process that did not"
python3 - <<'PY'
import ctypes, subprocess
def nvidia_lines():
    return subprocess.run(["mdh", "devices"], capture_output=True, text=True).stdout.count("NVIDIA")
print("child before the parent touched OpenCL: NVIDIA lines", nvidia_lines())
cl = ctypes.CDLL("libOpenCL.so.1"); n = ctypes.c_uint(); cl.clGetPlatformIDs(0, None, ctypes.byref(n))
print("parent sees", n.value, "platforms; child after: NVIDIA lines", nvidia_lines())
PY
mode=--in-process
grep -q '"status":"ok"' /tmp/x.json.journal && mode=""
echo "tuning mode: ${mode:-worker processes}"
echo "== mdh space gemm 1024^3"; mdh space apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu -q
for c in simple local-tiles register-blocked; do
  echo "== hand-picked $c"
  mdh run apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --config results/configs/gemm1024-$c.json --verify --repeat 20 | tail -3
done
for m in "" --in-process; do
  [[ -z $m && -n $mode ]] && continue
  for t in 0 4; do
    echo "== evaluations per second, GEMM 256^3, 60 evaluations, ${m:-workers}, compile threads $t"
    /usr/bin/time -f "%e s wall" mdh tune apps/gemm.mdh --size I=256,J=256,K=256 --device gpu --evals 60 $m --compile-threads $t --out /tmp/t$t$m.json 2>&1 | tail -3
  done
done
echo "== GEMM 256^3, 200 evaluations, seed 1 (${mode:-workers}), then run --config --verify"
/usr/bin/time -f "%e s wall" mdh tune apps/gemm.mdh --size I=256,J=256,K=256 --device gpu --evals 200 --seed 1 $mode --out $OUT/gemm256-$slug.json 2>&1 | tail -3
mdh run apps/gemm.mdh --size I=256,J=256,K=256 --device gpu --config $OUT/gemm256-$slug.json --verify | tail -3
echo "== mdh tuning of experiments.gpu.json"
timeout ${TUNE_SECONDS:-330} python3 scripts/experiments.py tune --device gpu --experiments experiments.gpu.json --skip-peer-tuning $mode 2>&1 | grep -E "^(best|stopped|warning)|tuned already"
mkdir -p $OUT/results; cp -r results/$slug $OUT/results/
