#!/usr/bin/env bash
# Session 19, a call on nvidia-h200 for its 16-core Xeon through PoCL (bundle .device-bundle-cpu of cf6dba3).
# a) Issue 13 item 1 on the Xeon: DOT 2^24's default ran 2.62 ms against 1.38 for the committed configuration
#    (32,768 work-groups of 2 work-items, x cached): the default, the committed, and variants (configs/d-*.json:
#    one work-item per work-group with vector loads, work-groups x private tile x vector width), 20 runs, two rounds.
# b) MCC: the committed configuration (5 evaluations, an older session) ran 5.72 ms against the default's 3.58:
#    tuned again from the default (45 s) and benchmarked (session 18's cpu4.sh, not run then).
# c) PRL RW benchmarked with a run timeout long enough for the peer's double reference.
set -u
out=${OUT:-/tmp/cpu1}
mkdir -p "$out"
b=$PWD/.device-bundle-cpu
for f in "$b"/lib/*.gz "$b"/bin/*.gz; do [ -e "${f%.gz}" ] || gzip -dk "$f"; done; chmod +x "$b"/bin/*
slug=$(mdh devices --slug cpu); echo "slug: $slug"
stamp() { echo "## $(date -u +%T) $*"; }
cfgs=results/pocl-cpu-intel-xeon-16c/session19/configs
stamp "a) DOT probes"
for round in 1 2; do
  for c in default $cfgs/d-*.json; do
    echo "round $round $(basename "$c"): $(mdh run apps/dot.mdh --size K=16777216 --config "$c" --device cpu --repeat 20 \
      --verify 2>&1 | grep -E 'kernel time|FAIL|error' | sed 's/ over.*//' | tr '\n' ' ')"
  done
done
stamp "b) MCC retune"
MDH_BIN=$b/bin bash scripts/device_run.sh retune cpu experiments.xeon.json --tune-seconds 45 --bench-seconds 60 \
  mcc:RW 2>&1 | grep -vE '^==' | tail -20
stamp "c) PRL bench"
MDH_BIN=$b/bin bash scripts/device_run.sh bench cpu experiments.xeon.json --seconds 280 --run-timeout 300 prl:RW 2>&1 |
  grep -vE '^==' | tail -20
stamp done
tar czf "$out/cpu1.tar.gz" results/$slug/records/mcc-RW-* results/$slug/records/prl-RW-* results/$slug/benchmark.json \
  results/$slug/benchmark.csv results/$slug/mcc-RW.json results/$slug/mcc-RW.json.journal 2>/dev/null
