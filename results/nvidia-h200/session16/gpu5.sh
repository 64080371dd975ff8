#!/usr/bin/env bash
# Session 16, call 5 on nvidia-h200: tuning MCC and the 9 CCSD(T) contractions again now that the space has
# UNROLL_STEPS and DOUBLE_BUFFER local: each run starts from its committed configuration with UNROLL_STEPS on
# (configs/start-*.json, --start; then the default and the stored results), auc_bandit, seed 1; MCC 150 s, each
# contraction 32 s. Results (mdh tune --out, the store's format) and journals in $OUT/tunes.tar.gz.
# Bundle: build/bin/mdh -- apps experiments.json experiments.gpu.json
set -u
out=${OUT:-/tmp/gpu5}
mkdir -p "$out/t"
export NVIDIA_TF32_OVERRIDE=0
for start in results/nvidia-h200/session16/configs/start-*.json; do
  name=$(basename "$start" .json); name=${name#start-}
  spec=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['spec'])" "$start")
  size=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['sizes']; print(','.join('%s=%s' % kv for kv in d.items()))" "$start")
  budget=32s; [[ $name == mcc* ]] && budget=150s
  echo "== $name ($budget)"
  mdh tune "$spec" --size "$size" --device gpu --technique auc_bandit --seed 1 --budget $budget --start "$start" \
    --journal "$out/t/$name.json.journal" --out "$out/t/$name.json" 2>&1 | grep -E '^(stopped|best|start|default)'
done
tar czf "$out/tunes.tar.gz" -C "$out/t" . && rm -rf "$out/t"
