#!/usr/bin/env bash
# Issue 16: is the two-GPU run's rate of evaluations (GEMM 1024^3, `random`, seed 1) the host's compile capacity, or
# does the second GPU add something? Three phases of S s each, one after another, on one candidate stream:
#   A) GPU 0 alone on cores 0-15 (a one-GPU, 16-core machine, as session 24's A);
#   D) GPU 0 alone on all 32 cores (one GPU with the whole host to compile on);
#   C) `mpirun -np 2 --bind-to none` on both GPUs and all cores (the ranks keep to halves: pipeline/host_share.h).
# If D's rate is C's, the second GPU adds nothing that the second half of the host does not: the rate is the host's.
# Carry .openmpi and the slim .device-bundle (session 24's README); start with
# `source .device-bundle/env.sh && source .openmpi/env.sh`.
set -u
out=${OUT:-/tmp/x2}
work=/tmp/x2work
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rm -rf "$work"; mkdir -p "$out" "$work"
S=${S:-80} DEVICE=${DEVICE:-gpu}
export NVIDIA_TF32_OVERRIDE=0
gemm=(apps/gemm.mdh --size I=1024,J=1024,K=1024)
common=(--device "$DEVICE" --no-transfer --no-default-start --technique random --seed 1 --finalists 0
  --budget "${S}s")
{ nproc; lscpu; nvidia-smi -L; } > "$out/machine.txt" 2>&1

CUDA_VISIBLE_DEVICES=0 taskset -c 0-15 mdh tune "${gemm[@]}" "${common[@]}" \
  --journal "$work/a.journal" --out "$work/a.json" > "$work/a.log" 2>&1
CUDA_VISIBLE_DEVICES=0 mdh tune "${gemm[@]}" "${common[@]}" \
  --journal "$work/d.journal" --out "$work/d.json" > "$work/d.log" 2>&1
CUDA_CACHE_PATH=$work/nv-c mpirun -np 2 --bind-to none -x CUDA_CACHE_PATH "$(command -v mdh)" tune \
  "${gemm[@]}" "${common[@]}" --journal "$work/c.journal" --out "$work/c.json" > "$work/c.log" 2>&1

for f in a d c; do echo "== $f.log"; grep -E "note: MPI|keeps to cores|compile threads|stopped|time:|compiles of|evaluations/s|best|error|failed" "$work/$f.log"; done \
  > "$out/logs.txt"
python3 "$here/analyse.py" "$work" | tee "$out/analysis.txt"
for f in a d c; do [[ -f $work/$f.journal ]] && gzip -9 -c "$work/$f.journal" > "$out/$f.journal.gz"; done
exit 0
