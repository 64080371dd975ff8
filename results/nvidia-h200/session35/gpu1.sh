#!/usr/bin/env bash
# Session 35, call 1 (nvidia-h200): CMB_WI shuffle (new: warp shuffles, shfl.sync). (a) The committed DOT, GEMV and
# GEMM 10x500x64 configurations, which combine their work-items by a tree, against the same with CMB_WI shuffle
# (configs/*-shuffle.json), three rounds of 300 runs through peer_mdh, with the copy bandwidth in the same run.
# (b) The GPU soak's first part: the small md_homs where work-items share reductions.
# Bundle: mdh, mdh_codegen_soak_tests, peer_mdh, device_peak.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0 MDH_TUNABLE_VERBOSE=1
mkdir -p /work && ln -sfn "$PWD" /work/main
B=.device-bundle/bin
R=results/nvidia-h200
D=$R/session35/configs
nvidia-smi -L >"$OUT/gpu.txt"
measure() {  # round label config routine spec size
  $B/peer_mdh --config $3 --routine $4 --spec $5 --size $6 --seed 1 --device gpu --json "$OUT/r.json" --label RW \
    --warmups 20 --min-runs 300 --max-runs 300 >/dev/null
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, %-26s device %.2f us, call %.2f us, runs %d, passed %s' % (sys.argv[2], sys.argv[3] + ':', d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['runs'], d['validation']['passed']))" "$OUT/r.json" $1 $2
}
{
  $B/device_peak --device gpu | grep -iE "copy"
  for round in 1 2 3; do
    measure $round dot $R/dot-RW.json dot apps/dot.mdh K=16777216
    measure $round dot-shuffle $D/dot-shuffle.json dot apps/dot.mdh K=16777216
    measure $round dot-strided $R/session34/dot/t1-tuned-call8.json dot apps/dot.mdh K=16777216
    measure $round dot-strided-shuffle $D/dot-strided-shuffle.json dot apps/dot.mdh K=16777216
    measure $round gemv-PC $R/gemv-PC.json gemv apps/gemv.mdh I=4096,K=4096
    measure $round gemv-PC-shuffle $D/gemv-PC-shuffle.json gemv apps/gemv.mdh I=4096,K=4096
    measure $round gemv-RW $R/gemv-RW.json gemv apps/gemv.mdh I=1000,K=2048
    measure $round gemv-RW-shuffle $D/gemv-RW-shuffle.json gemv apps/gemv.mdh I=1000,K=2048
    measure $round gemm-RW $R/gemm-RW.json gemm apps/gemm.mdh I=10,J=500,K=64
    measure $round gemm-RW-shuffle $D/gemm-RW-shuffle.json gemm apps/gemm.mdh I=10,J=500,K=64
  done
} 2>&1 | tee "$OUT/ab.txt"
scripts/device_run.sh soak --seconds 360 --cpu-jobs 0 --gpu-jobs 16 --shards 8 \
  --filter '/(dot|gemv|gemm|gemm_nt|max1d|minplus|strided|matrix_chain)$' --out "$OUT/soak.tar.gz" 2>&1 | tail -30
