#!/usr/bin/env bash
# Session 14, call 3 on nvidia-h200: the throughput changes (compile deadline, kernels deadline, per-evaluation compile
# times in the journal) measured like call 2: GEMM 1024^3 40 s with 6 and 8 compile workers, the contraction
# abcdef-geab-dfgc 40 s with 8; and the host's core topology, which decides the compile-worker default.
set -u
out=${OUT:-/tmp/gpu3}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
lscpu | grep -E '^(CPU\(s\)|Thread|Core|Socket|Model name|NUMA node\(s\))'
tune() {  # LABEL THREADS SPEC SIZE
  echo "== $1: $2 compile workers"
  mdh tune "$3" --size "$4" --device gpu --budget 40s --no-transfer --compile-threads "$2" \
    --journal "$out/$1.journal" --out /tmp/$1.json 2>&1 | grep -E '^(stopped|time|per eval|compiles of)'
}
tune gemm_w8 8 apps/gemm.mdh I=1024,J=1024,K=1024
tune gemm_w6 6 apps/gemm.mdh I=1024,J=1024,K=1024
tune tc_w8 8 apps/tc/abcdef-geab-dfgc.mdh A=24,B=16,C=16,D=24,E=16,F=16,G=24
