#!/usr/bin/env bash
# Session 36, call 4 (nvidia-h200): why call 1's work-group counts of 264 and more lost a third. Variants of the
# committed DOT that separate the tile size (2,048 against 8,192), a work-group count that does not divide the
# tiles (264, 255: some work-groups' last tile is empty, so every tile is tested and DOUBLE_BUFFER cannot apply),
# and DOUBLE_BUFFER itself; three rounds of 300 runs through peer_mdh. Bundle: mdh, peer_mdh, device_peak.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
B=.device-bundle/bin
S=results/nvidia-h200/session36/configs
nvidia-smi -L >"$OUT/gpu.txt"
{
  $B/device_peak --device gpu | grep -iE "copy"
  for round in 1 2 3; do
    for f in results/nvidia-h200/dot-RW.json $S/dot-lt8192-wg256-nodb.json $S/dot-lt2048-wg256.json \
      $S/dot-wg264.json $S/dot-lt8192-wg264.json $S/dot-lt8192-wg264-nodb.json $S/dot-lt8192-wg255.json; do
      $B/peer_mdh --config $f --routine dot --spec apps/dot.mdh --size K=16777216 --seed 1 --device gpu \
        --json "$OUT/r.json" --label RW --warmups 20 --min-runs 300 --max-runs 300 >/dev/null
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, %s: device %.2f us, call %.2f us, passed %s' % (sys.argv[2], sys.argv[3], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['validation']['passed']))" "$OUT/r.json" $round $(basename $f)
    done
  done
} 2>&1 | tee "$OUT/ab.txt"
