#!/usr/bin/env bash
# Third device-machine call: a worker started by hand on the GPU, longer tuning of the weakest GPU cases, and the
# machine's 16-core Xeon through PoCL against OpenBLAS/Eigen/CLBlast.
set -u
export MDH_BIN=$PWD/.device-bundle/bin
g=results/nvidia-h100-80gb-hbm3
echo "== tune-worker started by hand on 1:0"
python3 -c "import json; print(json.dumps({'id': 1, 'config': json.loads(open('$g/gemm-RW.json.journal').readlines()[1])['config']}))" > /tmp/req.json
timeout 60 mdh tune-worker apps/gemm.mdh --size I=10,J=500,K=64 --device 1:0 < /tmp/req.json
echo "== longer tuning: gemm PC, three contractions (60 s each)"
for c in gemm-PC tc-abcdef-gdab-efgc-RW tc-abcdef-geab-dfgc-RW tc-abcdef-gfbc-dega-RW; do mv $g/$c.json $g/$c.short.json; mv $g/$c.json.journal $g/$c.short.json.journal; done
timeout 290 python3 scripts/experiments.py tune --device gpu --experiments experiments.gpu.json --in-process --skip-peer-tuning --budget-scale 3 --only gemm:PC --only tc-abcdef-gdab-efgc --only tc-abcdef-geab-dfgc --only tc-abcdef-gfbc-dega 2>&1 | grep -E "^(best|stopped)"
timeout 120 python3 scripts/experiments.py benchmark --device gpu --experiments experiments.gpu.json --only gemm:PC --only tc-abcdef-gdab-efgc --only tc-abcdef-geab-dfgc --only tc-abcdef-gfbc-dega 2>&1 | grep -vE '^\+'
echo "== 16-core Xeon through PoCL"
timeout 150 python3 scripts/experiments.py tune --device cpu --experiments experiments.quick.json --skip-peer-tuning --budget-scale 0.4 --only dot --only gemv --only gemm --only gemm_nt --only prl 2>&1 | grep -E "^(best|stopped)"
timeout 80 python3 scripts/experiments.py benchmark --device cpu --experiments experiments.quick.json --only dot --only gemv --only gemm --only gemm_nt --only prl 2>&1 | grep -vE '^\+'
python3 scripts/experiments.py print
