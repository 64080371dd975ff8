#!/usr/bin/env bash
# Session 30, call 8 (nvidia-h200): gdab-efgc's default (session 28's start), with NUM_WG_a 1 (va), with NUM_WG_a 1 and
# LOOP_ORDER_P f,e,d,b,a,c,g (vb, 0.80 of the default in session 28's journal) and with NUM_WG_a 1 and b,c,a,d,f,e,g
# (vc, 0.94): registers, spills and shared loads (mdh inspect), and each timed alone twice (mdh run).
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
nvidia-smi -L >"$OUT/gpu.txt"
s=apps/tc/abcdef-gdab-efgc.mdh z=A=24,B=16,C=16,D=16,E=24,F=16,G=24 h=results/nvidia-h200/session30
for v in default va vb vc; do
  mdh inspect $s --size $z --config $h/gdab-$v.json --device gpu -o "$OUT/$v" 2>&1 | tail -1 | sed "s/^/$v /"
  echo "$v shared loads: $(grep -c 'ld.shared' "$OUT/$v/"*.ptx), global loads: $(grep -c 'ld.global' "$OUT/$v/"*.ptx)"
done
for round in 1 2; do
  for v in default va vb vc; do
    echo "round $round $v: $(mdh run $s --size $z --config $h/gdab-$v.json --device gpu --repeat 50 --warmup 3 2>&1 |
      grep -E 'kernel time|error' | cut -c1-60)"
  done
done
