#!/usr/bin/env bash
# Session 37, call 6 (nvidia-h200): generator 3 (peer_mdh_old, 7442e11) against generator 4 (peer_mdh) on the four H200
# rows whose kernels changed, their committed configurations, three interleaved rounds of 300 runs each (call 5's
# GEMV RW row ran slower than its default); then the soak of the last two contractions again (call 5's logs did not
# come back). Bundle: peer_mdh, peer_mdh_old, mdh_codegen_soak_tests, device_peak.
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
  for round in 1 2 3; do
    ab gemv RW apps/gemv.mdh I=1000,K=2048 $H/gemv-RW.json
    ab gemv PC apps/gemv.mdh I=4096,K=4096 $H/gemv-PC.json
    ab gemm RW apps/gemm.mdh I=10,J=500,K=64 $H/gemm-RW.json
    ab dot RW apps/dot.mdh K=16777216 $H/dot-RW.json
  done
} 2>&1 | tee "$OUT/ab.txt"
scripts/device_run.sh soak --seconds 200 --cpu-jobs 0 --gpu-jobs 16 --shards 8 \
  --filter '/(tc_abcdef_gfac_degb|tc_abcdef_gfbc_dega)$' --out "$OUT/soak.tar.gz" 2>&1 | tail -4
