#!/usr/bin/env bash
# Session 32, call 7 (nvidia-h200): the whole-call floor of an empty kernel in OpenCL (launch/launch_floor_cl.cpp)
# and in CUDA (launch/launch_floor.cu). Bundle: launch_floor_cl, launch_floor. Carry .device-bundle.
source .device-bundle/env.sh
nvidia-smi -L >"$OUT/gpu.txt"
{ launch_floor_cl; launch_floor; } 2>&1 | tee "$OUT/launch_floor.txt"
