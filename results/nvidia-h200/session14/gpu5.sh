#!/usr/bin/env bash
# Session 14, call 5 on nvidia-h200: before/after in one machine session, alternating, because calls 2-4 ran on
# different machines and the search's path depends on the timings: mdh_old (a34329c, the session's start) and mdh
# (the throughput changes), GEMM 1024^3 40 s twice each, then the contraction abcdef-geab-dfgc 40 s once each.
# Both with 8 compile workers (the new default; the old default was 12).
set -u
out=${OUT:-/tmp/gpu5}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
tune() {  # LABEL BINARY SPEC SIZE
  echo "== $1"
  "$2" tune "$3" --size "$4" --device gpu --budget 40s --no-transfer --compile-threads 8 \
    --journal "$out/$1.journal" --out /tmp/$1.json 2>&1 | grep -E '^(stopped|time|per eval|compiles of)'
}
gemm=(apps/gemm.mdh I=1024,J=1024,K=1024)
tc=(apps/tc/abcdef-geab-dfgc.mdh A=24,B=16,C=16,D=24,E=16,F=16,G=24)
tune gemm_old1 mdh_old "${gemm[@]}"
tune gemm_new1 mdh "${gemm[@]}"
tune gemm_old2 mdh_old "${gemm[@]}"
tune gemm_new2 mdh "${gemm[@]}"
tune tc_old mdh_old "${tc[@]}"
tune tc_new mdh "${tc[@]}"
