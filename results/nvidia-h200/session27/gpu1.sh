#!/usr/bin/env bash
# Session 27, call 1 (nvidia-h200): Jacobi 3D 512^3 5 minutes from the default (seed 1, --no-transfer) with the
# kernels' deadline lifted for the check of the result (session 26's run lost 280 of 300 s to killed checks), then
# the benchmark of DOT 2^24 with session 26's 5-minute configuration (cuBLAS and the device peak in the same run).
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
bash results/nvidia-h200/session26/gpu_tune.sh jacobi3d apps/jacobi3d.mdh I=512,J=512,K=512
mv "$OUT/log.txt" "$OUT/jacobi3d-log.txt"
tar xzf results/nvidia-h200/session26/call2/dot.tar.gz -C /tmp dot.json
cp /tmp/dot.json results/nvidia-h200/dot-RW.json
echo "== bench dot with session 26's configuration" >"$OUT/bench.txt"
scripts/device_run.sh bench gpu experiments.gpu.json --seconds 60 dot:RW >>"$OUT/bench.txt" 2>&1
cp results/nvidia-h200/benchmark.csv "$OUT/"
tar czf "$OUT/records.tar.gz" results/nvidia-h200/records/dot-RW* 2>/dev/null
