#!/usr/bin/env bash
# Session 18, call 3 on nvidia-h200 (bundle of call 1).
# a) MCC (RW: N=1,P=7,Q=7,K=512,C=512,R=3,S=3) 5-minute reference run (auc_bandit seed 1, --no-transfer); its result
#    replaces the committed mcc-RW.json (+ .journal) only if its kernel time is lower.
# b) The cases tuned in this session benchmarked with the peers (device_run.sh bench): GEMM 1024^3, GEMV 4096^2 and
#    Gaussian 4096^2 with the results of calls 1-2 (committed before this call), Jacobi 3D 512^3 (committed kept), MCC.
set -u
out=${OUT:-/tmp/gpu3}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
log=$out/log.txt
stamp() { echo "## $(date -u +%T) $*"; }
{
stamp "a) MCC RW 300 s"
mdh tune apps/mcc.mdh --size N=1,P=7,Q=7,K=512,C=512,R=3,S=3 --device gpu --technique auc_bandit --seed 1 \
  --evals 10000000 --budget 300s --no-transfer --journal $out/mcc-RW-300s.journal --out $out/mcc-RW-300s.json 2>&1 |
  grep -vE '^ ' | tail -12
python3 - "$out/mcc-RW-300s.json" results/nvidia-h200/mcc-RW.json <<'PY' && cp -f "$out/mcc-RW-300s.json" results/nvidia-h200/mcc-RW.json && cp -f "$out/mcc-RW-300s.journal" results/nvidia-h200/mcc-RW.json.journal && echo "mcc-RW.json replaced by the 300-s result"
import json, sys
new, old = (json.load(open(p))["kernel_time_ns"] for p in sys.argv[1:])
print("MCC kernel time: 300-s run %.0f ns, committed %.0f ns" % (new, old))
sys.exit(0 if new < old else 1)
PY
stamp "b) bench"
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh bench gpu experiments.gpu.json --seconds 250 gemm:PC gemv:PC \
  gaussian:PC jacobi3d:PC mcc:RW 2>&1 | grep -vE '^==' | tail -40
tar czf "$out/bench.tar.gz" results/nvidia-h200/records/gemm-PC-* results/nvidia-h200/records/gemv-PC-* \
  results/nvidia-h200/records/gaussian-PC-* results/nvidia-h200/records/jacobi3d-PC-* results/nvidia-h200/records/mcc-RW-* \
  results/nvidia-h200/records/device_peak.json* results/nvidia-h200/benchmark.json results/nvidia-h200/benchmark.csv \
  results/nvidia-h200/mcc-RW.json results/nvidia-h200/mcc-RW.json.journal 2>/dev/null
stamp done
} 2>&1 | tee -a "$log"
