#!/usr/bin/env bash
# Session 16, call 4 on nvidia-h200: are the private-step loops (PRIVATE_STEPS, not unrolled today) what holds GEMM
# back? The same configurations generated as today and with `#pragma unroll` on every private-step loop (the
# experiment switch MDH_EXPERIMENT_UNROLL_STEPS of this build, not committed), 30 runs after 3 warm-ups, verified,
# two rounds; SASS instruction mix of GEMM 1024^3's g1024-c both ways (ptxas + cuobjdump of `mdh inspect`'s PTX).
# Bundle: build/bin/mdh build-cuda/bin/peer_cuda -- apps experiments.json experiments.gpu.json
set -u
out=${OUT:-/tmp/gpu4}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
t() {  # CONFIG
  local spec size
  spec=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['spec'])" "$1")
  size=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['sizes']; print(','.join('%s=%s' % kv for kv in d.items()))" "$1")
  mdh run "$spec" --size "$size" --device gpu --config "$1" --repeat 30 --warmup 3 --verify 2>&1 |
    grep -E 'kernel time|PASS|FAIL|error' | sed -E 's/ over 30 runs.*//; s/kernel time: //; s/verify.*(PASS|FAIL).*/\1/' | cut -c1-100 | tr '\n' ' '
}
s15=results/nvidia-h200/session15/configs
s16=results/nvidia-h200/session16/configs
cases="$s15/g1024-c.json $s15/g1024-a.json $s16/g1024-c-local-pk1.json $s15/g1024-e.json $s15/g4096-d.json $s15/g4096-a.json
  results/nvidia-h200/gemm-RW.json results/nvidia-h200/mcc-RW.json results/nvidia-h200/tc-abcdef-geab-dfgc-RW.json
  results/nvidia-h200/tc-abcdef-gdab-efgc-RW.json"
for round in 1 2; do
  echo "== round $round"
  for c in $cases; do
    echo "$(basename $c): today $(t $c) | unrolled $(MDH_EXPERIMENT_UNROLL_STEPS=1 t $c)"
  done
done
for mode in today unrolled; do
  if [[ $mode == unrolled ]]; then export MDH_EXPERIMENT_UNROLL_STEPS=1; fi
  mdh inspect apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --config $s15/g1024-c.json -o "$out/i-$mode" >/dev/null 2>&1
  ptx=$(ls "$out/i-$mode"/*.ptx 2>/dev/null | head -1)
  ptxas -arch=sm_90 -O3 "$ptx" -o "$out/$mode.cubin" 2>&1 | tail -2
  cuobjdump -sass "$out/$mode.cubin" > "$out/sass-$mode.txt" 2>&1
  echo "$mode: $(grep -cE '^\s+/\*[0-9a-f]+\*/' "$out/sass-$mode.txt") instructions;" \
    "$(grep -oE '(FFMA|LDS|LDG|STS|BAR|IMAD|IADD3|LEA|ISETP|BRA|MOV|SHF|LOP3)[.A-Z0-9]*' "$out/sass-$mode.txt" | sort | uniq -c | sort -rn | head -14 | tr '\n' ' ')"
  grep -h -iE "registers|spill" "$out/i-$mode"/* 2>/dev/null | head -3
  unset MDH_EXPERIMENT_UNROLL_STEPS
done
tar czf "$out/sass.tar.gz" -C "$out" sass-today.txt sass-unrolled.txt && rm -rf "$out"/i-* "$out"/*.cubin "$out"/sass-*.txt
