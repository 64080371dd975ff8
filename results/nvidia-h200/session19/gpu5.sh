#!/usr/bin/env bash
# Session 19, call 6 on nvidia-h200 (bundle of call 5). Tuned again with `local` (this session's default), each from
# its committed configuration, a result replacing the committed one only where its kernel time is lower:
# Gaussian 4096^2 60 s, also from call 5's two fastest probes (work-items of 2x8 and 4x4 elements, private caches
# moved in float2 / float4: 0.0467 ms against the committed 0.0523-0.0527); GEMV 4096^2, DOT 2^24, GEMM 10x500x64
# 30 s each; Jacobi 3D 512^3 40 s. Then those cases and GEMM 1024^3 (a second run with cuBLAS after call 4's)
# benchmarked with their peers.
set -u
out=${OUT:-/tmp/gpu5}
mkdir -p "$out/t"
export NVIDIA_TF32_OVERRIDE=0
log=$out/log.txt
stamp() { echo "## $(date -u +%T) $*"; }
cfg=results/nvidia-h200/session19/configs
tune() {  # name spec size seconds [extra...]
  local name=$1 spec=$2 size=$3 secs=$4; shift 4
  stamp "$name: $spec $size ${secs}s $*"
  mdh tune "$spec" --size "$size" --device gpu --seed 1 --evals 10000000 --budget "${secs}s" --no-transfer \
    --start "results/nvidia-h200/$name.json" --journal "$out/t/$name.journal" --out "$out/t/$name.json" "$@" 2>&1 |
    grep -vE '^ ' | tail -5
  python3 - "$out/t/$name.json" "results/nvidia-h200/$name.json" <<'PY' && cp -f "$out/t/$name.json" "results/nvidia-h200/$name.json" &&
import json, sys
new, old = (json.load(open(p))["kernel_time_ns"] for p in sys.argv[1:])
print("%s: new %.0f ns, committed %.0f ns" % (sys.argv[2], new, old))
sys.exit(0 if new < old else 1)
PY
    cp -f "$out/t/$name.journal" "results/nvidia-h200/$name.json.journal" && echo "results/nvidia-h200/$name.json replaced"
}
{
tune gaussian-PC apps/gaussian.mdh I=4096,J=4096 60 --start $cfg/g-v2-32x8-2x8.json --start $cfg/g-v4-32x8-4x4.json
tune gemv-PC apps/gemv.mdh I=4096,K=4096 30
tune dot-RW apps/dot.mdh K=16777216 30
tune gemm-RW apps/gemm.mdh I=10,J=500,K=64 30
tune jacobi3d-PC apps/jacobi3d.mdh I=512,J=512,K=512 40
stamp "bench"
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh bench gpu experiments.gpu.json --seconds 220 gaussian:PC \
  gemv:PC dot:RW gemm:RW jacobi3d:PC gemm:PC 2>&1 | grep -vE '^==' | tail -40
stamp done
} 2>&1 | tee -a "$log"
tar czf "$out/call6.tar.gz" -C "$out" t log.txt
tar czf "$out/results.tar.gz" results/nvidia-h200/records results/nvidia-h200/benchmark.json \
  results/nvidia-h200/benchmark.csv results/nvidia-h200/*-PC.json* results/nvidia-h200/*-RW.json*
rm -rf "$out/t"
