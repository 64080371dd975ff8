#!/usr/bin/env bash
# Session 20, calls 2 and 3 on nvidia-h200: `bash gpu2.sh K` runs part K (2 or 3) of gdab's 30-minute run, then
# issue 13 item 3 (throughput, >= 15 evaluations/s on GEMM 1024^3): `local` from the default, seed 1, no transfer,
# 30 s per run.
#   K=2: the session's starting binary with 16 compile workers (the default on 16 cores), 24 and 32 (builds of
#        NVIDIA's driver may wait on I/O or on each other, so more workers than cores may keep the cores busier).
#   K=3: the starting binary (16 workers) against mdh-new (commit 661a74a: the compile deadline leaves out the compile
#        workers' start-up) with 16 and 24 workers; `mdh-new` is carried in .device-bundle/bin.
source "$(dirname "$0")/common.sh"
k=${1:?part 2 or 3}
{
tc30 "$k"
nproc
if [ "$k" = 2 ]; then
  for ct in 16 24 32; do
    tune gemm-ct$ct apps/gemm.mdh I=1024,J=1024,K=1024 30 --compile-threads $ct
  done
else
  tune gemm-old-ct16 apps/gemm.mdh I=1024,J=1024,K=1024 30 --compile-threads 16
  for ct in 16 24; do
    MDH=mdh-new tune gemm-new-ct$ct apps/gemm.mdh I=1024,J=1024,K=1024 30 --compile-threads $ct
  done
fi
stamp done
} 2>&1 | tee -a "$log"
tar czf "$out/tunes.tar.gz" -C "$out" t log.txt
rm -rf "$out/t"
