#!/usr/bin/env bash
# Session 12, H200 call 2. (A) Every case of experiments.gpu.json: the default configuration of main before this
# session (mdh_base, a487116) and after (mdh: register tiles and local caches where work-items share inputs),
# median of 30 runs, the new one verified. (B) DOUBLE_BUFFER on the best GEMM shapes and on the new defaults of
# GEMM, the contractions and MCC (the default written by `mdh tune --evals 1`, then DOUBLE_BUFFER set). (C) The
# cuBLAS/cuDNN peer of every case in the same run.
set -u
B=$PWD/.device-bundle
out=${OUT:-/tmp/session12}
mkdir -p "$out/configs"
export NVIDIA_TF32_OVERRIDE=0
s=results/nvidia-h200/session12/configs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/bench.txt"
cases=$(python3 -c "
import json
d = json.load(open('experiments.gpu.json'))
for r in d['routines']:
    for z in r['sizes']:
        print('%s-%s|%s|%s|%s|%s' % (r['name'], z['label'], r['spec'], z['size'], r['name'], r.get('data', '-')))")
once() {  # BINARY SPEC SIZES CONFIG VERIFY DATA
  local args=(run "$2" --size "$3" --device gpu --repeat 30 --warmup 3) o med ver
  [[ $4 == default ]] || args+=(--config "$4")
  [[ $5 == 1 ]] && args+=(--verify)
  [[ $6 == prl ]] && args+=(--prl-data)
  o=$(timeout 90 "$1" "${args[@]}" 2>&1)
  echo "== $1 ${args[*]}" >> "$out/runs.log"; echo "$o" >> "$out/runs.log"
  med=$(echo "$o" | sed -n 's/^kernel time: median \([0-9.e+-]*\) ms.*/\1/p')
  ver=$(echo "$o" | sed -n 's/^verify[^:]*: \([A-Z]*\).*/\1/p')
  echo "${med:-error} ${ver:--}"
}
echo "# (A) defaults: case, before (mdh_base), after (mdh)" | tee -a "$out/bench.txt"
while IFS='|' read -r name spec sizes routine data; do
  printf '%-28s base %-16s new %s\n' "$name" "$(once "$B/bin/mdh_base" "$spec" "$sizes" default 0 "$data")" \
    "$(once "$B/bin/mdh" "$spec" "$sizes" default 1 "$data")" | tee -a "$out/bench.txt"
done <<< "$cases"
echo "# (B) DOUBLE_BUFFER" | tee -a "$out/bench.txt"
db() { python3 -c "
import json, sys
d = json.load(open(sys.argv[1])); c = d.get('config', d); c['DOUBLE_BUFFER'] = 'on'
json.dump(d, open(sys.argv[2], 'w'))" "$1" "$2"; }
for f in $s/gemm-strided.json $s/gemm-strided-64.json $s/tc-geab-dfgc-local.json $s/tc-gdab-efgc-local-e8.json; do
  n=$(basename "$f" .json)
  read -r spec sizes < <(python3 -c "import json;d=json.load(open('$f'));print(d['spec'], ','.join(f'{k}={v}' for k,v in d['sizes'].items()))")
  db "$f" "$out/configs/$n-db.json"
  printf '%-28s off %-16s on %s\n' "$n" "$(once "$B/bin/mdh" "$spec" "$sizes" "$f" 0 -)" \
    "$(once "$B/bin/mdh" "$spec" "$sizes" "$out/configs/$n-db.json" 1 -)" | tee -a "$out/bench.txt"
done
while IFS='|' read -r name spec sizes routine data; do
  case $name in gemm-PC*|mcc-*|tc-*) ;; *) continue ;; esac
  timeout 60 "$B/bin/mdh" tune "$spec" --size "$sizes" --device gpu --evals 1 --out "$out/configs/default-$name.json" \
    > "$out/configs/default-$name.log" 2>&1
  db "$out/configs/default-$name.json" "$out/configs/default-$name-db.json" 2> /dev/null || continue
  printf '%-28s default+db %s\n' "$name" "$(once "$B/bin/mdh" "$spec" "$sizes" "$out/configs/default-$name-db.json" 1 -)" \
    | tee -a "$out/bench.txt"
done <<< "$cases"
echo "# (C) peers" | tee -a "$out/bench.txt"
while IFS='|' read -r name spec sizes routine data; do
  case $name in gemm-*|mcc-*|tc-*) ;; *) continue ;; esac
  timeout 90 "$B/bin/peer_cuda" --routine "$routine" --spec "$spec" --size "$sizes" --device gpu \
    --json "$out/peer-$name.json" --label s12 --warmups 2 --min-runs 5 --max-runs 100 > "$out/peer-$name.log" 2>&1
  python3 -c "
import json
r = json.load(open('$out/peer-$name.json')); print('peer %-28s %-12s %.4f' % ('$name', r.get('peer', '?'), r['device_time_ns']['median'] / 1e6))" \
    | tee -a "$out/bench.txt"
done <<< "$cases"
gzip -f "$out/runs.log"
tar czf "$out/configs.tar.gz" -C "$out" configs && rm -rf "$out/configs"
