#!/usr/bin/env bash
# Second device-machine call: why workers do not see the GPU, in-process tuning, benchmark against the peers.
set -u
export MDH_BIN=$PWD/.device-bundle/bin
nvidia-smi -q | grep -iE "compute mode|persistence" | head -3
echo "== does a second process see the NVIDIA platform while one holds a context?"
(mdh run apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --repeat 200 >/dev/null 2>&1 &) ; sleep 2; mdh devices | grep -c NVIDIA
echo "== from a child of mdh tune (the worker's own listing)"; mdh tune apps/gemm.mdh --size I=64,J=64,K=64 --device gpu --evals 2 --compile-threads 0 --out /tmp/x.json 2>&1 | tail -2; grep -o '"reason":"[^"]*' /tmp/x.json.journal | head -2
for t in 0 4; do
  echo "== evaluations per second, GEMM 256^3, in-process, compile threads $t"
  /usr/bin/time -f "%e s wall" mdh tune apps/gemm.mdh --size I=256,J=256,K=256 --device gpu --evals 60 --in-process --compile-threads $t --out /tmp/t$t.json 2>&1 | tail -3
done
timeout 300 python3 scripts/experiments.py tune --device gpu --experiments experiments.gpu.json --skip-peer-tuning --in-process --budget-scale 0.75 2>&1 | grep -vE '^\+'
timeout 230 python3 scripts/experiments.py benchmark --device gpu --experiments experiments.gpu.json
python3 scripts/experiments.py print --device gpu
