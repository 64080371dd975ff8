#!/usr/bin/env bash
# Session 26, call 1 (nvidia-h200), with the binary where `local` withdraws the asks a new best made stale: gdab
# 5 minutes from the default (seed 1, --no-transfer, as session 25's call 7), then the benchmark of gdab (committed
# configuration, cuBLAS-TTGT and the device peak in the same run).
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
log=$OUT/log.txt
tc=(apps/tc/abcdef-gdab-efgc.mdh --size A=24,B=16,C=16,D=16,E=24,F=16,G=24 --device gpu --seed 1 --no-transfer)
echo "== gdab, 300 s from the default" >"$log"
mdh tune "${tc[@]}" --evals 10000000 --budget 300s --out /tmp/gdab300.json --journal /tmp/gdab300.journal 2>&1 |
  grep -vE '^evaluations [0-9]+ \(' | tail -8 >>"$log"
tar czf "$OUT/call1.tar.gz" -C /tmp gdab300.journal gdab300.json
echo "== bench gdab" >>"$log"
scripts/device_run.sh bench gpu experiments.gpu.json --seconds 150 tc-abcdef-gdab-efgc:RW >>"$log" 2>&1
cp results/nvidia-h200/benchmark.csv "$OUT/"
tar czf "$OUT/records.tar.gz" results/nvidia-h200/records/tc-abcdef-gdab-efgc-RW* 2>/dev/null
