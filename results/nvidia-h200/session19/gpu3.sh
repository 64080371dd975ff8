#!/usr/bin/env bash
# Session 19, call 4 on nvidia-h200 (bundle .device-bundle: this session's binary, whose default technique is `local`).
# a) Issue 13 item 3: GEMM 1024^3 from the default with `local`, 30 s with 8 compile threads and 30 s with 16.
# b) Tuned again with `local`, starting from the committed configuration and the best of calls 1/3
#    (configs/*-local-call*.json): GEMM 1024^3 90 s, GEMM 4096^3 75 s, MCC 45 s, contraction gdab 45 s; a result
#    replaces the committed one (with its journal) only where its kernel time is lower.
# c) Those four cases benchmarked with their peers (cuBLAS, cuDNN, cuBLAS-TTGT) in this call.
set -u
out=${OUT:-/tmp/gpu3}
mkdir -p "$out/t"
export NVIDIA_TF32_OVERRIDE=0
log=$out/log.txt
stamp() { echo "## $(date -u +%T) $*"; }
cfg=results/nvidia-h200/session19/configs
tune() {  # name spec size seconds [extra...]
  local name=$1 spec=$2 size=$3 secs=$4; shift 4
  stamp "$name: $spec $size ${secs}s $*"
  mdh tune "$spec" --size "$size" --device gpu --seed 1 --evals 10000000 --budget "${secs}s" \
    --journal "$out/t/$name.journal" --out "$out/t/$name.json" "$@" 2>&1 | grep -vE '^ ' | tail -4
}
replace() {  # name committed-basename
  python3 - "$out/t/$1.json" "results/nvidia-h200/$2.json" <<'PY' && cp -f "$out/t/$1.json" "results/nvidia-h200/$2.json" &&
import json, sys
new, old = (json.load(open(p))["kernel_time_ns"] for p in sys.argv[1:])
print("%s: new %.0f ns, committed %.0f ns" % (sys.argv[2], new, old))
sys.exit(0 if new < old else 1)
PY
    cp -f "$out/t/$1.journal" "results/nvidia-h200/$2.json.journal" && echo "results/nvidia-h200/$2.json replaced"
}
{
tune ct8 apps/gemm.mdh I=1024,J=1024,K=1024 30 --no-transfer --compile-threads 8
tune ct16 apps/gemm.mdh I=1024,J=1024,K=1024 30 --no-transfer --compile-threads 16
tune gemm-PC apps/gemm.mdh I=1024,J=1024,K=1024 90 --no-transfer --start results/nvidia-h200/gemm-PC.json \
  --start $cfg/gemm-PC-local-call3.json
replace gemm-PC gemm-PC
tune gemm-PC-4096 apps/gemm.mdh I=4096,J=4096,K=4096 75 --no-transfer --start results/nvidia-h200/gemm-PC-4096.json
replace gemm-PC-4096 gemm-PC-4096
tune mcc-RW apps/mcc.mdh N=1,P=7,Q=7,K=512,C=512,R=3,S=3 45 --no-transfer --start results/nvidia-h200/mcc-RW.json
replace mcc-RW mcc-RW
tune gdab apps/tc/abcdef-gdab-efgc.mdh A=24,B=16,C=16,D=16,E=24,F=16,G=24 45 --no-transfer \
  --start results/nvidia-h200/tc-abcdef-gdab-efgc-RW.json --start $cfg/gdab-local-call1.json
replace gdab tc-abcdef-gdab-efgc-RW
stamp "bench"
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh bench gpu experiments.gpu.json --seconds 170 gemm:PC \
  gemm:PC-4096 mcc:RW tc-abcdef-gdab-efgc:RW 2>&1 | grep -vE '^==' | tail -30
stamp done
} 2>&1 | tee -a "$log"
tar czf "$out/call4.tar.gz" -C "$out" t log.txt
tar czf "$out/results.tar.gz" results/nvidia-h200/records results/nvidia-h200/benchmark.json \
  results/nvidia-h200/benchmark.csv results/nvidia-h200/gemm-PC.json* results/nvidia-h200/gemm-PC-4096.json* \
  results/nvidia-h200/mcc-RW.json* results/nvidia-h200/tc-abcdef-gdab-efgc-RW.json*
rm -rf "$out/t"
