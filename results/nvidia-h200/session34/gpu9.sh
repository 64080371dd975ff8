#!/usr/bin/env bash
# Session 34, call 9 (nvidia-h200): (a) DOT 2^24, the committed configuration against call 8's tuned one
# (dot/t1-tuned-call8.json: WG_OWNERSHIP strided), three rounds of 300 runs through peer_mdh, with the copy
# bandwidth; (b) the GPU soak's second part: prl (6 shards call 8 left), mcc, contraction4 and the 9 contractions.
# Bundle: mdh, mdh_codegen_soak_tests, peer_mdh, device_peak.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0 MDH_TUNABLE_VERBOSE=1
mkdir -p /work && ln -sfn "$PWD" /work/main
B=.device-bundle/bin
D=results/nvidia-h200/session34/dot
nvidia-smi -L >"$OUT/gpu.txt"
{
  $B/device_peak --device gpu | grep -iE "copy"
  for round in 1 2 3; do
    for f in results/nvidia-h200/dot-RW.json $D/t1-tuned-call8.json; do
      $B/peer_mdh --config $f --routine dot --spec apps/dot.mdh --size K=16777216 --seed 1 \
        --device gpu --json "$OUT/r.json" --label RW --warmups 20 --min-runs 300 --max-runs 300 >/dev/null
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, %s: device %.2f us, call %.2f us, runs %d, passed %s' % (sys.argv[2], sys.argv[3], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['runs'], d['validation']['passed']))" "$OUT/r.json" $round $f
    done
  done
} 2>&1 | tee "$OUT/ab.txt"
scripts/device_run.sh soak --seconds 535 --cpu-jobs 0 --gpu-jobs 16 --shards 8 \
  --filter '/(prl|mcc|contraction4|tc_.*)$' --out "$OUT/soak.tar.gz" 2>&1 | tail -30
