#!/usr/bin/env bash
# Session 35, call 5 (nvidia-h200): `mdh tune` of DOT 2^24 for 120 s from the stored results, the search with
# CMB_WI shuffle (new) and the new protocol (no scratch fills between a program's calls; each verified candidate
# checked again from a poisoned output after its timed runs); then its configuration against the committed one,
# three rounds of 300 runs through peer_mdh, with the copy bandwidth. Bundle: mdh, peer_mdh, device_peak.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
B=.device-bundle/bin
nvidia-smi -L >"$OUT/gpu.txt"
$B/mdh tune apps/dot.mdh --size K=16777216 --device gpu --seed 1 --evals 10000000 --budget 120s \
  --out "$OUT/dot-RW.json" >"$OUT/tune.log" 2>&1
tail -20 "$OUT/tune.log"
python3 - "$OUT/dot-RW.json" <<'PY'
import collections, json, sys
d = json.load(open(sys.argv[1]))
print("tuned:", {k: v for k, v in d["config"].items() if k in ("CMB_WI", "WG_OWNERSHIP_k", "NUM_WG_k", "NUM_WI_k", "LT_SIZE_k", "PT_SIZE_k", "WG_COMBINE")})
print("evaluations", d["evaluations"], "valid", d["valid_evaluations"], "seconds", round(d["tuning_seconds"], 1))
PY
{
  $B/device_peak --device gpu | grep -iE "copy"
  for round in 1 2 3; do
    for f in results/nvidia-h200/dot-RW.json "$OUT/dot-RW.json"; do
      $B/peer_mdh --config $f --routine dot --spec apps/dot.mdh --size K=16777216 --seed 1 --device gpu \
        --json "$OUT/r.json" --label RW --warmups 20 --min-runs 300 --max-runs 300 >/dev/null
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, %s: device %.2f us, call %.2f us, passed %s' % (sys.argv[2], sys.argv[3], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['validation']['passed']))" "$OUT/r.json" $round $(basename $(dirname $f))/$(basename $f)
    done
  done
} 2>&1 | tee "$OUT/ab.txt"
