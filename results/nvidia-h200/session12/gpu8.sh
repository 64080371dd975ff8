#!/usr/bin/env bash
# Session 12, H200 call 8: tuning throughput with the time breakdown of `mdh tune` (issue 13 item 3): GEMM 1024^3
# and the CCSD(T) contraction geab-dfgc, 30 s each from the default start, compile workers one per core.
set -u
B=$PWD/.device-bundle
out=${OUT:-/tmp/session12}
for c in "gemm|apps/gemm.mdh|I=1024,J=1024,K=1024" "tc-geab|apps/tc/abcdef-geab-dfgc.mdh|A=24,B=16,C=16,D=24,E=16,F=16,G=24"; do
  IFS='|' read -r name spec sizes <<< "$c"
  echo "== $name" | tee -a "$out/tune.txt"
  timeout 120 "$B/bin/mdh" tune "$spec" --size "$sizes" --device gpu --budget 30s --out "$out/tune-$name.json" 2>&1 \
    | grep -v '^evaluations' | tail -4 | tee -a "$out/tune.txt"
done
