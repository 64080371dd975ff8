#!/usr/bin/env bash
# Session 20, calls 2 and 3 on nvidia-h200: `bash gpu2.sh K` runs part K (2 or 3) of gdab's 30-minute run, then
# issue 13 item 3 (throughput, >= 15 evaluations/s on GEMM 1024^3): `local` from the default, seed 1, no transfer,
# 30 s each with 16 compile workers (the default on 16 cores), 24 and 32 (builds of NVIDIA's driver may wait on I/O
# or on each other, so more workers than cores may keep the cores busier).
source "$(dirname "$0")/common.sh"
k=${1:?part 2 or 3}
{
tc30 "$k"
nproc
for ct in 16 24 32; do
  tune gemm-ct$ct apps/gemm.mdh I=1024,J=1024,K=1024 30 --compile-threads $ct
done
stamp done
} 2>&1 | tee -a "$log"
tar czf "$out/tunes.tar.gz" -C "$out" t log.txt
rm -rf "$out/t"
