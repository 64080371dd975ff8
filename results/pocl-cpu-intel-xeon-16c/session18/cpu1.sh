#!/usr/bin/env bash
# Session 18, a call on nvidia-h200, first on its GPU: the PTX and times of committed configurations from the
# previous binary (5a74519) and this one (fast FP contraction for clang: does NVIDIA's compiler see it?), the GPU
# default before and after LOCAL_PAD 2 for transposed local caches; then its 16-core Xeon through PoCL (issue 12's
# Xeon targets) with this binary (PoCL's kernels fuse f's multiply with the combine's add): the cases with a target (GEMM
# 1024^3 and GEMV 4096^2 against OpenBLAS, DOT, PRL against the threaded C++ baseline) and the BLAS RW sizes (CLBlast
# on the same PoCL), tuned again (experiments.xeon.json's budgets x 0.6, auc_bandit seed 1) and benchmarked with the
# peers. Bundle .device-bundle-cpu: build/bin/{mdh,peer_mdh,device_peak,peer_clblast,peer_prl,peer_openblas,
# peer_eigen} -- apps experiments.json experiments.xeon.json, libopenblas, libclblast, libxgboost, libgfortran and the previous mdh (5a74519) gzipped (the 64-MiB carry limit).
set -u
out=${OUT:-/tmp/cpu1}
mkdir -p "$out"
b=$PWD/.device-bundle-cpu
for f in "$b"/lib/*.gz "$b"/bin/*.gz; do [ -e "${f%.gz}" ] || gzip -dk "$f"; done; chmod +x "$b"/bin/*
nproc; lscpu | grep -E 'Model name|^CPU\(s\)|L3'
slug=$(mdh devices --slug cpu); echo "slug: $slug"
# The NVIDIA side of the change: does the driver's compiler see `#pragma clang fp contract(fast)` (__clang__)? The PTX of
# committed configurations from the previous binary and from this one, and their times.
export NVIDIA_TF32_OVERRIDE=0
for c in gemm:PC:I=1024,J=1024,K=1024 mcc:RW:N=1,P=7,Q=7,K=512,C=512,R=3,S=3 dot:RW:K=16777216; do
  IFS=: read -r r l s <<<"$c"
  for m in mdh-5a74519 mdh; do
    $m inspect apps/$r.mdh --size "$s" --config results/nvidia-h200/$r-$l.json --device gpu -o "$out/ptx-$m-$r" >/dev/null 2>&1 ||
      echo "$m inspect $r failed"
  done
  for f in "$out/ptx-mdh-$r"/*; do
    cmp -s "$f" "$out/ptx-mdh-5a74519-$r/$(basename "$f")" && echo "$r $(basename "$f"): identical" ||
      echo "$r $(basename "$f"): DIFFERS"
  done
  for k in 1 2; do for m in mdh-5a74519 mdh; do
    echo "$r $m: $($m run apps/$r.mdh --size "$s" --config results/nvidia-h200/$r-$l.json --device gpu --repeat 100 2>&1 | grep 'kernel time')"
  done; done
done
# The GPU default with transposed local caches padded (LOCAL_PAD 2), against the previous binary's default.
for k in 1 2; do
  for c in gemm:I=1024,J=1024,K=1024 gemm:I=4096,J=4096,K=4096 mcc:N=1,P=7,Q=7,K=512,C=512,R=3,S=3 \
    tc/abcdef-gdbc-efga:A=24,B=16,C=16,D=16,E=24,F=16,G=24 tc/abcdef-gdab-efgc:A=24,B=16,C=16,D=16,E=24,F=16,G=24 \
    tc/abcdef-geab-dfgc:A=24,B=16,C=16,D=24,E=16,F=16,G=24; do
    for m in mdh-5a74519 mdh; do
      echo "default ${c%%:*} ${c#*:} $m: $($m run apps/${c%%:*}.mdh --size "${c#*:}" --config default --device gpu \
        --repeat 50 $([ $k = 1 ] && echo --verify) 2>&1 | grep -E 'kernel time|PASS|FAIL' | tr '\n' ' ' | cut -c1-160)"
    done
  done
done
tar czf "$out/ptx.tar.gz" -C "$out" $(cd "$out" && ls -d ptx-*) && rm -rf "$out"/ptx-*
MDH_BIN=$b/bin bash scripts/device_run.sh retune cpu experiments.xeon.json --scale 0.6 --tune-seconds 200 \
  --bench-seconds 250 gemm:PC gemv:PC dot:RW prl:RW gemm:RW gemv:RW 2>&1 | grep -vE '^==' | tail -40
tar czf "$out/cpu1.tar.gz" "results/$slug"
