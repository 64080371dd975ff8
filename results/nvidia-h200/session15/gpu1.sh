#!/usr/bin/env bash
# Session 15, call 1 on nvidia-h200: STRIDED_RUN (runs of a vector per work-item) with private caches along
# strided dimensions, filled by float4 reads from the local caches (A's local cache transposed).
# GEMM 1024^3 and 4096^3: the committed configurations against hand-made run configurations (configs/), 50 runs
# after 3 warm-ups each, verified; cuBLAS (TF32 off) in the same call; registers and spills of two of them.
# Bundle: build/bin/mdh build-cuda/bin/peer_cuda -- apps experiments.json experiments.gpu.json results/nvidia-h200/session15/configs
set -u
out=${OUT:-/tmp/gpu1}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
cfg=results/nvidia-h200/session15/configs
time1() {  # SIZE CONFIG
  echo "$1 $(basename "$2"): $(mdh run apps/gemm.mdh --size "$1" --device gpu --config "$2" --repeat 50 --warmup 3 \
    --verify 2>&1 | grep -E 'kernel time|PASS|FAIL|error' | sed -E 's/over 50 runs.*//; s/verify.*(PASS|FAIL).*/\1/' |
    cut -c1-140 | tr '\n' ' ')"
}
s1=I=1024,J=1024,K=1024
s4=I=4096,J=4096,K=4096
for round in 1 2; do
  time1 $s1 results/nvidia-h200/gemm-PC.json
  for c in $cfg/g1024-*.json; do time1 $s1 "$c"; done
  time1 $s4 results/nvidia-h200/gemm-PC-4096.json
  for c in $cfg/g4096-*.json; do time1 $s4 "$c"; done
done
for s in $s1 $s4; do
  echo "cuBLAS $s: $(peer_cuda --routine gemm --spec apps/gemm.mdh --size $s --warmups 3 --min-runs 50 --max-runs 50 2>&1 | tail -2 | tr '\n' ' ')"
done
for c in g1024-a g4096-a; do
  s=$s1; [[ $c == g4096* ]] && s=$s4
  mdh inspect apps/gemm.mdh --size $s --device gpu --config $cfg/$c.json -o "$out/inspect-$c" 2>&1 | tail -4
done
tar czf "$out/inspect.tar.gz" -C "$out" inspect-g1024-a inspect-g4096-a 2>/dev/null && rm -rf "$out"/inspect-g*
