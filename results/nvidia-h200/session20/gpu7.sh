#!/usr/bin/env bash
# Session 20, call 7 on nvidia-h200: the contraction gdab tuned for 5 minutes from the default (`local`, seed 1, no
# transfer, as in calls 1-5) with mdh-new2 (commit 514b1e0: one-parameter changes tried a parameter group at a time
# in turn, and 661a74a's compile deadline), to compare with the first 5 minutes of calls 1-5's run (0.2008 ms).
source "$(dirname "$0")/common.sh"
{
MDH=mdh-new2 tune gdab-300s apps/tc/abcdef-gdab-efgc.mdh A=24,B=16,C=16,D=16,E=24,F=16,G=24 300
stamp done
} 2>&1 | tee -a "$log"
gzip -9 "$out/t/gdab-300s.journal"
tar czf "$out/tunes.tar.gz" -C "$out" t log.txt
rm -rf "$out/t"
