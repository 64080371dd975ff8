#!/usr/bin/env bash
# Session 12, H200 call 7: ownership variants of the GEMM default (block ownership along j, the work-items'
# fastest dimension, lets a work-item read its 4 columns of B with one LDS.128), with cuBLAS in the same call.
set -u
B=$PWD/.device-bundle
out=${OUT:-/tmp/session12}/call7
mkdir -p "$out/configs"
export NVIDIA_TF32_OVERRIDE=0
once() {
  local args=(run "$2" --size "$3" --device gpu --repeat 50 --warmup 3 --verify) o med ver
  [[ $4 == default ]] || args+=(--config "$4")
  o=$(timeout 90 "$1" "${args[@]}" 2>&1)
  echo "== $1 ${args[*]}" >> "$out/runs.log"; echo "$o" >> "$out/runs.log"
  med=$(echo "$o" | sed -n 's/^kernel time: median \([0-9.e+-]*\) ms.*/\1/p')
  ver=$(echo "$o" | sed -n 's/^verify[^:]*: \([A-Z]*\).*/\1/p')
  echo "${med:-error} ${ver:--}"
}
variant() {
  python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); c = d.get('config', d)
for kv in sys.argv[3:]:
    k, v = kv.split('=', 1)
    c[k] = json.loads(v) if v[:1] in '0123456789[' else v
json.dump(d, open(sys.argv[2], 'w'))
PY
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/bench.txt"
for z in 1024 4096; do
  s=I=$z,J=$z,K=$z
  timeout 90 "$B/bin/peer_cuda" --routine gemm --spec apps/gemm.mdh --size $s --device gpu --json "$out/peer-$z.json" \
    --label s12 --warmups 2 --min-runs 5 --max-runs 100 > "$out/peer-$z.log" 2>&1
  python3 -c "
import json
r = json.load(open('$out/peer-$z.json')); print('peer gemm %s cublas %.4f' % ('$z', r['device_time_ns']['median'] / 1e6))" | tee -a "$out/bench.txt"
  timeout 60 "$B/bin/mdh" tune apps/gemm.mdh --size $s --device gpu --evals 1 --out "$out/configs/default-$z.json" > /dev/null 2>&1
  printf 'gemm %-5s %-58s %s\n' $z default "$(once "$B/bin/mdh" apps/gemm.mdh $s default)" | tee -a "$out/bench.txt"
  n=0
  for v in "OWNERSHIP_j=block" "OWNERSHIP_j=block OWNERSHIP_i=block" "OWNERSHIP_j=block PT_SIZE_k=1" \
           "OWNERSHIP_j=block PT_SIZE_k=8" "OWNERSHIP_j=block LT_SIZE_k=32" "OWNERSHIP_j=block BUF_ORDER_L_A=[1,0]" \
           "OWNERSHIP_j=block OWNERSHIP_i=block BUF_ORDER_L_A=[1,0]"; do
    n=$((n + 1)); variant "$out/configs/default-$z.json" "$out/configs/$z-v$n.json" $v
    printf 'gemm %-5s %-58s %s\n' $z "$v" "$(once "$B/bin/mdh" apps/gemm.mdh $s "$out/configs/$z-v$n.json")" | tee -a "$out/bench.txt"
  done
done
gzip -f "$out/runs.log"
tar czf "${OUT:-/tmp/session12}/call7.tar.gz" -C "${OUT:-/tmp/session12}" call7 && rm -rf "$out"
