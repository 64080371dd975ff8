#!/usr/bin/env bash
# Session 13, nvidia-h200-x2 (two H200 of one host, 32 cores): issue 16's scaling run.
# Phase 1 (300 s): the 1-GPU runs, side by side: GEMM 1024^3 on GPU 0 with cores 0-15, the contraction
#   abcdef-geab-dfgc on GPU 1 with cores 16-31 (each as a one-GPU, 16-core machine; mdh's defaults otherwise).
# Phase 2 (T s each): the same two cases by `mpirun -np 2`, one rank per GPU, the host's 32 cores.
# All runs: no transfer from the tuned-results store (it would start every run from the stored best), default
# technique and start. analyse.py computes the time to the 1-GPU result.
set -u
# Files go straight to $OUT (14 of them), so that a run cut at the device's time limit still returns them.
work=${OUT:-/tmp/x2}
mkdir -p "$work"
T=${T:-135} BASE=${BASE:-300} DEVICE=${DEVICE:-gpu} CORES0=${CORES0:-0-15} CORES1=${CORES1:-16-31}
# No driver JIT cache: phase 2 draws the same candidates first (same seed), which must not build faster than in phase 1.
export NVIDIA_TF32_OVERRIDE=0 CUDA_CACHE_DISABLE=1
gemm=(apps/gemm.mdh --size I=1024,J=1024,K=1024)
tc=(apps/tc/abcdef-geab-dfgc.mdh --size A=24,B=16,C=16,D=24,E=16,F=16,G=24)
{ nvidia-smi -L; nproc; mdh devices; } > "$work/machine.txt" 2>&1
cat "$work/machine.txt"
pin() { if command -v taskset >/dev/null; then taskset -c "$1" "${@:2}"; else "${@:2}"; fi; }
CUDA_VISIBLE_DEVICES=0 pin "$CORES0" mdh tune "${gemm[@]}" --device "$DEVICE" --budget "${BASE}s" --no-transfer \
  --journal "$work/gemm-1gpu.journal" --out "$work/gemm-1gpu.json" > "$work/gemm-1gpu.log" 2>&1 &
CUDA_VISIBLE_DEVICES=1 pin "$CORES1" mdh tune "${tc[@]}" --device "$DEVICE" --budget "${BASE}s" --no-transfer \
  --journal "$work/tc-1gpu.journal" --out "$work/tc-1gpu.json" > "$work/tc-1gpu.log" 2>&1 &
wait
tail -n 3 "$work/gemm-1gpu.log" "$work/tc-1gpu.log"
for case in gemm tc; do
  if [[ $case == gemm ]]; then args=("${gemm[@]}"); else args=("${tc[@]}"); fi
  mpirun -np 2 --bind-to none "$(command -v mdh)" tune "${args[@]}" --device "$DEVICE" --budget "${T}s" --no-transfer \
    --journal "$work/$case-2gpu.journal" --out "$work/$case-2gpu.json" > "$work/$case-2gpu.log" 2>&1
  grep -E "note: MPI|stopped|best|time:" "$work/$case-2gpu.log" | head -6
done
python3 results/nvidia-h200-x2/session13/analyse.py "$work" "$BASE" | tee "$work/analysis.txt"
