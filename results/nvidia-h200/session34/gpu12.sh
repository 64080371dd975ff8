#!/usr/bin/env bash
# Session 34, call 12 (nvidia-h200): MCC (ResNet-50's last layer), the committed configuration (16 work-groups of
# 2 tiles along c) against the same with WG_OWNERSHIP_c strided (mcc-strided.json), three rounds of 300 runs through
# peer_mdh. Bundle: peer_mdh.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
B=.device-bundle/bin
nvidia-smi -L >"$OUT/gpu.txt"
{
  for round in 1 2 3; do
    for f in results/nvidia-h200/mcc-RW.json results/nvidia-h200/session34/mcc-strided.json; do
      $B/peer_mdh --config $f --routine mcc --spec apps/mcc.mdh --size C=512,K=512,N=1,P=7,Q=7,R=3,S=3 --seed 1 \
        --device gpu --json "$OUT/r.json" --label RW --warmups 20 --min-runs 300 --max-runs 300 >/dev/null
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, %s: device %.2f us, call %.2f us, runs %d, passed %s' % (sys.argv[2], sys.argv[3], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['runs'], d['validation']['passed']))" "$OUT/r.json" $round $f
    done
  done
} 2>&1 | tee "$OUT/mcc.txt"
