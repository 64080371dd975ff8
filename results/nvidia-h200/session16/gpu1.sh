#!/usr/bin/env bash
# Session 16, call 1 on nvidia-h200: probes.
# 1. The floor of one kernel's device time (DOT K=32, GEMM 1x1x1) and GEMM 10x500x64: committed, reference kernel and
#    hand configurations (configs/rw-*.json), cuBLAS in the same call: is 1.5x cuBLAS within reach?
# 2. Tuning throughput (issue 13 item 3): 60 s of GEMM 1024^3 with 8 (today's default on 16 cores) and 15 compile
#    threads.
# 3. Whether Nsight Compute is in the image.
# Bundle: build/bin/mdh build-cuda/bin/peer_cuda -- apps experiments.json experiments.gpu.json results/nvidia-h200/session16/configs
set -u
out=${OUT:-/tmp/gpu1}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
cfg=results/nvidia-h200/session16/configs
t() {  # SPEC SIZE ARGS...
  local spec=$1 size=$2; shift 2
  mdh run "$spec" --size "$size" --device gpu --repeat 50 --warmup 3 --verify "$@" 2>&1 |
    grep -E 'kernel time|whole call|PASS|FAIL|error' | sed -E 's/verify.*(PASS|FAIL).*/\1/' | cut -c1-120 | tr '\n' ' '
}
echo "floor dot K=32 default: $(t apps/dot.mdh K=32 --config default)"
echo "floor gemm 1x1x1 default: $(t apps/gemm.mdh I=1,J=1,K=1 --config default)"
rw=I=10,J=500,K=64
for round in 1 2; do
  echo "RW committed: $(t apps/gemm.mdh $rw --config results/nvidia-h200/gemm-RW.json)"
  echo "RW default: $(t apps/gemm.mdh $rw --config default)"
  echo "RW reference: $(t apps/gemm.mdh $rw --reference)"
  for c in $cfg/rw-*.json; do echo "RW $(basename $c): $(t apps/gemm.mdh $rw --config $c)"; done
  echo "cuBLAS RW: $(peer_cuda --routine gemm --spec apps/gemm.mdh --size $rw --warmups 3 --min-runs 50 --max-runs 50 2>&1 | tail -2 | tr '\n' ' ')"
done
for threads in 8 15; do
  echo "== tune GEMM 1024^3 60 s, $threads compile threads"
  mdh tune apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --technique auc_bandit --seed 1 --budget 60s \
    --no-transfer --compile-threads $threads --journal "$out/t$threads.journal" --out "$out/t$threads.json" 2>&1 |
    grep -E '^(stopped|time|best|compiles|per eval)'
done
tar czf "$out/tunes.tar.gz" -C "$out" t8.journal t15.journal && rm -f "$out"/t*.journal
echo "== tools: $(command -v ncu nsys nvidia-smi | tr '\n' ' ') $(ls -d /usr/local/cuda*/ 2>/dev/null | tr '\n' ' ')"
ls /usr/local/cuda/bin 2>/dev/null | tr '\n' ' '
