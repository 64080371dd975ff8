#!/usr/bin/env bash
# Session 18, third call on nvidia-h200 for its 16-core Xeon through PoCL, with the CPU default of this session's
# code (one work-item per work-group; GEMM's reduction split into slices whose share of A and B fits a core's
# cache): the defaults of the previous binary (5a74519) and this one side by side, then every case of
# experiments.xeon.json benchmarked with the peers (the tuned configurations of call 1 and earlier; mdh-default is
# this binary's default), with a run timeout that lets PRL's RW size finish.
set -u
out=${OUT:-/tmp/cpu3}
mkdir -p "$out"
b=$PWD/.device-bundle-cpu
for f in "$b"/lib/*.gz "$b"/bin/*.gz; do [ -e "${f%.gz}" ] || gzip -dk "$f"; done; chmod +x "$b"/bin/*
slug=$(mdh devices --slug cpu)
for c in gemm:I=1024,J=1024,K=1024 gemm:I=10,J=500,K=64 gemv:I=4096,K=4096 mcc:N=1,P=7,Q=7,K=512,C=512,R=3,S=3 \
  tc/abcdef-gdab-efgc:A=24,B=16,C=16,D=16,E=24,F=16,G=24; do
  for m in mdh-5a74519 mdh; do
    echo "cpu default ${c%%:*} ${c#*:} $m: $($m run apps/${c%%:*}.mdh --size "${c#*:}" --config default --device cpu \
      --repeat 10 --verify 2>&1 | grep -E 'kernel time|PASS|FAIL' | tr '\n' ' ' | cut -c1-130)"
  done
done
for m in mdh-5a74519 mdh; do
  echo "cpu default prl $m: $(timeout 90 $m run apps/prl.mdh --size N=32768,M=1024 --prl-data --config default --device cpu \
    --repeat 3 2>&1 | grep -E 'kernel time' | cut -c1-100)"
done
MDH_BIN=$b/bin bash scripts/device_run.sh bench cpu experiments.xeon.json --seconds 380 --run-timeout 90 gemm:PC \
  gemv:PC dot:RW prl:RW gemm:RW gemv:RW mcc:RW tc-abcdef-gdab-efgc:RW gaussian:RW jacobi3d:RW 2>&1 | grep -vE '^==' |
  tail -70
tar czf "$out/cpu3.tar.gz" "results/$slug/records" "results/$slug/benchmark.json" "results/$slug/benchmark.csv"
