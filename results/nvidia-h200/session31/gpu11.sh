#!/usr/bin/env bash
# Session 31, call 2 (nvidia-h200): call 1 found UNROLL_TILES' `#pragma unroll` without effect on NVIDIA (the same
# PTX loads, the same times). Which form of the request does NVIDIA's OpenCL compiler follow? An experimental mdh
# (mdh-x, not committed: MDH_EXPERIMENT_UNROLL_FORM chose the line before the tile loop) emits `#pragma unroll`
# (plain), `#pragma unroll 6` (count) or `__attribute__((opencl_unroll_hint))` (hint) for gdab's default and va with
# UNROLL_TILES on: registers and PTX loads (mdh inspect), times (mdh run), two rounds.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
nvidia-smi -L >"$OUT/gpu.txt"
h=results/nvidia-h200/session31/unroll-tiles s=apps/tc/abcdef-gdab-efgc.mdh z=A=24,B=16,C=16,D=16,E=24,F=16,G=24
for form in plain count hint; do
  for v in tc-abcdef-gdab-efgc-ut gdab-va-ut; do
    MDH_EXPERIMENT_UNROLL_FORM=$form mdh-x inspect $s --size $z --config $h/$v.json --device gpu -o "$OUT/i" 2>&1 |
      tail -1 | sed "s/^/$form $v /"
    echo "$form $v shared loads: $(grep -c 'ld.shared' "$OUT/i/"*.ptx), global loads: $(grep -c 'ld.global' "$OUT/i/"*.ptx)"
    rm -rf "$OUT/i"
  done
done | tee "$OUT/forms-inspect.txt"
for round in 1 2; do
  for form in plain count hint; do
    for v in tc-abcdef-gdab-efgc-ut gdab-va-ut; do
      echo "round $round $form $v $(MDH_EXPERIMENT_UNROLL_FORM=$form mdh-x run $s --size $z --config $h/$v.json \
        --device gpu --repeat 50 --warmup 3 2>&1 | sed -n 's/^kernel time: median \([0-9.]*\) ms.*/\1/p')"
    done
  done
done | tee "$OUT/forms.txt"
