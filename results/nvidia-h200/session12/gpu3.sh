#!/usr/bin/env bash
# Session 12, H200 call 3: the default configuration after the second change (8x4 register tiles kept where 128
# work-items per compute unit remain, strided-read inputs cached, DOUBLE_BUFFER on where a reduction tile loop can
# prefetch) on every case of experiments.gpu.json, next to main before this session (mdh_base, a487116) and the
# cuBLAS/cuDNN peers, all in this run; MCC with 8, 4 and 2 elements per work-item along k; GEMM with other k tiles.
set -u
B=$PWD/.device-bundle
out=${OUT:-/tmp/session12}/call3
mkdir -p "$out/configs"
export NVIDIA_TF32_OVERRIDE=0
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
variant() {  # IN OUT KEY=VALUE...
  python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); c = d.get('config', d)
for kv in sys.argv[3:]:
    k, v = kv.split('=', 1)
    c[k] = json.loads(v) if v[:1] in '0123456789[' else v
json.dump(d, open(sys.argv[2], 'w'))
PY
}
echo "# (A) defaults: case, before (mdh_base), after (mdh), peer" | tee -a "$out/bench.txt"
while IFS='|' read -r name spec sizes routine data; do
  peer=-
  case $name in gemm-*|mcc-*|tc-*)
    timeout 90 "$B/bin/peer_cuda" --routine "$routine" --spec "$spec" --size "$sizes" --device gpu \
      --json "$out/peer-$name.json" --label s12 --warmups 2 --min-runs 5 --max-runs 100 > "$out/peer-$name.log" 2>&1
    peer=$(python3 -c "
import json
r = json.load(open('$out/peer-$name.json')); print('%s %.4f' % (r.get('peer', '?'), r['device_time_ns']['median'] / 1e6))" 2>/dev/null) ;;
  esac
  printf '%-28s base %-16s new %-16s peer %s\n' "$name" "$(once "$B/bin/mdh_base" "$spec" "$sizes" default 0 "$data")" \
    "$(once "$B/bin/mdh" "$spec" "$sizes" default 1 "$data")" "$peer" | tee -a "$out/bench.txt"
done <<< "$cases"
echo "# (B) variants of the new default" | tee -a "$out/bench.txt"
while IFS='|' read -r name spec sizes routine data; do
  case $name in gemm-PC|mcc-RW|tc-abcdef-gdab-efgc-RW) ;; *) continue ;; esac
  timeout 60 "$B/bin/mdh" tune "$spec" --size "$sizes" --device gpu --evals 1 --out "$out/configs/default-$name.json" \
    > "$out/configs/default-$name.log" 2>&1
  d=$out/configs/default-$name.json
  case $name in
    gemm-PC) vs=("LT_SIZE_k=32" "LT_SIZE_k=8" "DOUBLE_BUFFER=off" "PT_SIZE_k=1" "PT_SIZE_k=2" "PT_SIZE_k=8") ;;
    mcc-RW) vs=("DOUBLE_BUFFER=off" "PT_SIZE_k=8 LT_SIZE_k=128 NUM_WG_k=4" "PT_SIZE_k=4 LT_SIZE_k=64 NUM_WG_k=8") ;;
    tc-*) vs=("DOUBLE_BUFFER=off" "LT_SIZE_g=4") ;;
  esac
  python3 -c "import json; print(json.dumps(json.load(open('$d'))['config']))" >> "$out/bench.txt" 2>&1
  n=0
  for v in "${vs[@]}"; do
    n=$((n + 1)); variant "$d" "$out/configs/$name-v$n.json" $v
    printf '%-28s %-40s %s\n' "$name" "$v" "$(once "$B/bin/mdh" "$spec" "$sizes" "$out/configs/$name-v$n.json" 1 -)" | tee -a "$out/bench.txt"
  done
done <<< "$cases"
gzip -f "$out/runs.log"
tar czf "${OUT:-/tmp/session12}/call3.tar.gz" -C "${OUT:-/tmp/session12}" call3 && rm -rf "$out"
