#!/usr/bin/env bash
# Session 11, fifth device call: the tuner's throughput after issue 15 moved compile-ahead into compile worker
# processes (each with its own OpenCL context, killable at its deadline): GEMM 1024^3 as in call 3 (75 s, 16
# compile threads) and Gaussian 4096^2 from the five hand-made starts as in call 4 (80 s).
set -u
out=${OUT:-/tmp/gpu5}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
c=results/nvidia-h200/session11/configs
mdh tune apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --budget 75s --compile-threads 16 \
  --journal "$out/gemm-PC.journal" --out "$out/gemm-PC.json" > "$out/gemm-PC.log" 2>&1
tail -2 "$out/gemm-PC.log"
starts=(); for f in $c/gaussian4096-*.json; do starts+=(--start "$f"); done
mdh tune apps/gaussian.mdh --size I=4096,J=4096 --device gpu --budget 80s "${starts[@]}" \
  --journal "$out/gaussian-PC.journal" --out "$out/gaussian-PC.json" > "$out/gaussian-PC.log" 2>&1
tail -2 "$out/gaussian-PC.log"
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
for name in ("gemm-PC", "gaussian-PC"):
    recs = [json.loads(l) for l in open("%s/%s.journal" % (out, name))][1:]
    recs = [r for r in recs if "start" in r]
    if not recs:
        continue
    gaps = sorted(b["start"] - a["end"] for a, b in zip(recs, recs[1:])) or [0]
    print("%s: %d timed, first at %.1f s, measuring %.1f s in all, gaps median %.2f s, p90 %.2f s, max %.2f s" % (
        name, len(recs), recs[0]["elapsed"], sum(r["end"] - r["start"] for r in recs), gaps[len(gaps) // 2],
        gaps[int(len(gaps) * 0.9)], gaps[-1]))
    starts = [json.loads(l) for l in open("%s/%s.journal" % (out, name))][0]["metadata"].get("starts", [])
    for r in recs[:1 + len(starts)]:
        print("   ", r["status"], r.get("cost"), "LT", [r["config"].get("LT_SIZE_" + d) for d in "ij"],
              "WI", [r["config"].get("NUM_WI_" + d) for d in "ij"], "PT", [r["config"].get("PT_SIZE_" + d) for d in "ij"],
              "cache", r["config"].get("MEM_INP_L_img"))
PY
gzip -f "$out"/*.journal
