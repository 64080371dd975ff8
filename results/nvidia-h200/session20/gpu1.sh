#!/usr/bin/env bash
# Session 20, call 1 on nvidia-h200 (bundle .device-bundle of the session's start).
# a) Part 1 of gdab's 30-minute run (common.sh).
# b) Issue 13, "no committed tuned configuration slower than the default": Gaussian 224^2 (committed 0.0064 ms,
#    default 0.0061) and the contraction geab (0.1216 against 0.1184) tuned again with `local` for 40 s, each from its
#    committed configuration (the default start is evaluated too); a result replaces the committed one only where
#    faster; then both benchmarked with their peers (cuDNN, cuBLAS-TTGT).
source "$(dirname "$0")/common.sh"
r=results/nvidia-h200
{
tc30 1
tune gaussian-RW apps/gaussian.mdh I=224,J=224 40 --start $r/gaussian-RW.json
replace gaussian-RW $r
tune tc-abcdef-geab-dfgc-RW apps/tc/abcdef-geab-dfgc.mdh A=24,B=16,C=16,D=24,E=16,F=16,G=24 40 \
  --start $r/tc-abcdef-geab-dfgc-RW.json
replace tc-abcdef-geab-dfgc-RW $r
stamp bench
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh bench gpu experiments.gpu.json --seconds 100 gaussian:RW \
  tc-abcdef-geab-dfgc:RW 2>&1 | grep -vE '^==' | tail -20
stamp done
} 2>&1 | tee -a "$log"
tar czf "$out/tunes.tar.gz" -C "$out" t log.txt
tar czf "$out/results.tar.gz" $r/records $r/benchmark.json $r/benchmark.csv $r/gaussian-RW.json* \
  $r/tc-abcdef-geab-dfgc-RW.json*
rm -rf "$out/t"
