#!/usr/bin/env bash
# Session 19, call 1 on nvidia-h200 (bundle .device-bundle of cf6dba3).
# a) Issue 13 item 3, throughput: GEMM 1024^3 from the default, auc_bandit seed 1, --no-transfer, 40 s with 8
#    compile threads (the default: one per two of the 16 cores) and 40 s with 16.
# b) Issue 13 item 4: technique `local` against auc_bandit from the default (seed 1, --no-transfer, 100 s each) on
#    GEMM 1024^3 and the contraction abcdef-gdab-efgc (its default 0.2370 ms, the committed 0.2168: room to find).
set -u
out=${OUT:-/tmp/gpu1}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
log=$out/log.txt
stamp() { echo "## $(date -u +%T) $*"; }
tune() {  # name spec size seconds technique [extra...]
  local name=$1 spec=$2 size=$3 secs=$4 tech=$5; shift 5
  stamp "$name: $spec $size, $tech, ${secs}s $*"
  mdh tune "$spec" --size "$size" --device gpu --technique "$tech" --seed 1 --evals 10000000 --budget "${secs}s" \
    --no-transfer --journal "$out/$name.journal" --out "$out/$name.json" "$@" 2>&1 | grep -vE '^ ' | tail -6
}
{
nproc
tune gemm-ct8 apps/gemm.mdh I=1024,J=1024,K=1024 40 auc_bandit --compile-threads 8
tune gemm-ct16 apps/gemm.mdh I=1024,J=1024,K=1024 40 auc_bandit --compile-threads 16
tune gemm-auc apps/gemm.mdh I=1024,J=1024,K=1024 100 auc_bandit
tune gemm-local apps/gemm.mdh I=1024,J=1024,K=1024 100 local
tune gdab-auc apps/tc/abcdef-gdab-efgc.mdh A=24,B=16,C=16,D=16,E=24,F=16,G=24 100 auc_bandit
tune gdab-local apps/tc/abcdef-gdab-efgc.mdh A=24,B=16,C=16,D=16,E=24,F=16,G=24 100 local
stamp done
} 2>&1 | tee -a "$log"
tar czf "$out/tunes.tar.gz" -C "$out" $(cd "$out" && ls *.journal *.json)
