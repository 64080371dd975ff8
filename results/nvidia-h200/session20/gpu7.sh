#!/usr/bin/env bash
# Session 20, call 7 on nvidia-h200, bundle .device-bundle-7 (.device-bundle with bin/mdh of commit 514b1e0, without
# the peers this call does not run, for the 64-MiB carry):
# a) The contraction gdab tuned for 5 minutes from the default (`local`, seed 1, no transfer, as in calls 1-5) with
#    514b1e0's local search (one-parameter changes tried a parameter group at a time in turn) and 661a74a's compile
#    deadline, to compare with the first 5 minutes of calls 1-5's run (0.2008 ms; 0.2147 after 1 minute).
# b) gdac-efgb, whose retune in call 6 stopped at a start over the register budget, tuned again for 28 s from its
#    committed configuration; then gdac and Gaussian 224^2 benchmarked with their peers.
source "$(dirname "$0")/common.sh"
r=results/nvidia-h200
{
tune gdab-300s apps/tc/abcdef-gdab-efgc.mdh A=24,B=16,C=16,D=16,E=24,F=16,G=24 300
tune tc-abcdef-gdac-efgb-RW apps/tc/abcdef-gdac-efgb.mdh A=24,B=16,C=16,D=16,E=24,F=16,G=24 28 \
  --start $r/tc-abcdef-gdac-efgb-RW.json
replace tc-abcdef-gdac-efgb-RW $r
stamp bench
MDH_BIN=$PWD/.device-bundle-7/bin bash scripts/device_run.sh bench gpu experiments.gpu.json --seconds 80 \
  tc-abcdef-gdac-efgb:RW gaussian:RW 2>&1 | grep -vE '^==' | tail -14
stamp done
} 2>&1 | tee -a "$log"
gzip -9 "$out/t/gdab-300s.journal"
tar czf "$out/tunes.tar.gz" -C "$out" t log.txt
tar czf "$out/results.tar.gz" $r/records $r/benchmark.json $r/benchmark.csv $r/tc-abcdef-gdac-efgb-RW.json*
rm -rf "$out/t"
