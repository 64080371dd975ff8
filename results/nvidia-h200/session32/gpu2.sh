#!/usr/bin/env bash
# Session 32, call 2 (nvidia-h200): dot_tail_cl with five ends of the reduction (MODE 0-4), grids of 1-8 groups per
# compute unit of 256-1024 work-items, two rounds. Bundle: dot_tail (g++ -O2 -std=c++17 dot_tail_cl.cpp -lOpenCL).
source .device-bundle/env.sh
nvidia-smi -L >"$OUT/gpu.txt"
dot_tail 2>&1 | tee "$OUT/dot_tail.txt"
