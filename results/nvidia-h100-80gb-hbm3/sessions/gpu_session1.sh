#!/usr/bin/env bash
# One device-machine call: facts for the tunable-kernel and tuner issues, then tuning of experiments.gpu.json.
# Run there as: source .device-bundle/env.sh; bash scripts/gpu_session1.sh
set -u
export MDH_BIN=$PWD/.device-bundle/bin
nvidia-smi -L; mdh devices
for d in gpu cpu; do
  echo "== mdh space gemm 1024^3 on $d"; mdh space apps/gemm.mdh --size I=1024,J=1024,K=1024 --device $d -q
done
for c in simple local-tiles register-blocked; do
  echo "== hand-picked $c"
  mdh run apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --config results/configs/gemm1024-$c.json --verify --repeat 10
done
for t in 0 4; do
  echo "== evaluations per second, GEMM 256^3 tuning on the GPU, compile threads $t"
  /usr/bin/time -f "%e s wall" mdh tune apps/gemm.mdh --size I=256,J=256,K=256 --device gpu --evals 60 --compile-threads $t --out /tmp/t$t.json 2>&1 | tail -3
done
timeout 400 python3 scripts/experiments.py tune --device gpu --experiments experiments.gpu.json --skip-peer-tuning
