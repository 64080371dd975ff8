#!/usr/bin/env bash
# Session 37, call 1 (nvidia-h200): can a read-only stream of DOT's 128 MiB get closer to the copy bandwidth with
# PTX load hints (floor/load_hints_cl.cpp)? The copy bandwidth before and after; three rounds of the committed DOT
# through peer_mdh; the committed DOT's PTX and build log (mdh inspect). Bundle: mdh, peer_mdh, device_peak,
# load_hints_cl.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
B=.device-bundle/bin
nvidia-smi -L >"$OUT/gpu.txt"
timeout 60 $B/mdh inspect apps/dot.mdh --size K=16777216 --config results/nvidia-h200/dot-RW.json --device gpu \
  -o "$OUT/inspect" >"$OUT/inspect.txt" 2>&1
{
  $B/device_peak --device gpu | grep -iE "copy"
  timeout 400 $B/load_hints_cl
  for round in 1 2 3; do
    $B/peer_mdh --config results/nvidia-h200/dot-RW.json --routine dot --spec apps/dot.mdh --size K=16777216 --seed 1 \
      --device gpu --json "$OUT/r.json" --label RW --warmups 20 --min-runs 300 --max-runs 300 >/dev/null
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, committed DOT: device %.2f us, call %.2f us, passed %s' % (sys.argv[2], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['validation']['passed']))" "$OUT/r.json" $round
  done
  $B/device_peak --device gpu | grep -iE "copy"
} 2>&1 | tee "$OUT/floor.txt"
