#!/usr/bin/env bash
# Session 12, H200 call 4: the default after the third change on PRL, the gdab-type contractions and GEMM 1024^3
# with variants of gdab, the PTX of the GEMM default through ptxas -v and cuobjdump -sass, then the GPU soak of
# every family (DOUBLE_BUFFER is new) in the remaining time.
set -u
B=$PWD/.device-bundle
out=${OUT:-/tmp/session12}/call4
mkdir -p "$out/configs" "$out/ptx"
export NVIDIA_TF32_OVERRIDE=0
once() {  # BINARY SPEC SIZES CONFIG DATA
  local args=(run "$2" --size "$3" --device gpu --repeat 30 --warmup 3 --verify) o med ver
  [[ $4 == default ]] || args+=(--config "$4")
  [[ $5 == prl ]] && args+=(--prl-data)
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
gd=apps/tc/abcdef-gdab-efgc.mdh; gs=A=24,B=16,C=16,D=16,E=24,F=16,G=24
printf '%-28s %s\n' prl-RW "$(once "$B/bin/mdh" apps/prl.mdh N=32768,M=1024 default prl)" | tee -a "$out/bench.txt"
printf '%-28s %s\n' gemm-PC "$(once "$B/bin/mdh" apps/gemm.mdh I=1024,J=1024,K=1024 default -)" | tee -a "$out/bench.txt"
printf '%-28s %s\n' tc-gdab "$(once "$B/bin/mdh" $gd $gs default -)" | tee -a "$out/bench.txt"
printf '%-28s %s\n' tc-gdbc "$(once "$B/bin/mdh" apps/tc/abcdef-gdbc-efga.mdh $gs default -)" | tee -a "$out/bench.txt"
timeout 60 "$B/bin/mdh" tune $gd --size $gs --device gpu --evals 1 --out "$out/configs/default-gdab.json" > /dev/null 2>&1
python3 -c "import json; print(json.dumps(json.load(open('$out/configs/default-gdab.json'))['config']))" >> "$out/bench.txt"
n=0
for v in "PT_SIZE_e=1 LT_SIZE_e=8 NUM_WG_e=3 LT_SIZE_g=24 DOUBLE_BUFFER=off" "PT_SIZE_e=1 LT_SIZE_e=8 NUM_WG_e=3 LT_SIZE_g=12" \
         "PT_SIZE_e=1 LT_SIZE_e=8 NUM_WG_e=3 LT_SIZE_g=8" "PT_SIZE_e=3 LT_SIZE_g=8 DOUBLE_BUFFER=on" "PT_SIZE_e=3 LT_SIZE_g=2"; do
  n=$((n + 1)); variant "$out/configs/default-gdab.json" "$out/configs/gdab-v$n.json" $v
  printf '%-28s %-60s %s\n' tc-gdab "$v" "$(once "$B/bin/mdh" $gd $gs "$out/configs/gdab-v$n.json" -)" | tee -a "$out/bench.txt"
done
# PTX of the GEMM 1024^3 default.
timeout 60 "$B/bin/mdh" tune apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --evals 1 --binary-cache "$out/bc" \
  --out "$out/configs/default-gemm.json" --compile-threads 1 > "$out/configs/default-gemm.log" 2>&1
for bin in "$out/bc"/*.bin; do
  python3 - "$bin" "$out/ptx/$(basename "$bin" .bin).ptx" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
(n,) = struct.unpack('<Q', data[:8])
open(sys.argv[2], 'wb').write(data[8 + n:].rstrip(b'\0'))
PY
done
rm -rf "$out/bc"
for p in "$out"/ptx/*.ptx; do
  grep -q gemm_tunable "$p" || continue
  ptxas -arch=sm_90 -v "$p" -o "${p%.ptx}.cubin" > "${p%.ptx}.ptxas.txt" 2>&1
  cuobjdump -sass "${p%.ptx}.cubin" > "${p%.ptx}.sass" 2>&1
  printf 'gemm default PTX: %s | LDS %s LDS.64 %s LDS.128 %s FFMA %s LDG %s STG %s BAR %s\n' \
    "$(grep -E -o 'Used [0-9]+ registers|[0-9]+ bytes spill (stores|loads)' "${p%.ptx}.ptxas.txt" | tr '\n' ' ')" \
    "$(grep -c 'LDS ' "${p%.ptx}.sass")" "$(grep -c 'LDS.64' "${p%.ptx}.sass")" "$(grep -c 'LDS.128' "${p%.ptx}.sass")" \
    "$(grep -c 'FFMA' "${p%.ptx}.sass")" "$(grep -c 'LDG' "${p%.ptx}.sass")" "$(grep -c 'STG' "${p%.ptx}.sass")" \
    "$(grep -c 'BAR' "${p%.ptx}.sass")" | tee -a "$out/bench.txt"
done
gzip -f "$out/runs.log"
tar czf "${OUT:-/tmp/session12}/call4.tar.gz" -C "${OUT:-/tmp/session12}" call4 && rm -rf "$out"
mkdir -p /work && ln -sfn "$PWD" /work/main
MDH_BIN=$B/bin bash scripts/device_run.sh soak --seconds ${SOAK_SECONDS:-390} --shards 8 --gpu-jobs 15 --cpu-jobs 0 \
  --out "${OUT:-/tmp/session12}/soak15.tar.gz" 2>&1 | tail -15
