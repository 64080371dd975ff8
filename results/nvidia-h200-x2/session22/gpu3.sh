#!/usr/bin/env bash
# Issue 16's evaluations-per-second measure on one candidate stream (prepared in session 22 for the next session
# with nvidia-h200-x2 budget; about 8 minutes of one call).
# Session 22's runs (gpu2.sh in ../session13) searched with `local`, whose proposals follow the costs: the 1-GPU and
# 2-GPU runs of the contraction went to different regions (0.30 ms against 0.086 ms kernels, compiles of different
# lengths), so their evaluations per second did not compare throughput. Here `random` with one seed draws the same
# configurations in the same order whatever the costs and however many evaluate at once; each case runs S s on GPU
# 0 alone with cores 0-15 (a one-GPU, 16-core machine; nothing else runs), then S s by `mpirun -np 2` on both GPUs
# and all cores. analyse_stream.py counts both runs' evaluations over the same span, checks that the 2-GPU run's
# stream begins with the 1-GPU run's, and compares the compile times (each journal records them; MPI ranks' since
# session 22).
# Carry [".device-bundle", ".openmpi"]; start with `source .device-bundle/env.sh && source .openmpi/env.sh`.
set -u
out=${OUT:-/tmp/x2}
work=/tmp/x2work
rm -rf "$work"; mkdir -p "$out" "$work"
S=${S:-110} DEVICE=${DEVICE:-gpu}
export NVIDIA_TF32_OVERRIDE=0
gemm=(apps/gemm.mdh --size I=1024,J=1024,K=1024)
tc=(apps/tc/abcdef-geab-dfgc.mdh --size A=24,B=16,C=16,D=24,E=16,F=16,G=24)
common=(--device "$DEVICE" --no-transfer --no-default-start --technique random --seed 1 --finalists 0
  --budget "${S}s")
{ nvidia-smi -L; nproc; lscpu | grep -E "Model name|Thread|Core|Socket|NUMA node"; } > "$out/machine.txt" 2>&1
for case in gemm tc; do
  if [[ $case == gemm ]]; then args=("${gemm[@]}"); else args=("${tc[@]}"); fi
  CUDA_CACHE_PATH=$work/nv-$case-1 CUDA_VISIBLE_DEVICES=0 taskset -c 0-15 mdh tune "${args[@]}" "${common[@]}" \
    --journal "$work/$case-1gpu.journal" --out "$work/$case-1gpu.json" > "$work/$case-1gpu.log" 2>&1
  CUDA_CACHE_PATH=$work/nv-$case-2 mpirun -np 2 --bind-to none -x CUDA_CACHE_PATH "$(command -v mdh)" tune \
    "${args[@]}" "${common[@]}" --journal "$work/$case-2gpu.journal" --out "$work/$case-2gpu.json" \
    > "$work/$case-2gpu.log" 2>&1
done
for f in "$work"/*.log; do echo "== $(basename "$f")"; grep -E "note: MPI|stopped|time:|compiles of|best|error" "$f"; done \
  > "$out/logs.txt"
python3 results/nvidia-h200-x2/session22/analyse_stream.py "$work" | tee "$out/analysis.txt"
# At most 8 files come back: machine.txt, logs.txt, analysis.txt and the 4 journals, compressed.
for f in "$work"/*.journal; do gzip -9 -c "$f" > "$out/$(basename "$f").gz"; done
exit 0
