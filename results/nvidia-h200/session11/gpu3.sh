#!/usr/bin/env bash
# Session 11, third device call: the device's limits (device_peak), and issue 16's single-GPU demonstration of
# distributed tuning: GEMM 1024^3 tuned for 75 s by one process, then by two mpirun ranks sharing the one GPU
# (identical devices by construction: the mechanism, not the scaling). Also the tuner's throughput on the H200 with
# this session's space (issue 13).
set -u
out=${OUT:-/tmp/gpu3}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
device_peak --device gpu --json "$out/device_peak-h200.json" 2>&1 | tail -4
mdh tune apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --budget 75s --compile-threads 16 \
  --journal "$out/gemm-1rank.journal" --out "$out/gemm-1rank.json" > "$out/gemm-1rank.log" 2>&1
tail -3 "$out/gemm-1rank.log"
mpirun -np 2 --bind-to none "$(command -v mdh)" tune apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu \
  --budget 75s --compile-threads 8 --journal "$out/gemm-2ranks.journal" --out "$out/gemm-2ranks.json" \
  > "$out/gemm-2ranks.log" 2>&1
grep -E "note: MPI|stopped|best" "$out/gemm-2ranks.log" | head -5
python3 - "$out" <<'PY'
import json, sys, collections
out = sys.argv[1]
for name in ("gemm-1rank", "gemm-2ranks"):
    ranks = collections.Counter()
    strided = 0
    for line in open("%s/%s.journal" % (out, name)):
        r = json.loads(line)
        if "measured_on" in r:
            ranks[r["measured_on"].get("rank")] += 1
        c = r.get("config") or {}
        if c.get("OWNERSHIP_i") == "strided" or c.get("OWNERSHIP_j") == "strided":
            strided += 1
    print(name, "records by rank:", dict(ranks), "with strided ownership:", strided)
PY
gzip -f "$out"/*.journal
