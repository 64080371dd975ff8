#!/usr/bin/env bash
# Session 36, call 5 (nvidia-h200): one test per local tile for the private steps (generator 3, new) against one per
# step (generator 2: peer_mdh_old, built from f5c694d). (a) DOT 2^24's variants whose work-group counts leave some
# work-groups an empty last tile, and the committed GEMM 10x500x64 and MCC (the two H200 rows whose kernels changed),
# three rounds of 300 runs each through both programs; (b) the GPU soak's first part (every md_hom but PRL, MCC and
# the contractions), 1,000 random valid configurations each, optimised builds.
# Bundle: mdh, mdh_codegen_soak_tests, peer_mdh, peer_mdh_old, device_peak.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
B=.device-bundle/bin
R=results/nvidia-h200
S=$R/session36/configs
nvidia-smi -L >"$OUT/gpu.txt"
measure() {  # round program config routine spec size
  $B/$2 --config $3 --routine $4 --spec $5 --size $6 --seed 1 --device gpu --json "$OUT/r.json" --label RW \
    --warmups 20 --min-runs 300 --max-runs 300 >/dev/null
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, %-13s %-28s device %.2f us, call %.2f us, passed %s' % (sys.argv[2], sys.argv[3], sys.argv[4] + ':', d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['validation']['passed']))" "$OUT/r.json" $1 $2 $(basename $3 .json)
}
{
  $B/device_peak --device gpu | grep -iE "copy"
  for round in 1 2 3; do
    for p in peer_mdh_old peer_mdh; do
      measure $round $p $R/dot-RW.json dot apps/dot.mdh K=16777216
      measure $round $p $S/dot-lt8192-wg264.json dot apps/dot.mdh K=16777216
      measure $round $p $S/dot-lt8192-wg255.json dot apps/dot.mdh K=16777216
      measure $round $p $S/dot-wg264.json dot apps/dot.mdh K=16777216
      measure $round $p $R/gemm-RW.json gemm apps/gemm.mdh I=10,J=500,K=64
      measure $round $p $R/mcc-RW.json mcc apps/mcc.mdh N=1,P=7,Q=7,K=512,C=512,R=3,S=3
    done
  done
} 2>&1 | tee "$OUT/ab.txt"
scripts/device_run.sh soak --seconds 300 --cpu-jobs 0 --gpu-jobs 16 --shards 8 \
  --filter '/(dot|gemv|gemm|gemm_nt|gaussian|jacobi3d|max1d|minplus|strided|matrix_chain)$' --out "$OUT/soak.tar.gz" 2>&1 | tail -30
