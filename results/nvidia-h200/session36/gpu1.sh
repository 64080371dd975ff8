#!/usr/bin/env bash
# Session 36, call 1 (nvidia-h200): DOT 2^24. (1) The copy bandwidth, then three rounds of 300 runs through peer_mdh
# each of: session 34's committed configuration, session 35's tuned candidate (now results/nvidia-h200/dot-RW.json),
# and the candidate with work-group counts that are multiples of the 132 SMs (264, 528, 1056) or 512.
# (2) The benchmark row dot:RW with its peers (cuBLAS, CLBlast), as `scripts/device_run.sh bench` runs it.
# Bundle: mdh, peer_mdh, device_peak, peer_cuda, peer_clblast.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
B=.device-bundle/bin
S=results/nvidia-h200/session36/configs
nvidia-smi -L >"$OUT/gpu.txt"
{
  $B/device_peak --device gpu | grep -iE "copy"
  for round in 1 2 3; do
    for f in $S/dot-committed-s34.json results/nvidia-h200/dot-RW.json $S/dot-wg264.json $S/dot-wg528.json \
      $S/dot-wg1056.json $S/dot-wg512.json; do
      $B/peer_mdh --config $f --routine dot --spec apps/dot.mdh --size K=16777216 --seed 1 --device gpu \
        --json "$OUT/r.json" --label RW --warmups 20 --min-runs 300 --max-runs 300 >/dev/null
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, %s: device %.2f us, call %.2f us, passed %s' % (sys.argv[2], sys.argv[3], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['validation']['passed']))" "$OUT/r.json" $round $(basename $f)
    done
  done
} 2>&1 | tee "$OUT/ab.txt"
scripts/device_run.sh bench gpu experiments.gpu.json --seconds 240 dot:RW 2>&1 | tee "$OUT/bench.txt" | tail -30
tar czf "$OUT/bench.tgz" results/nvidia-h200/benchmark.csv results/nvidia-h200/records
