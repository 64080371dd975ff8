#!/usr/bin/env bash
# Session 28, call 1 (nvidia-h200): session 27's untested GPU code, run on the GPU.
#  1. The device-side check's tests and the cost function's tests, on the H200 (select_device("") prefers a GPU).
#  2. The benchmark of Jacobi 3D 512^3 with session 27's 5-minute configuration (cuDNN and the device peak in the run).
#  3. Jacobi 3D 512^3, 5 minutes from the default (seed 1, --no-transfer), with the compile deadline of 8311cd0 and the
#     device check of 8e9787d, against session 27's run of the same command (3,436 evaluations, 1 min 0.3277 ms,
#     5 min 0.2976 ms).
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
# The tests find apps/ through the source directory compiled into them.
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$PWD" /work/main; }
{
  echo "== device tests"
  mdh_runtime_tests --gtest_filter='DeviceCheck*'
  mdh_integration_tests --gtest_filter='CostFunction*'
} >"$OUT/tests.txt" 2>&1
tar xzf results/nvidia-h200/session27/call1/jacobi3d.tar.gz -C /tmp jacobi3d.json
cp /tmp/jacobi3d.json results/nvidia-h200/jacobi3d-PC.json
scripts/device_run.sh bench gpu experiments.gpu.json --seconds 30 jacobi3d:PC >"$OUT/bench.txt" 2>&1
cp results/nvidia-h200/benchmark.csv "$OUT/"
tar czf "$OUT/records.tar.gz" results/nvidia-h200/records/jacobi3d-PC* 2>/dev/null
bash results/nvidia-h200/session26/gpu_tune.sh jacobi3d apps/jacobi3d.mdh I=512,J=512,K=512
mv "$OUT/log.txt" "$OUT/jacobi3d-log.txt"
