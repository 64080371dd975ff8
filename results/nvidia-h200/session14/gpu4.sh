#!/usr/bin/env bash
# Session 14, call 4 on nvidia-h200: call 3 again after its fixes (a worker's start-up no longer counts against the
# compile deadline, which cascaded after each stopped compile; deadline 6x the median compile with a window of 6 per
# compile worker): GEMM 1024^3 40 s with the new default (8 workers) and with 6, the contraction with the default.
set -u
out=${OUT:-/tmp/gpu4}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
tune() {  # LABEL THREADS SPEC SIZE
  echo "== $1: $2 compile workers"
  mdh tune "$3" --size "$4" --device gpu --budget 40s --no-transfer ${2:+--compile-threads $2} \
    --journal "$out/$1.journal" --out /tmp/$1.json 2>&1 | grep -E '^(stopped|time|per eval|compiles of)'
}
tune gemm_default "" apps/gemm.mdh I=1024,J=1024,K=1024
tune gemm_w6 6 apps/gemm.mdh I=1024,J=1024,K=1024
tune tc_default "" apps/tc/abcdef-geab-dfgc.mdh A=24,B=16,C=16,D=24,E=16,F=16,G=24
