#!/usr/bin/env bash
# Session 25, call 7 (nvidia-h200), with the binary where `local` climbs from the first seed before its cost is known:
# gdab 5 minutes and GEMM 1024^3 1 minute from the default (seed 1, --no-transfer, as in calls 1 and 3), then the
# benchmark of gdab with the 30-minute run's configuration committed (cuBLAS-TTGT in the same run).
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
log=$OUT/log.txt
tc=(apps/tc/abcdef-gdab-efgc.mdh --size A=24,B=16,C=16,D=16,E=24,F=16,G=24 --device gpu --seed 1 --no-transfer)
echo "== gdab, 300 s from the default" >"$log"
mdh tune "${tc[@]}" --evals 10000000 --budget 300s --out /tmp/gdab300.json --journal /tmp/gdab300.journal 2>&1 |
  grep -vE '^evaluations [0-9]+ \(' | tail -8 >>"$log"
echo "== GEMM 1024^3, 60 s from the default" >>"$log"
mdh tune apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --seed 1 --no-transfer --budget 60s --out /tmp/gemm60.json \
  --journal /tmp/gemm60.journal 2>&1 | grep -vE '^evaluations [0-9]+ \(' | tail -8 >>"$log"
tar czf "$OUT/call7.tar.gz" -C /tmp gdab300.journal gdab300.json gemm60.journal gemm60.json
echo "== bench gdab" >>"$log"
scripts/device_run.sh bench gpu experiments.gpu.json --seconds 150 tc-abcdef-gdab-efgc:RW >>"$log" 2>&1
cp results/nvidia-h200/benchmark.csv "$OUT/"
tar czf "$OUT/records.tar.gz" results/nvidia-h200/records/tc-abcdef-gdab-efgc-RW* 2>/dev/null
