#!/usr/bin/env bash
# Session 26, call 5 (nvidia-h200), main's binary: the benchmark of MCC with call 3's configuration (cuDNN and the
# device peak in the same run), then Jacobi 3D 512^3 5 minutes from the default.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
echo "== bench mcc" >"$OUT/bench.txt"
scripts/device_run.sh bench gpu experiments.gpu.json --seconds 100 mcc:RW >>"$OUT/bench.txt" 2>&1
cp results/nvidia-h200/benchmark.csv "$OUT/"
tar czf "$OUT/records.tar.gz" results/nvidia-h200/records/mcc-RW* 2>/dev/null
bash results/nvidia-h200/session26/gpu_tune.sh jacobi3d apps/jacobi3d.mdh I=512,J=512,K=512
