#!/usr/bin/env bash
# Session 32, call 4 (nvidia-h200): (a) DOT 2^24 benchmarked as experiments.py benchmarks it (peer_mdh), with
# peer_mdh before (peer_mdh_old: the zeroing fill of WG_COMBINE's scratch enqueued right before the timed kernel)
# and after runtime/execute.cpp waits for it, the committed configuration (last) and call 3's (atomic), three
# rounds, and the copy bandwidth (device_peak); (b) the GPU soak of every md_hom that reduces (WG_COMBINE atomic is
# new, last's fences changed). Bundle: mdh, peer_mdh, peer_mdh_old, device_peak, mdh_codegen_soak_tests.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0 MDH_TUNABLE_VERBOSE=1
mkdir -p /work && ln -sfn "$PWD" /work/main
nvidia-smi -L >"$OUT/gpu.txt"
s=results/nvidia-h200/session32
p() {
  $1 --config $2 --routine dot --spec apps/dot.mdh --size K=16777216 --seed 1 --device gpu --json /tmp/r.json \
    --label RW --warmups 2 --min-runs 5 --max-runs 200 >/tmp/r.log 2>&1 || { tail -3 /tmp/r.log; return; }
  python3 -c "import json; d=json.load(open('/tmp/r.json')); print('device %.4f ms call %.4f ms runs %d valid %s' % \
(d['device_time_ns']['median'] * 1e-6, d['call_time_ns']['median'] * 1e-6, d['runs'], d['validation']['passed']))"
}
{
  device_peak --device gpu --json /tmp/peak.json >/dev/null 2>&1 && python3 -c "import json; print(json.load(open('/tmp/peak.json')))" | cut -c1-300
  for round in 1 2 3; do
    for cfg in results/nvidia-h200/dot-RW.json $s/call3/dot-RW.json; do
      for bin in peer_mdh_old peer_mdh; do echo "round $round $cfg $bin: $(p $bin $cfg)"; done
    done
  done
} 2>&1 | tee "$OUT/protocol.txt"
scripts/device_run.sh soak --seconds 400 --cpu-jobs 0 --gpu-jobs 16 --shards 8 \
  --filter 'dot|gemv|gemm|mcc|prl|max1d|minplus|contraction4|strided|matrix_chain|tc_' --out "$OUT/soak.tar.gz" 2>&1 | tail -30
