#!/usr/bin/env bash
# Session 25: part K (1-4) of the 30-minute reference run of the contraction abcdef-gdab-efgc (issue 13 item 5) with
# this session's binary: the default technique (local), seed 1, --no-transfer, from the default start; parts end at
# 300, 800, 1300 and 1800 s of tuning (the budget counts the journal's elapsed time), continued through --resume.
# The journal travels in results/nvidia-h200/session25/ (gzipped) and comes back under $OUT.
set -u
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
k=$1
ends=(0 300 800 1300 1800)
dir=results/nvidia-h200/session25
resume=
if [ "$k" -gt 1 ]; then
  resume=--resume
  gzip -dkf "$dir/gdab-1800s.journal.gz"
fi
echo "## $(date -u +%T) gdab 30-minute run, part $k of 4 (to ${ends[$k]} s)" >"$OUT/log-$k.txt"
mdh tune apps/tc/abcdef-gdab-efgc.mdh --size A=24,B=16,C=16,D=16,E=24,F=16,G=24 --device gpu --technique local \
  --seed 1 --evals 10000000 --budget "${ends[$k]}s" --no-transfer --journal "$dir/gdab-1800s.journal" \
  --out "$dir/gdab-1800s.json" $resume 2>&1 | grep -vE '^evaluations [0-9]+ \(' | tail -14 >>"$OUT/log-$k.txt"
wc -l "$dir/gdab-1800s.journal" >>"$OUT/log-$k.txt"
gzip -9 -c "$dir/gdab-1800s.journal" >"$OUT/gdab-1800s.journal.gz"
cp "$dir/gdab-1800s.json" "$OUT/"
