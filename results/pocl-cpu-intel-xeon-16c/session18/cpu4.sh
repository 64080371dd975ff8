#!/usr/bin/env bash
# Session 18: NOT RUN (the device budget was spent; ready for the next session). A call on nvidia-h200 for its
# 16-core Xeon (bundle of call 7): MCC's committed configuration (5
# evaluations in an earlier session) ran 5.72 ms in call 7 against 3.58 for this session's default, so MCC is tuned
# again from the default (experiments.xeon.json's 25 s) and benchmarked.
set -u
out=${OUT:-/tmp/cpu4}
mkdir -p "$out"
b=$PWD/.device-bundle-cpu
for f in "$b"/lib/*.gz "$b"/bin/*.gz; do [ -e "${f%.gz}" ] || gzip -dk "$f"; done; chmod +x "$b"/bin/*
slug=$(mdh devices --slug cpu)
MDH_BIN=$b/bin bash scripts/device_run.sh retune cpu experiments.xeon.json --tune-seconds 45 --bench-seconds 60 \
  mcc:RW 2>&1 | grep -vE '^==' | tail -20
tar czf "$out/cpu4.tar.gz" results/$slug/records/mcc-RW-* results/$slug/benchmark.json results/$slug/benchmark.csv \
  results/$slug/mcc-RW.json results/$slug/mcc-RW.json.journal
