#!/usr/bin/env bash
# Session 15, call 10 on nvidia-h200 and its 16-core Xeon (PoCL):
# 1. GEMV 4096^2 and DOT 2^24: the committed configurations against runs of 4 along the shared reduction read into
#    private caches as float4 (configs/gemv-runs*.json, dot-runs*.json), 50 runs after 3 warm-ups, two rounds.
# 2. MCC and DOT, committed from the 5-minute reference runs, and GEMV benchmarked with the peers in one run.
# 3. The CPU default (register tiles with private caches in the device's vector width) on the Xeon through PoCL:
#    the default before (mdh_old, dc7d270) and after. OpenBLAS cannot come along: its library (36.5 MB) and mdh's
#    do not fit the 64 MiB that a call carries together with the working tree.
# Bundle: build/bin/mdh /tmp/mdh_old/mdh_old build/bin/peer_mdh build/bin/device_peak build-cuda/bin/peer_cuda
#         -- apps experiments.json experiments.gpu.json
set -u
out=${OUT:-/tmp/gpu5}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
cfg=results/nvidia-h200/session15/configs
time1() {  # SPEC SIZE CONFIG
  echo "$2 $(basename "$3"): $(mdh run "$1" --size "$2" --device gpu --config "$3" --repeat 50 --warmup 3 \
    --verify </dev/null 2>&1 | grep -E 'kernel time|PASS|FAIL|error' | sed -E 's/over 50 runs.*//; s/verify.*(PASS|FAIL).*/\1/' |
    cut -c1-140 | tr '\n' ' ')"
}
for round in 1 2; do
  time1 apps/gemv.mdh I=4096,K=4096 results/nvidia-h200/gemv-PC.json
  for c in $cfg/gemv-runs*.json; do time1 apps/gemv.mdh I=4096,K=4096 "$c"; done
  time1 apps/dot.mdh K=16777216 results/nvidia-h200/dot-RW.json
  for c in $cfg/dot-runs*.json; do time1 apps/dot.mdh K=16777216 "$c"; done
done
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh bench gpu experiments.gpu.json --seconds 120 mcc:RW dot:RW \
  gemv:PC 2>&1 | grep -vE '^==' | tail -24
cpu1() {  # BINARY SPEC SIZE
  "$1" run "$2" --size "$3" --device cpu --config default --repeat 10 --warmup 2 --verify </dev/null 2>&1 |
    grep -E 'kernel time|PASS|FAIL|error' | sed -E 's/.*median ([0-9.]+ ms).*/\1/; s/verify.*(PASS|FAIL).*/\1/' |
    cut -c1-100 | tr '\n' ' '
}
for c in "apps/gemm.mdh I=1024,J=1024,K=1024" "apps/gemv.mdh I=4096,K=4096" "apps/dot.mdh K=16777216" \
         "apps/gemm.mdh I=10,J=500,K=64" "apps/mcc.mdh N=1,P=7,Q=7,K=512,C=512,R=3,S=3"; do
  read -r spec size <<< "$c"
  echo "xeon default $spec $size  old: $(cpu1 mdh_old $spec $size)  new: $(cpu1 mdh $spec $size)"
done
tar czf "$out/bench.tar.gz" results/nvidia-h200/records/mcc-RW-* results/nvidia-h200/records/dot-RW-* \
  results/nvidia-h200/records/gemv-PC-* results/nvidia-h200/records/device_peak.json results/nvidia-h200/benchmark.json \
  results/nvidia-h200/benchmark.csv 2>/dev/null
