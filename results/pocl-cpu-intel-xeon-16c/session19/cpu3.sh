#!/usr/bin/env bash
# Session 19, a third call on nvidia-h200 for its 16-core Xeon through PoCL: the CPU default of a shared reduction
# changed (2 work-items of 32-element blocks, private caches in float4, kernel_config.cpp kCpuReductionWorkItems).
# a) DOT 2^24's default with the previous binary (5542ca4, 16 work-items of one element) and this one, 20 runs, two
#    rounds, verified. b) DOT benchmarked with its peers (mdh: the committed tuned configuration; mdh-default: this
#    binary's default).
set -u
out=${OUT:-/tmp/cpu3}
mkdir -p "$out"
b=$PWD/.device-bundle-cpu
for f in "$b"/lib/*.gz "$b"/bin/*.gz; do [ -e "$f" ] && { [ -e "${f%.gz}" ] || gzip -dk "$f"; }; done; chmod +x "$b"/bin/*
slug=$(mdh devices --slug cpu); echo "slug: $slug"
stamp() { echo "## $(date -u +%T) $*"; }
{
stamp "a) DOT defaults"
for round in 1 2; do
  for m in mdh-5542ca4 mdh; do
    echo "round $round $m: $($m run apps/dot.mdh --size K=16777216 --config default --device cpu --repeat 20 --verify 2>&1 |
      grep -E 'kernel time|FAIL|error' | sed 's/ over.*//;s/ max abs.*//' | tr '\n' ' ')"
  done
done
stamp "b) bench"
MDH_BIN=$b/bin bash scripts/device_run.sh bench cpu experiments.xeon.json --seconds 100 --run-timeout 60 dot:RW 2>&1 |
  grep -vE '^==' | tail -12
stamp done
} 2>&1 | tee "$out/log.txt"
tar czf "$out/results.tar.gz" results/$slug/records/dot-RW-* results/$slug/records/device_peak.json* \
  results/$slug/benchmark.json results/$slug/benchmark.csv
