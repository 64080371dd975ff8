#!/usr/bin/env bash
# Issue 16's scaling run, second form (prepared in session 13 for the next session with nvidia-h200-x2 budget).
# In call 1 (gpu1.sh) the default start was the best configuration of both 5-minute one-GPU runs, so "the time to
# the 1-GPU run's 5-minute result" was the time to evaluate the start (6-8 s) for one GPU and two alike. Here the
# runs search without the default start (--no-default-start) and without transfer, so the time to a result measures
# the search's throughput:
# Phase 1 (BASE s): GEMM 1024^3 on GPU 0 with cores 0-15 and the contraction abcdef-geab-dfgc on GPU 1 with cores
#   16-31, side by side (each a one-GPU, 16-core machine).
# Phase 2 (T s each): the same by `mpirun -np 2`, one rank per GPU, 32 cores.
# Each run has its own CUDA JIT cache (CUDA_CACHE_PATH): its compile workers' builds serve its evaluating workers, as
# for a user, while phase 2 cannot reuse phase 1's builds of the candidates both draw first (same seed).
# At most 8 files come back from the device: the 4 journals, logs.txt and analysis.txt.
# PHASES=1 or PHASES=2 runs one phase per device call (a call lasts at most 600 s: 300 s + 2 x 170 s do not fit one);
# analyse.py then runs where both phases' journals lie.
set -u
out=${OUT:-/tmp/x2}
work=/tmp/x2work
rm -rf "$work"; mkdir -p "$out" "$work"
T=${T:-140} BASE=${BASE:-300} DEVICE=${DEVICE:-gpu} CORES0=${CORES0:-0-15} CORES1=${CORES1:-16-31}
export NVIDIA_TF32_OVERRIDE=0
gemm=(apps/gemm.mdh --size I=1024,J=1024,K=1024)
tc=(apps/tc/abcdef-geab-dfgc.mdh --size A=24,B=16,C=16,D=24,E=16,F=16,G=24)
common=(--device "$DEVICE" --no-transfer --no-default-start)
{ nvidia-smi -L; nproc; } > "$work/machine.log" 2>&1
pin() { if command -v taskset >/dev/null; then taskset -c "$1" "${@:2}"; else "${@:2}"; fi; }
PHASES=${PHASES:-12}
if [[ $PHASES == *1* ]]; then
CUDA_CACHE_PATH=$work/nv-gemm-1 CUDA_VISIBLE_DEVICES=0 pin "$CORES0" mdh tune "${gemm[@]}" "${common[@]}" \
  --budget "${BASE}s" --journal "$out/gemm-1gpu.journal" --out "$work/gemm-1gpu.json" > "$work/gemm-1gpu.log" 2>&1 &
CUDA_CACHE_PATH=$work/nv-tc-1 CUDA_VISIBLE_DEVICES=1 pin "$CORES1" mdh tune "${tc[@]}" "${common[@]}" \
  --budget "${BASE}s" --journal "$out/tc-1gpu.journal" --out "$work/tc-1gpu.json" > "$work/tc-1gpu.log" 2>&1 &
wait
fi
[[ $PHASES == *2* ]] && for case in gemm tc; do
  if [[ $case == gemm ]]; then args=("${gemm[@]}"); else args=("${tc[@]}"); fi
  CUDA_CACHE_PATH=$work/nv-$case-2 mpirun -np 2 --bind-to none -x CUDA_CACHE_PATH "$(command -v mdh)" tune \
    "${args[@]}" "${common[@]}" --budget "${T}s" --journal "$out/$case-2gpu.journal" --out "$work/$case-2gpu.json" \
    > "$work/$case-2gpu.log" 2>&1
done
for f in "$work"/*.log; do echo "== $(basename "$f")"; grep -E "note: MPI|stopped|time:|best|error|H200|^[0-9]+$" "$f"; done > "$out/logs.txt"
cp "$work"/*.log "$work"/*.json "$out"/ 2>/dev/null
[[ $PHASES == 12 ]] && python3 results/nvidia-h200-x2/session13/analyse.py "$out" "$BASE" | tee "$out/analysis.txt"
exit 0
