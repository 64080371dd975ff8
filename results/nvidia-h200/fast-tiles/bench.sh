#!/usr/bin/env bash
# Issue 12 items 1-2 (branch kernel-fast-tiles) on the H200, one device call: the tunable kernel before the change
# (main at b0d8ffb, bundled as mdh_base) and after it (mdh), on the committed H200 configurations, the hand-made
# GEMM configurations of results/configs/ and fast-tiles/configs/, and each case's default configuration, with the
# cuBLAS/cuDNN peer in the same run. Two rounds: round 1 verifies every run against the double-precision reference
# (max errors kept: FMA changes rounding), round 2 times again in the opposite order (the spread is the noise).
# Then the PTX and SASS of two GEMM kernels before and after (FMA count, registers, spills).
# Run from the repository root on the GPU machine with the bundle in .device-bundle (fast-tiles/ copied into it).
set -u
B=$PWD/.device-bundle
F=$B/fast-tiles/configs
out=${OUT:-/tmp/fast-tiles-out}
mkdir -p "$out/ptx"
deadline=$(( $(date +%s) + ${BENCH_SECONDS:-430} ))
export NVIDIA_TF32_OVERRIDE=0
res=results/nvidia-h200
# name | spec | sizes | peer routine (peer_cuda) | configurations ("default": none given)
cases=(
  "gemm-PC|apps/gemm.mdh|I=1024,J=1024,K=1024|gemm|$res/gemm-PC.json results/configs/gemm1024-local-tiles.json results/configs/gemm1024-register-blocked.json results/configs/gemm1024-simple.json $F/gemm1024-lt64-pt4x4x4.json $F/gemm1024-lt64-pt4x4x4-pc.json $F/gemm1024-lt64-pt4x4x1-pc.json $F/gemm1024-lt128x64-pt8x4x4-pc.json $F/gemm1024-lt128x64-pt8x4x1-pc.json $F/gemm1024-lt128-pt8x8x4-pc.json default"
  "gemm-1000|apps/gemm.mdh|I=1000,J=1000,K=1000|gemm|$F/gemm1000-lt64-pt4x4x4.json $F/gemm1000-lt128x64-pt8x4x4-pc.json default"
  "gemm-4096|apps/gemm.mdh|I=4096,J=4096,K=4096|gemm|$F/gemm4096-lt64-pt4x4x4.json $F/gemm4096-lt128x64-pt8x4x4-pc.json $F/gemm4096-lt128-pt8x8x4-pc.json default"
  "gemm-RW|apps/gemm.mdh|I=10,J=500,K=64|gemm|$res/gemm-RW.json default"
  "gemv-PC|apps/gemv.mdh|I=4096,K=4096|gemv|$res/gemv-PC.json default"
  "dot-RW|apps/dot.mdh|K=16777216|dot|$res/dot-RW.json default"
  "gaussian-PC|apps/gaussian.mdh|I=4096,J=4096|gaussian|$res/gaussian-PC.json default"
  "jacobi3d-PC|apps/jacobi3d.mdh|I=512,J=512,K=512|jacobi3d|$res/jacobi3d-PC.json default"
  "mcc-RW|apps/mcc.mdh|N=1,P=7,Q=7,K=512,C=512,R=3,S=3|mcc|$res/mcc-RW.json default"
  "tc-abcdef-gdab-efgc-RW|apps/tc/abcdef-gdab-efgc.mdh|A=24,B=16,C=16,D=16,E=24,F=16,G=24|tc-abcdef-gdab-efgc|$res/tc-abcdef-gdab-efgc-RW.json default"
)

# One mdh run: prints "median_ms verify max_abs max_rel" (verify: PASS, FAIL or -).
mdh_once() {  # BINARY SPEC SIZES CONFIG VERIFY
  local args=(run "$2" --size "$3" --device gpu --repeat 50 --warmup 3) o
  [[ $4 == default ]] || args+=(--config "$4")
  [[ $5 == 1 ]] && args+=(--verify)
  o=$(timeout 90 "$1" "${args[@]}" 2>&1)
  echo "$o" >> "$out/mdh-runs.log"
  local med ver
  med=$(echo "$o" | sed -n 's/^kernel time: median \([0-9.e+-]*\) ms.*/\1/p')
  ver=$(echo "$o" | sed -n 's/^verify[^:]*: \([A-Z]*\): max abs error \([^,]*\), max rel error \([^;]*\);.*/\1 \2 \3/p')
  echo "${med:-error} ${ver:-- - -}"
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
printf '%-5s %-24s %-38s %-8s %-10s %s\n' round case config binary median_ms "verify max_abs max_rel" | tee "$out/bench.txt"
for round in 1 2; do
  for c in "${cases[@]}"; do
    IFS='|' read -r name spec sizes routine configs <<< "$c"
    for cfg in $configs; do
      if (( $(date +%s) > deadline )); then echo "deadline: round $round stopped at $name" | tee -a "$out/bench.txt"; break 3; fi
      order="mdh_base mdh"; [[ $round == 2 ]] && order="mdh mdh_base"
      for bin in $order; do
        printf '%-5s %-24s %-38s %-8s %s\n' "$round" "$name" "$(basename "$cfg" .json)" "$bin" \
          "$(mdh_once "$B/bin/$bin" "$spec" "$sizes" "$cfg" $((round == 1)))" | tee -a "$out/bench.txt"
      done
    done
    if [[ $round == 1 ]]; then  # the peer, once, between the rounds' mdh runs of its case
      rec="$out/peer-$name.json"
      timeout 120 "$B/bin/peer_cuda" --routine "$routine" --spec "$spec" --size "$sizes" --device gpu --json "$rec" \
        --label "$name" --warmups 2 --min-runs 5 --max-runs 100 > "$rec.log" 2>&1
      python3 - "$rec" "$name" <<'PY' | tee -a "$out/bench.txt"
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    print("peer  %-24s %-38s %-8s %.4f" % (sys.argv[2], r.get("peer", "?") + " " + r.get("notes", {}).get("algorithm", ""),
          "peer", r["device_time_ns"]["median"] / 1e6))
except Exception as e:
    print("peer  %-24s failed: %s" % (sys.argv[2], e))
PY
    fi
  done
done

# PTX and SASS of GEMM kernels, before and after: FMA instructions, registers, spills (ptxas at the level the driver
# uses for them: -cl-nv-opt-level=1 for private caches filled from local caches, else the default 3).
for k in "I=1024,J=1024,K=1024|$F/gemm1024-lt64-pt4x4x4-pc.json" "I=1024,J=1024,K=1024|$res/gemm-PC.json" \
         "I=10,J=500,K=64|default"; do
  sizes=${k%%|*} cfg=${k#*|}
  for bin in mdh_base mdh; do
    tag=$(basename "$cfg" .json)-${sizes//[=,]/}-$bin; d=/tmp/ptx-$tag; rm -rf "$d"
    config=(--config "$cfg"); [[ $cfg == default ]] && config=()
    "$B/bin/$bin" export apps/gemm.mdh --size "$sizes" "${config[@]}" --device gpu -o "$d" > /dev/null 2>&1
    "$B/bin/compare_builds" "$d/gemm.launch.json" --device gpu --binaries "$d" "::$d/gemm.cl" > "$d/compare.txt" 2>&1
    cp "$d/gemm.cl" "$out/ptx/$tag.cl" 2>/dev/null; cp "$d/run1.bin" "$out/ptx/$tag.ptx" 2>/dev/null
    level=3; grep -q nv-opt-level=1 "$d/gemm.launch.json" && level=1
    ptxas -arch=sm_90 -O$level -v "$d/run1.bin" -o "$d/k.cubin" > "$d/ptxas.txt" 2>&1
    cuobjdump -sass "$d/k.cubin" > "$d/k.sass" 2>/dev/null
    echo "$tag (ptxas -O$level): PTX fma.rn.f32 $(grep -c 'fma.rn.f32' "$d/run1.bin"), mul.rn.f32 $(grep -c 'mul.rn.f32' "$d/run1.bin"), add.rn.f32 $(grep -c 'add.rn.f32' "$d/run1.bin"), mul.f32 $(grep -c 'mul.f32' "$d/run1.bin"), add.f32 $(grep -c 'add.f32' "$d/run1.bin"); SASS FFMA $(grep -c 'FFMA' "$d/k.sass"), FMUL $(grep -c 'FMUL' "$d/k.sass"), FADD $(grep -c 'FADD' "$d/k.sass"), LDS $(grep -c 'LDS' "$d/k.sass"), LDL $(grep -c 'LDL' "$d/k.sass"), instructions $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' "$d/k.sass"); $(grep -E 'registers|spill' "$d/ptxas.txt" | tr -s ' ' | tr '\n' ' ')" | tee -a "$out/bench.txt"
    cp "$d/k.sass" "$out/ptx/$tag.sass" 2>/dev/null
  done
done
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
tar czf "$out/fast-tiles-ptx.tar.gz" -C "$out" ptx && rm -rf "$out/ptx"
mkdir -p "$out/peers" && mv "$out"/peer-* "$out/peers/" && tar czf "$out/fast-tiles-peers.tar.gz" -C "$out" peers && rm -rf "$out/peers"
gzip -f "$out/mdh-runs.log"
