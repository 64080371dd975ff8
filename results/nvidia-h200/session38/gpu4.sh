#!/usr/bin/env bash
# Session 38, call 4 (nvidia-h200): DOT at sizes whose last tile is short (10^7, 2^24 - 1) with the committed
# configuration (what `mdh run` takes for them: the nearest tuned sizes), generator 4 (peer_mdh_old) and 5 (peer_mdh)
# against cuBLAS, three interleaved rounds of 300 runs; then the GPU soak of prl and matrix_chain, whose shuffle
# kernels lost C99's `inline` on mdh_shuffle_down. Bundle: mdh, peer_mdh, peer_mdh_old, peer_cuda,
# mdh_codegen_soak_tests, device_peak.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
B=.device-bundle/bin
H=results/nvidia-h200
nvidia-smi -L >"$OUT/gpu.txt"
$B/device_peak --device gpu --json "$OUT/device_peak.json" 2>&1 | tail -2
run() {  # K program [config]
  $B/$2 ${3:+--config $3} --routine dot --spec apps/dot.mdh --size K=$1 --seed 1 --device gpu --json /tmp/r.json \
    --label odd --warmups 20 --min-runs 300 --max-runs 300 >/dev/null 2>&1
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, K=%s, %s: device %.2f us, call %.2f us, passed %s' % (sys.argv[2], sys.argv[3], sys.argv[4], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['validation']['passed']))" /tmp/r.json $round $1 $2
}
{
  for round in 1 2 3; do
    for K in 10000000 16777215; do
      run $K peer_mdh_old $H/dot-RW.json
      run $K peer_mdh $H/dot-RW.json
      run $K peer_cuda
    done
  done
} 2>&1 | tee "$OUT/odd.txt"
scripts/device_run.sh soak --seconds 400 --cpu-jobs 0 --gpu-jobs 16 --shards 8 \
  --filter '/(prl|matrix_chain)$' --out "$OUT/soak.tar.gz" 2>&1 | tail -6
