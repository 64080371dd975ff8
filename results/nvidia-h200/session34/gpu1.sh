#!/usr/bin/env bash
# Session 34, call 1 (nvidia-h200): load and fence variants of a hand-written DOT (load_hints_cl.cpp) at 2^24 and
# 2^23 elements; the card's copy bandwidth (device_peak); peer_mdh on the committed DOT 2^24 and GEMV 4096^2, two
# rounds, in the same run. Bundle: device_peak, peer_mdh, load_hints_cl.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
B=.device-bundle/bin
nvidia-smi -L >"$OUT/gpu.txt"
{
  $B/device_peak --device gpu | grep -iE "copy|GB/s|GFLOP"
  $B/load_hints_cl
  for round in 1 2; do
    for c in "dot RW K=16777216" "gemv PC I=4096,K=4096"; do
      set -- $c
      $B/peer_mdh --config "results/nvidia-h200/$1-$2.json" --routine "$1" --spec "apps/$1.mdh" --size "$3" --seed 1 \
        --device gpu --json "$OUT/$1-$2.json" --label "$2" --warmups 2 --min-runs 5 --max-runs 100 >/dev/null
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, peer_mdh %s: device %.2f us, call %.2f us' % (sys.argv[3], sys.argv[2], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3))" "$OUT/$1-$2.json" "$1 $2" $round
    done
  done
} 2>&1 | tee "$OUT/hints.txt"
