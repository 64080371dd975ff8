#!/usr/bin/env bash
# Session 19, a second call on nvidia-h200 for its 16-core Xeon through PoCL (bundle .device-bundle-cpu of this
# session's binary: default technique `local`, compile workers one per two cores on a CPU device).
# a) DOT 2^24 probes again (call 1's first round was lost to the output's tail): the default, call 1's fastest
#    (d-wg32768-wi2-pt32-v4, 0.64-0.72 ms) and variants of it (configs/e-*.json: one work-item, other widths, tiles,
#    work-group counts, strided runs), 20 runs each, two rounds.
# b) GEMM 1024^3 (0.48-0.55x OpenBLAS, target 0.5x) and DOT tuned again with `local` 60 s / 40 s, from the committed
#    configuration (and for DOT call 1's fastest probe); a result replaces the committed one only where faster.
# c) GEMM 1024^3 and DOT benchmarked with OpenBLAS, Eigen and CLBlast in this call.
set -u
out=${OUT:-/tmp/cpu2}
mkdir -p "$out/t"
b=$PWD/.device-bundle-cpu
for f in "$b"/lib/*.gz "$b"/bin/*.gz; do [ -e "${f%.gz}" ] || gzip -dk "$f"; done; chmod +x "$b"/bin/*
slug=$(mdh devices --slug cpu); echo "slug: $slug"
stamp() { echo "## $(date -u +%T) $*"; }
cfgs=results/pocl-cpu-intel-xeon-16c/session19/configs
{
stamp "a) DOT probes"
for round in 1 2; do
  for c in default $cfgs/d-wg32768-wi2-pt32-v4.json $cfgs/e-*.json; do
    echo "round $round $(basename "$c"): $(mdh run apps/dot.mdh --size K=16777216 --config "$c" --device cpu --repeat 20 \
      --verify 2>&1 | grep -E 'kernel time|FAIL|error' | sed 's/ over.*//;s/ max abs.*//' | tr '\n' ' ')"
  done
done
tune() {  # name spec size seconds [extra...]
  local name=$1 spec=$2 size=$3 secs=$4; shift 4
  stamp "$name: $spec $size ${secs}s $*"
  mdh tune "$spec" --size "$size" --device cpu --seed 1 --evals 10000000 --budget "${secs}s" --no-transfer \
    --start "results/$slug/$name.json" --journal "$out/t/$name.journal" --out "$out/t/$name.json" "$@" 2>&1 |
    grep -vE '^ ' | tail -5
  python3 - "$out/t/$name.json" "results/$slug/$name.json" <<'PY' && cp -f "$out/t/$name.json" "results/$slug/$name.json" &&
import json, sys
new, old = (json.load(open(p))["kernel_time_ns"] for p in sys.argv[1:])
print("%s: new %.0f ns, committed %.0f ns" % (sys.argv[2], new, old))
sys.exit(0 if new < old else 1)
PY
    cp -f "$out/t/$name.journal" "results/$slug/$name.json.journal" && echo "results/$slug/$name.json replaced"
}
tune gemm-PC apps/gemm.mdh I=1024,J=1024,K=1024 60
tune dot-RW apps/dot.mdh K=16777216 40 --start $cfgs/d-wg32768-wi2-pt32-v4.json
stamp "c) bench"
MDH_BIN=$b/bin bash scripts/device_run.sh bench cpu experiments.xeon.json --seconds 150 --run-timeout 60 gemm:PC dot:RW \
  2>&1 | grep -vE '^==' | tail -20
stamp done
} 2>&1 | tee "$out/log.txt"
tar czf "$out/call2.tar.gz" -C "$out" t log.txt
tar czf "$out/results.tar.gz" results/$slug/records/gemm-PC-* results/$slug/records/dot-RW-* \
  results/$slug/records/device_peak.json* results/$slug/benchmark.json results/$slug/benchmark.csv \
  results/$slug/gemm-PC.json* results/$slug/dot-RW.json*
rm -rf "$out/t"
