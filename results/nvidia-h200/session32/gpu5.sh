#!/usr/bin/env bash
# Session 32, call 5 (nvidia-h200): (a) MCC tuned for 80 s from the stored results (WG_COMBINE atomic is new; the
# committed configuration uses `last`, whose fences changed); (b) the benchmark of DOT 2^24 (call 3's configuration,
# atomic) and MCC (a's result) with their peers; (c) the GPU soak of the contractions that call 4 left unfinished.
# Bundle: mdh, device_peak, peer_mdh, peer_clblast, peer_cuda, mdh_codegen_soak_tests. Carry .device-bundle.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
nvidia-smi -L >"$OUT/gpu.txt"
s=results/nvidia-h200/session32
mdh tune apps/mcc.mdh --size N=1,P=7,Q=7,K=512,C=512,R=3,S=3 --device gpu --seed 1 --evals 10000000 --budget 80s \
  --out "$OUT/mcc-RW.json" >"$OUT/tune.log" 2>&1
tail -6 "$OUT/tune.log"
cp "$OUT/mcc-RW.json" results/nvidia-h200/mcc-RW.json
cp $s/call3/dot-RW.json results/nvidia-h200/dot-RW.json
scripts/device_run.sh bench gpu experiments.gpu.json --seconds 120 dot:RW mcc:RW 2>&1 | tail -16
tar czf "$OUT/bench.tgz" results/nvidia-h200/benchmark.csv results/nvidia-h200/records
export MDH_TUNABLE_VERBOSE=1
scripts/device_run.sh soak --seconds 270 --cpu-jobs 0 --gpu-jobs 16 --shards 8 \
  --filter 'tc_abcdef_geac|tc_abcdef_gebc|tc_abcdef_gfab|tc_abcdef_gfac|tc_abcdef_gfbc' --out "$OUT/soak.tar.gz" 2>&1 |
  tail -8
