#!/usr/bin/env bash
# Fourth device-machine call: tuning in worker processes on the GPU (after the worker fd fix), evaluations per
# second with and without parallel compilation (driver cache off), GEMM 256^3 200 evaluations + verify, and CLBlast
# tuned with its own tuners for GEMM 1024^3.
set -u
export MDH_BIN=$PWD/.device-bundle/bin CUDA_CACHE_DISABLE=1
for t in 0 4; do
  echo "== workers, GEMM 256^3, 60 evaluations, compile threads $t"
  /usr/bin/time -f "%e s wall" mdh tune apps/gemm.mdh --size I=256,J=256,K=256 --device gpu --evals 60 --compile-threads $t --out /tmp/w$t.json 2>&1 | tail -3
done
echo "== GEMM 256^3, 200 evaluations, seed 1, then run --config --verify"
mdh tune apps/gemm.mdh --size I=256,J=256,K=256 --device gpu --evals 200 --seed 1 --out $OUT/gemm256-h100.json 2>&1 | tail -2
mdh run apps/gemm.mdh --size I=256,J=256,K=256 --device gpu --config $OUT/gemm256-h100.json --verify | tail -3
echo "== CLBlast's own tuners for GEMM 1024^3"
g=results/nvidia-h100-80gb-hbm3; mkdir -p $g/clblast/gemm-PC
CLBLAST_TUNER_TIMEOUT=60 timeout 200 bash peers/tune_clblast.sh 1:0 $g/clblast/gemm-PC gemm I=1024,J=1024,K=1024 > /tmp/clb.log 2>&1 && touch $g/clblast/gemm-PC/done; tail -3 /tmp/clb.log
ls $g/clblast/gemm-PC
timeout 60 python3 scripts/experiments.py benchmark --device gpu --experiments experiments.gpu.json --only gemm:PC 2>&1 | grep -vE '^\+'
