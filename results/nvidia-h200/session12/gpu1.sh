#!/usr/bin/env bash
# Session 12, H200 call 1: the hand-made configurations of make_configs.py (median of 30 runs, verified), the
# cuBLAS peers of the same cases, and per GEMM configuration the PTX the NVIDIA driver produced (from a binary
# cache) put through ptxas -v (registers, spills) and cuobjdump -sass (which local loads it issues).
set -u
B=$PWD/.device-bundle
out=${OUT:-/tmp/session12}
mkdir -p "$out/ptx"
export NVIDIA_TF32_OVERRIDE=0
s=results/nvidia-h200/session12/configs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/bench.txt"
for f in $s/*.json; do
  read -r spec sizes < <(python3 -c "import json;d=json.load(open('$f'));print(d['spec'], ','.join(f'{k}={v}' for k,v in d['sizes'].items()))")
  o=$(timeout 60 "$B/bin/mdh" run "$spec" --size "$sizes" --device gpu --config "$f" --repeat 30 --warmup 3 --verify 2>&1)
  echo "== $f" >> "$out/runs.log"; echo "$o" >> "$out/runs.log"
  med=$(echo "$o" | sed -n 's/^kernel time: median \([0-9.e+-]*\) ms.*/\1/p')
  ver=$(echo "$o" | sed -n 's/^verify[^:]*: \([A-Z]*\).*/\1/p')
  printf '%-40s %s %s\n' "$(basename "$f" .json)" "${med:-error}" "${ver:--}" | tee -a "$out/bench.txt"
done
for c in "gemm|apps/gemm.mdh|I=1024,J=1024,K=1024" \
         "tc-abcdef-geab-dfgc|apps/tc/abcdef-geab-dfgc.mdh|A=24,B=16,C=16,D=24,E=16,F=16,G=24" \
         "tc-abcdef-gdab-efgc|apps/tc/abcdef-gdab-efgc.mdh|A=24,B=16,C=16,D=16,E=24,F=16,G=24"; do
  IFS='|' read -r routine spec sizes <<< "$c"
  timeout 90 "$B/bin/peer_cuda" --routine "$routine" --spec "$spec" --size "$sizes" --device gpu \
    --json "$out/peer-$routine.json" --label s12 --warmups 2 --min-runs 5 --max-runs 100 > "$out/peer-$routine.log" 2>&1
  python3 -c "
import json
r=json.load(open('$out/peer-$routine.json')); print('peer %-32s %-12s %.4f' % ('$routine', r.get('peer','?'), r['device_time_ns']['median']/1e6))" | tee -a "$out/bench.txt"
done
# PTX, registers, spills and the local loads of every GEMM configuration.
for f in $s/gemm-*.json; do
  n=$(basename "$f" .json)
  timeout 60 "$B/bin/mdh" tune apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --start "$f" --evals 1 \
    --no-default-start --binary-cache "$out/bc-$n" --out "$out/tune-$n.json" --compile-threads 1 > "$out/tune-$n.log" 2>&1
  for bin in "$out/bc-$n"/*.bin; do
    python3 - "$bin" "$out/ptx/$n.ptx" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
(n,) = struct.unpack('<Q', data[:8])
open(sys.argv[2], 'wb').write(data[8 + n:].rstrip(b'\0'))
PY
  done
  ptxas -arch=sm_90 -v "$out/ptx/$n.ptx" -o "$out/ptx/$n.cubin" > "$out/ptx/$n.ptxas.txt" 2>&1
  cuobjdump -sass "$out/ptx/$n.cubin" > "$out/ptx/$n.sass" 2>&1
  printf '%-32s %s | LDS %s LDS.64 %s LDS.128 %s FFMA %s LDG %s STG %s\n' "$n" \
    "$(grep -o 'Used [0-9]* registers' "$out/ptx/$n.ptxas.txt" | head -1) $(grep -o '[0-9]* bytes spill stores' "$out/ptx/$n.ptxas.txt" | head -1)" \
    "$(grep -c 'LDS ' "$out/ptx/$n.sass")" "$(grep -c 'LDS.64' "$out/ptx/$n.sass")" "$(grep -c 'LDS.128' "$out/ptx/$n.sass")" \
    "$(grep -c 'FFMA' "$out/ptx/$n.sass")" "$(grep -c 'LDG' "$out/ptx/$n.sass")" "$(grep -c 'STG' "$out/ptx/$n.sass")" | tee -a "$out/bench.txt"
  rm -rf "$out/bc-$n"
done
