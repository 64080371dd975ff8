#!/usr/bin/env bash
# Session 27 on: part K (1-4) of the 30-minute reference run of GEMM 1024^3 (issue 13 item 5) with today's tuner:
# the default technique (local), seed 1, --no-transfer, 16 compile workers (the default), from the default start;
# parts end at 500, 1000, 1500 and 1800 s of tuning (the budget counts the journal's elapsed time), continued through
# --resume. The journal travels gzipped in this folder and comes back under $OUT.
set -u
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
k=$1
end=${2:-}
ends=(0 500 1000 1500 1800)
dir=results/nvidia-h200/session27
resume=
if [ "$k" -gt 1 ]; then
  resume=--resume
  gzip -dkf "$dir/gemm1024-1800s.journal.gz"
fi
echo "## $(date -u +%T) GEMM 1024^3 30-minute run, part $k of 4 (to ${end:-${ends[$k]}} s)" >"$OUT/log-$k.txt"
mdh tune apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --technique local --seed 1 --evals 10000000 \
  --budget "${end:-${ends[$k]}}s" --no-transfer --journal "$dir/gemm1024-1800s.journal" --out "$dir/gemm1024-1800s.json" \
  $resume 2>&1 | grep -vE '^evaluations [0-9]+ \(' | tail -14 >>"$OUT/log-$k.txt"
wc -l "$dir/gemm1024-1800s.journal" >>"$OUT/log-$k.txt"
gzip -9 -c "$dir/gemm1024-1800s.journal" >"$OUT/gemm1024-1800s.journal.gz"
cp "$dir/gemm1024-1800s.json" "$OUT/"
