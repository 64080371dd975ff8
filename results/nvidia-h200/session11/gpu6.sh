#!/usr/bin/env bash
# Session 11, sixth device call: results/nvidia-h200 regenerated. The committed tuned configurations that ran slower
# than today's default are tuned again (default start: never slower than the default), then every case of
# experiments.gpu.json is benchmarked against its peers, with device_peak's limits in the same run (% of limit).
set -u
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh retune gpu experiments.gpu.json --tune-seconds 170 \
  --bench-seconds 1 jacobi3d:PC jacobi3d:RW gemv:PC gemv:RW dot:RW gaussian:RW 2>&1 | grep -v "not benchmarked"
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh bench gpu experiments.gpu.json --seconds 330 2>&1 | tail -5
python3 scripts/experiments.py print --device gpu 2>&1 | head -40
tar czf "${OUT:-/tmp}/nvidia-h200-results.tar.gz" results/nvidia-h200 --exclude=results/nvidia-h200/session* \
  --exclude=results/nvidia-h200/fast-tiles --exclude=results/nvidia-h200/logs --exclude=results/nvidia-h200/sessions
