#!/usr/bin/env bash
# Session 17, call 6 on nvidia-h200 (bundle of call 5): 1. MCC and the contraction gdbc-efga tuned 60 s each from
# their best padded configurations of call 5 (--start; the default and the committed result are evaluated too),
# auc_bandit seed 1. 2. GPU soak, second part: PRL, matrix_chain and the 9 contractions.
set -u
out=${OUT:-/tmp/gpu3}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
cfg=results/nvidia-h200/session17/configs
tune() {  # NAME SPEC SIZE START
  mdh tune "$2" --size "$3" --device gpu --technique auc_bandit --seed 1 --budget 60s --start "$4" \
    --journal "$out/$1.json.journal" --out "$out/$1.json" 2>&1 | grep -E '^(stopped|best)'
}
tune mcc-RW apps/mcc.mdh N=1,P=7,Q=7,K=512,C=512,R=3,S=3 $cfg/mcc-F1-I1.json
tune tc-abcdef-gdbc-efga-RW apps/tc/abcdef-gdbc-efga.mdh A=24,B=16,C=16,D=16,E=24,F=16,G=24 $cfg/gdbc-TB2.json
MDH_BIN=$PWD/.device-bundle-pad/bin bash scripts/device_run.sh soak --seconds 390 --shards 8 --gpu-jobs 15 --cpu-jobs 0 \
  --filter 'prl|matrix_chain|tc_' --out "$out/soak-part2.tar.gz" 2>&1 | tail -16
