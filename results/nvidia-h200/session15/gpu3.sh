#!/usr/bin/env bash
# Session 15, call 3 on nvidia-h200, the binary of the final kernel shape (STRIDED_RUN, private caches along strided
# dimensions, OWNERSHIP in the dimension's tree, the GPU default fed by vectors):
# 1. GPU soak, every TunableSoak case (the new shapes are in the random draws): 270 s, 15 GPU jobs.
# 2. GEMM 1024^3 and 4096^3 tuned again (their committed configurations are slower than the new default): 45 s each
#    from the default and the best hand-made configuration of call 1 (--start), recorded in the journal.
# 3. Both benchmarked beside their default and the peers in one run (device_run.sh bench).
# Bundle: build/bin/mdh build/bin/peer_mdh build/bin/peer_clblast build/bin/device_peak build-cuda/bin/peer_cuda
#         build/bin/mdh_codegen_soak_tests -- apps experiments.json experiments.gpu.json
set -u
out=${OUT:-/tmp/gpu3}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh soak --seconds 270 --shards 8 --gpu-jobs 15 --cpu-jobs 0 \
  --out "$out/soak.tar.gz" 2>&1 | tail -26
cfg=results/nvidia-h200/session15/configs
for k in 1024:gemm-PC.json:g1024-c 4096:gemm-PC-4096.json:g4096-d; do
  IFS=: read -r n r start <<< "$k"
  r=results/nvidia-h200/$r
  rm -f "$r" "$r.journal"
  mdh tune apps/gemm.mdh --size I=$n,J=$n,K=$n --device gpu --technique auc_bandit --seed 1 --evals 2000 \
    --budget 45s --start $cfg/$start.json --out "$r" --journal "$r.journal" 2>&1 | grep -E '^(stopped|best)'
done
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh bench gpu experiments.gpu.json --seconds 150 gemm:PC \
  gemm:PC-4096 2>&1 | tail -16
tar czf "$out/gemm.tar.gz" results/nvidia-h200/gemm-PC.json* results/nvidia-h200/gemm-PC-4096.json* \
  results/nvidia-h200/records/gemm-PC-* results/nvidia-h200/records/device_peak.json \
  results/nvidia-h200/benchmark.json results/nvidia-h200/benchmark.csv
