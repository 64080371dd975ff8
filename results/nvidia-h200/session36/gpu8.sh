#!/usr/bin/env bash
# Session 36, call 8 (nvidia-h200): is the rest of 264 work-groups' loss (44.8 against 37.5 us in call 5) the code
# size of 8 unrolled tiles, each with an unguarded and a guarded copy of its steps? DOT with 264 and 255 work-groups
# and the committed one, each with UNROLL_TILES on (as in call 5) and off; three rounds of 300 runs (generator 3).
# Bundle: mdh, peer_mdh, device_peak.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
B=.device-bundle/bin
S=results/nvidia-h200/session36/configs
nvidia-smi -L >"$OUT/gpu.txt"
{
  $B/device_peak --device gpu | grep -iE "copy"
  for round in 1 2 3; do
    for f in results/nvidia-h200/dot-RW.json $S/dot-unroll-off.json $S/dot-lt8192-wg264.json \
      $S/dot-lt8192-wg264-unroll-off.json $S/dot-lt8192-wg255.json $S/dot-lt8192-wg255-unroll-off.json; do
      $B/peer_mdh --config $f --routine dot --spec apps/dot.mdh --size K=16777216 --seed 1 --device gpu \
        --json "$OUT/r.json" --label RW --warmups 20 --min-runs 300 --max-runs 300 >/dev/null
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, %s: device %.2f us, call %.2f us, passed %s' % (sys.argv[2], sys.argv[3], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['validation']['passed']))" "$OUT/r.json" $round $(basename $f)
    done
  done
} 2>&1 | tee "$OUT/ab.txt"
