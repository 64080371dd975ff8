#!/usr/bin/env bash
# Session 19, a fourth call on nvidia-h200 for its 16-core Xeon through PoCL (bundle of call 3): GEMM 1024^3
# (0.48x OpenBLAS in call 2, target 0.5x) tuned 240 s with `local` from the committed configuration (call 2's 60 s
# made only 19 evaluations: each build takes seconds on PoCL and competes with the timed kernels), replacing it only
# where faster, then benchmarked with OpenBLAS, Eigen and CLBlast.
set -u
out=${OUT:-/tmp/cpu4}
mkdir -p "$out/t"
b=$PWD/.device-bundle-cpu
for f in "$b"/lib/*.gz "$b"/bin/*.gz; do [ -e "$f" ] && { [ -e "${f%.gz}" ] || gzip -dk "$f"; }; done; chmod +x "$b"/bin/*
slug=$(mdh devices --slug cpu); echo "slug: $slug"
stamp() { echo "## $(date -u +%T) $*"; }
{
stamp "GEMM 1024^3 240 s"
mdh tune apps/gemm.mdh --size I=1024,J=1024,K=1024 --device cpu --seed 1 --evals 10000000 --budget 240s --no-transfer \
  --start results/$slug/gemm-PC.json --journal "$out/t/gemm-PC.journal" --out "$out/t/gemm-PC.json" 2>&1 |
  grep -vE '^ ' | tail -5
python3 - "$out/t/gemm-PC.json" "results/$slug/gemm-PC.json" <<'PY' && cp -f "$out/t/gemm-PC.json" "results/$slug/gemm-PC.json" &&
import json, sys
new, old = (json.load(open(p))["kernel_time_ns"] for p in sys.argv[1:])
print("%s: new %.0f ns, committed %.0f ns" % (sys.argv[2], new, old))
sys.exit(0 if new < old else 1)
PY
  cp -f "$out/t/gemm-PC.journal" "results/$slug/gemm-PC.json.journal" && echo "results/$slug/gemm-PC.json replaced"
stamp "bench"
MDH_BIN=$b/bin bash scripts/device_run.sh bench cpu experiments.xeon.json --seconds 120 --run-timeout 60 gemm:PC 2>&1 |
  grep -vE '^==' | tail -12
stamp done
} 2>&1 | tee "$out/log.txt"
tar czf "$out/call4.tar.gz" -C "$out" t log.txt
tar czf "$out/results.tar.gz" results/$slug/records/gemm-PC-* results/$slug/records/device_peak.json* \
  results/$slug/benchmark.json results/$slug/benchmark.csv results/$slug/gemm-PC.json*
rm -rf "$out/t"
