#!/usr/bin/env bash
# Session 17, call 8 on nvidia-h200 (bundle of call 5): the four contractions whose TB cache has the layout of
# gdbc-efga (BUF_ORDER_L_TB 0,2,3,1), where LOCAL_PAD_TB 2 made gdbc 11% faster in call 5, tuned 45 s each from
# their committed configuration with LOCAL_PAD_TB 2 (--start; the default and the committed result are evaluated
# too), auc_bandit seed 1; the results replace the committed ones; then benchmarked with the peers (bench).
set -u
out=${OUT:-/tmp/gpu5}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
cfg=results/nvidia-h200/session17/configs
cases=
for t in gdac-efgb:A=24,B=16,C=16,D=16,E=24,F=16,G=24 geab-dfgc:A=24,B=16,C=16,D=24,E=16,F=16,G=24 \
  geac-dfgb:A=24,B=16,C=16,D=24,E=16,F=16,G=24 gebc-dfga:A=24,B=16,C=16,D=24,E=16,F=16,G=24; do
  name=tc-abcdef-${t%%:*}
  mdh tune apps/tc/abcdef-${t%%:*}.mdh --size "${t#*:}" --device gpu --technique auc_bandit --seed 1 --budget 45s \
    --start "$cfg/${t:0:4}-TB2.json" --journal "$out/$name-RW.json.journal" --out "$out/$name-RW.json" 2>&1 |
    grep -E '^(stopped|best)'
  cp -f "$out/$name-RW.json" "results/nvidia-h200/$name-RW.json"
  cp -f "$out/$name-RW.json.journal" "results/nvidia-h200/$name-RW.json.journal"
  cases="$cases $name:RW"
done
MDH_BIN=$PWD/.device-bundle-pad/bin bash scripts/device_run.sh bench gpu experiments.gpu.json --seconds 200 $cases 2>&1 |
  grep -vE '^==' | tail -24
tar czf "$out/bench.tar.gz" results/nvidia-h200/records/tc-abcdef-g[de]*-RW-* results/nvidia-h200/records/device_peak.json* \
  results/nvidia-h200/benchmark.json results/nvidia-h200/benchmark.csv 2>/dev/null
