#!/usr/bin/env bash
# Session 16, call 10 on nvidia-h200: `mdh inspect` after the PTX fix (trailing NUL bytes dropped): ptxas assembles
# the written PTX, and cuobjdump gives the SASS instruction mix of GEMM 1024^3's best configuration (g1024-c of
# session 15) and of a configuration with 8x8 register tiles (g1024-a).
# Bundle: build/bin/mdh -- apps experiments.json experiments.gpu.json
set -u
out=${OUT:-/tmp/gpu10}
mkdir -p "$out"
for k in g1024-c g1024-a; do
  mdh inspect apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --config results/nvidia-h200/session15/configs/$k.json \
    -o "$out/i-$k" >/dev/null 2>&1
  ptxas -arch=sm_90 -O3 -v "$out/i-$k/gemm.ptx" -o "$out/$k.cubin" 2>&1 | grep -E 'fatal|registers' | head -2
  cuobjdump -sass "$out/$k.cubin" > "$out/sass-$k.txt" 2>&1
  echo "$k: $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' "$out/sass-$k.txt") instructions;" \
    "$(grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P[0-9T] )?[A-Z0-9]+' "$out/sass-$k.txt" | awk '{print $NF}' | sort | uniq -c | sort -rn | head -14 | tr '\n' ' ')"
done
tar czf "$out/sass.tar.gz" -C "$out" sass-g1024-c.txt sass-g1024-a.txt && rm -rf "$out"/i-* "$out"/*.cubin "$out"/sass-*.txt
