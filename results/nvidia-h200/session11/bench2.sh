#!/usr/bin/env bash
# Session 11 on the H200, second device call (after the default fix and the unrolled cache copies): the default configuration before (main at fa1e2a7, bundled as mdh_base)
# and after this session (mdh: CMB_WI tree and the parallel second kernel in the shared-reduction default of
# GEMV/DOT, strided ownership in the default of the other md_homs), hand-made GEMM configurations with strided
# ownership (configs/, from make_configs.py), and the cuBLAS/cuDNN peer of each case in the same run. Round 1
# verifies every run against the double-precision reference; round 2 times again in the opposite order.
set -u
B=$PWD/.device-bundle
out=${OUT:-/tmp/session11-run2}
mkdir -p "$out"
deadline=$(( $(date +%s) + ${BENCH_SECONDS:-420} ))
export NVIDIA_TF32_OVERRIDE=0
s=results/nvidia-h200/session11/configs
cases=(
  "gemv-PC|apps/gemv.mdh|I=4096,K=4096|gemv|default"
  "gemv-RW|apps/gemv.mdh|I=1000,K=2048|gemv|default"
  "dot-RW|apps/dot.mdh|K=16777216|dot|default"
  "gemm-PC|apps/gemm.mdh|I=1024,J=1024,K=1024|gemm|default $s/gemm1024-lt64-pt4x4x4.json $s/gemm1024-lt64-pt4x4x4-strided.json $s/gemm1024-lt64-lk32-pt4x4x4-strided.json $s/gemm1024-lt128x64-pt8x4x4-strided.json"
  "gemm-4096|apps/gemm.mdh|I=4096,J=4096,K=4096|gemm|$s/gemm4096-lt128-pt8x8x4-strided.json $s/gemm4096-lt128-lk32-pt8x8x4-strided.json"
  "gemm-RW|apps/gemm.mdh|I=10,J=500,K=64|gemm|default"
  "gaussian-PC|apps/gaussian.mdh|I=4096,J=4096|gaussian|default"
  "jacobi3d-PC|apps/jacobi3d.mdh|I=512,J=512,K=512|jacobi3d|default"
  "mcc-RW|apps/mcc.mdh|N=1,P=7,Q=7,K=512,C=512,R=3,S=3|mcc|default"
  "tc-gdab|apps/tc/abcdef-gdab-efgc.mdh|A=24,B=16,C=16,D=16,E=24,F=16,G=24|tc-abcdef-gdab-efgc|default"
)
mdh_once() {  # BINARY SPEC SIZES CONFIG VERIFY
  local args=(run "$2" --size "$3" --device gpu --repeat 50 --warmup 3) o med ver
  [[ $4 == default ]] || args+=(--config "$4")
  [[ $5 == 1 ]] && args+=(--verify)
  o=$(timeout 60 "$1" "${args[@]}" 2>&1)
  echo "== $1 ${args[*]}" >> "$out/mdh-runs.log"
  echo "$o" >> "$out/mdh-runs.log"
  med=$(echo "$o" | sed -n 's/^kernel time: median \([0-9.e+-]*\) ms.*/\1/p')
  ver=$(echo "$o" | sed -n 's/^verify[^:]*: \([A-Z]*\): max abs error \([^,]*\), max rel error \([^;]*\);.*/\1 \2 \3/p')
  echo "${med:-error} ${ver:-- - -}"
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/bench.txt"
for round in 1 2; do
  for c in "${cases[@]}"; do
    IFS='|' read -r name spec sizes routine configs <<< "$c"
    for cfg in $configs; do
      if (( $(date +%s) > deadline )); then echo "deadline: round $round stopped at $name" | tee -a "$out/bench.txt"; break 3; fi
      order="mdh_base mdh"; [[ $round == 2 ]] && order="mdh mdh_base"
      # Configurations that name this session's families exist for the new binary only.
      [[ $cfg == *strided* ]] && order=mdh
      for bin in $order; do
        printf '%-5s %-12s %-40s %-8s %s\n' "$round" "$name" "$(basename "$cfg" .json)" "$bin" \
          "$(mdh_once "$B/bin/$bin" "$spec" "$sizes" "$cfg" $((round == 1)))" | tee -a "$out/bench.txt"
      done
    done
    if [[ $round == 1 ]]; then
      rec="$out/peer-$name.json"
      timeout 60 "$B/bin/peer_cuda" --routine "$routine" --spec "$spec" --size "$sizes" --device gpu --json "$rec" \
        --label "$name" --warmups 2 --min-runs 5 --max-runs 100 > "$rec.log" 2>&1
      python3 -c "
import json,sys
try:
  r=json.load(open('$rec')); print('peer  %-12s %-40s %-8s %.4f' % ('$name', r.get('peer','?'), 'peer', r['device_time_ns']['median']/1e6))
except Exception as e: print('peer  $name failed:', e)" | tee -a "$out/bench.txt"
    fi
  done
done
gzip -f "$out/mdh-runs.log"
