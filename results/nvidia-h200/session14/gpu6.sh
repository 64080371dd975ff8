#!/usr/bin/env bash
# Session 14, call 6 on nvidia-h200: the benchmark of every case of experiments.gpu.json, so that the tables'
# `default` column comes from the same run as mdh's committed configuration and its peers (issue 13 item 5).
# Bundle: build/bin/mdh build/bin/peer_mdh build/bin/peer_clblast build/bin/device_peak build-cuda/bin/peer_cuda
# (a first try without peer_mdh measured only the peers).
set -u
out=${OUT:-/tmp/gpu6}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh bench gpu experiments.gpu.json --seconds 530 2>&1 | tail -45
tar czf "$out/bench.tar.gz" results/nvidia-h200/records results/nvidia-h200/benchmark.json \
  results/nvidia-h200/benchmark.csv
