#!/usr/bin/env bash
# Session 20, call 6 on nvidia-h200 (bundle .device-bundle; mdh-new = commit 661a74a).
# gdab's 30-minute run (calls 1-5) ended at 0.1291 ms, against 0.2062 for the configuration committed before: its
# output tile is written by 16 work-items along f (the output's unit stride, a whole 64-byte row) times 4 along e.
# It is now the committed gdab configuration (results/nvidia-h200/tc-abcdef-gdab-efgc-RW.json). The other eight
# contractions are tuned again with `local` for 28 s each, from their committed configuration and from gdab's best
# (configs/from-gdab-*.json: the same parameters; for the D=24, E=16 ones, e's tile 16 = 4 work-items x 4 and d in 12
# work-groups), a result replacing the committed one only where faster; then all nine benchmarked with cuBLAS-TTGT.
source "$(dirname "$0")/common.sh"
r=results/nvidia-h200
cfg=$dir/configs
{
for spec in apps/tc/abcdef-*.mdh; do
  n=$(basename "$spec" .mdh); short=${n#abcdef-}
  [ "$short" = gdab-efgc ] && continue
  case $short in gd*) size=A=24,B=16,C=16,D=16,E=24,F=16,G=24 ;; *) size=A=24,B=16,C=16,D=24,E=16,F=16,G=24 ;; esac
  MDH=mdh-new tune tc-$n-RW "$spec" "$size" 28 --start $r/tc-$n-RW.json --start $cfg/from-gdab-$short.json
  replace tc-$n-RW $r
done
stamp bench
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh bench gpu experiments.gpu.json --seconds 200 \
  $(for s in apps/tc/abcdef-*.mdh; do echo "tc-$(basename "$s" .mdh):RW"; done) 2>&1 | grep -vE '^==' | tail -30
stamp done
} 2>&1 | tee -a "$log"
tar czf "$out/tunes.tar.gz" -C "$out" t log.txt
tar czf "$out/results.tar.gz" $r/records $r/benchmark.json $r/benchmark.csv $r/tc-*-RW.json $r/tc-*-RW.json.journal
rm -rf "$out/t"
