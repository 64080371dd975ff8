#!/usr/bin/env bash
# Diagnostic device call (H200): why GEMM 1000^3 with 64x64 tiles (edge tiles in i, j and k) ran 3x slower than
# 1024^3 with the same configuration. Times the exported kernels with examples/tuned_gemm (one run each, checked
# against a host loop): diag/g1024 and diag/g1000 as generated, diag/g1000_noelse with the step test replaced by
# `1` (edge steps unguarded: wrong at the edges, FAIL expected; only its time matters). Then each kernel's PTX
# (compare_builds --binaries) through ptxas -v and cuobjdump: registers, stack, spills, local-memory instructions.
set -u
B=$PWD/.device-bundle; D=$B/fast-tiles/diag
export PATH=$PATH:/usr/local/cuda/bin
for v in g1024 g1000 g1000_noelse; do
  for r in 1 2; do echo "$v run $r: $("$B/bin/tuned_gemm" "$D/$v" 2>&1)"; done
done
for v in g1024 g1000 g1000_noelse; do
  mkdir -p "/tmp/$v"; "$B/bin/compare_builds" "$D/$v/gemm.launch.json" --device gpu --binaries "/tmp/$v" "::$D/$v/gemm.cl" > /dev/null 2>&1
  cp "/tmp/$v/run1.bin" "$OUT/$v.ptx"
  echo "$v PTX: local depot $(grep -c '__local_depot' /tmp/$v/run1.bin), ld.local $(grep -c 'ld.local' /tmp/$v/run1.bin), st.local $(grep -c 'st.local' /tmp/$v/run1.bin), fma.rn.f32 $(grep -c 'fma.rn.f32' /tmp/$v/run1.bin), ld.shared $(grep -c 'ld.shared' /tmp/$v/run1.bin), bra $(grep -c 'bra' /tmp/$v/run1.bin), lines $(wc -l < /tmp/$v/run1.bin)"
  ptxas -arch=sm_90 -v "/tmp/$v/run1.bin" -o "/tmp/$v.cubin" 2>&1 | grep -vE '^\s*$' | head -5
  cuobjdump -sass "/tmp/$v.cubin" > "/tmp/$v.sass" 2>&1
  echo "$v SASS: FFMA $(grep -c FFMA /tmp/$v.sass), LDS $(grep -c 'LDS' /tmp/$v.sass), LDL $(grep -c 'LDL' /tmp/$v.sass), STL $(grep -c 'STL' /tmp/$v.sass), BRA $(grep -c 'BRA' /tmp/$v.sass)"
done
