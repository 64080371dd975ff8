#!/usr/bin/env bash
# Session 26, calls 2-5 (nvidia-h200): a 5-minute run of one case from the default (seed 1, --no-transfer) with the
# binary of main (6a84383, no withdrawals). Usage: gpu_tune.sh NAME SPEC SIZES
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
name=$1 spec=$2 sizes=$3
log=$OUT/log.txt
echo "== $name, 300 s from the default" >"$log"
mdh tune "$spec" --size "$sizes" --device gpu --seed 1 --no-transfer --evals 10000000 --budget 300s \
  --out "/tmp/$name.json" --journal "/tmp/$name.journal" 2>&1 | grep -vE '^evaluations [0-9]+ \(' | tail -8 >>"$log"
tar czf "$OUT/$name.tar.gz" -C /tmp "$name.journal" "$name.json"
