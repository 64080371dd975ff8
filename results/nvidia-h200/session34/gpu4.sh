#!/usr/bin/env bash
# Session 34, call 4 (nvidia-h200): mdh's generated DOT 2^24 kernels (c0 committed, c1 PT_SIZE_k 4) against copies
# with the sum in a register (reg), a shorter end (end) or both (ab/, written by variants.py), with dot_shape_cl's
# hand-written kernels and the copy bandwidth in the same run. Bundle: device_peak, dot_shape_cl, dot_ab_cl.
source .device-bundle/env.sh
B=.device-bundle/bin
A=results/nvidia-h200/session34/ab
nvidia-smi -L >"$OUT/gpu.txt"
{
  $B/device_peak --device gpu | grep -iE "copy"
  $B/dot_shape_cl
  $B/dot_ab_cl $A/c0-committed.cl:256:512 $A/c0-committed-reg.cl:256:512 $A/c0-committed-end.cl:256:512 \
    $A/c0-committed-both.cl:256:512 $A/c1-pt4.cl:256:512 $A/c1-pt4-reg.cl:256:512 $A/c1-pt4-end.cl:256:512 \
    $A/c1-pt4-both.cl:256:512
} 2>&1 | tee "$OUT/ab.txt"
