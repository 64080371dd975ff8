#!/usr/bin/env bash
# Session 37, call 7 (nvidia-h200): call 6 again for GEMV RW and GEMV PC only, nine interleaved rounds (call 6 left
# GEMV RW undecided: 7.81 against 8.26 us at the median, rounds 7.57-8.83). Bundle: as call 6.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
B=.device-bundle/bin
H=results/nvidia-h200
nvidia-smi -L >"$OUT/gpu.txt"
ab() {  # routine label spec sizes config
  for p in peer_mdh_old peer_mdh; do
    $B/$p --config $5 --routine $1 --spec $3 --size $4 --seed 1 --device gpu --json /tmp/r.json --label $2 \
      --warmups 20 --min-runs 300 --max-runs 300 >/dev/null
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, %s %s, %s: device %.2f us, call %.2f us, passed %s' % (sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['validation']['passed']))" /tmp/r.json $round $1 $2 $p
  done
}
{
  for round in 1 2 3 4 5 6 7 8 9; do
    ab gemv RW apps/gemv.mdh I=1000,K=2048 $H/gemv-RW.json
    ab gemv PC apps/gemv.mdh I=4096,K=4096 $H/gemv-PC.json
  done
} 2>&1 | tee "$OUT/ab.txt"
