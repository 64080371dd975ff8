#!/usr/bin/env bash
# Session 28, call 3: the contraction gdab-efgc, 5 minutes from the new default (float4 copies into local memory,
# 10184ec), seed 1, --no-transfer: its 1-minute result against its 5-minute result (session 26 on the H200: 7.9%).
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
nvidia-smi -L >"$OUT/gpu.txt"
bash results/nvidia-h200/session26/gpu_tune.sh gdab apps/tc/abcdef-gdab-efgc.mdh A=24,B=16,C=16,D=16,E=24,F=16,G=24
mv "$OUT/log.txt" "$OUT/gdab-log.txt"
