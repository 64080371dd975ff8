#!/usr/bin/env bash
# Session 31, call 1 (nvidia-h200): UNROLL_TILES (`#pragma unroll` on the innermost reduction tile loop). For GEMM
# 1024^3, MCC, the 9 contractions and GEMM 4096^3: the GPU default (unroll-tiles/NAME-default.json, codegen's
# default_config with the H200's limits) and the same with UNROLL_TILES on (NAME-ut.json), each timed alone (mdh run),
# two rounds; then session 30's gdab variants va and vb with it off and on. Registers and PTX load counts of the gdab
# ones (mdh inspect). Ends by SECONDS_LEFT so the soak gets the rest of the call.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
nvidia-smi -L >"$OUT/gpu.txt"
h=results/nvidia-h200/session31/unroll-tiles start=$(date +%s) budget=${1:-170}
t() { mdh run $1 --size $2 --config $3 --device gpu --repeat 50 --warmup 3 2>&1 |
  sed -n 's/^kernel time: median \([0-9.]*\) ms.*/\1/p;s/^\(.*error.*\)$/ERR:\1/p' | head -1 | cut -c1-80; }
s=apps/tc/abcdef-gdab-efgc.mdh z=A=24,B=16,C=16,D=16,E=24,F=16,G=24
for v in default ut; do f=$h/tc-abcdef-gdab-efgc-$v.json
  mdh inspect $s --size $z --config $f --device gpu -o "$OUT/i-$v" 2>&1 | tail -1 | sed "s/^/$v /"
  echo "$v shared loads: $(grep -c 'ld.shared' "$OUT/i-$v/"*.ptx), global loads: $(grep -c 'ld.global' "$OUT/i-$v/"*.ptx)"
done | tee "$OUT/inspect.txt"
for round in 1 2; do
  while read -r n spec size; do
    (( $(date +%s) - start > budget )) && break 2
    echo "round $round $n default=$(t $spec $size $h/$n-default.json) ut=$(t $spec $size $h/$n-ut.json)" |
      tee -a "$OUT/unroll-tiles.txt"
  done <$h/cases.txt
  for v in va vb; do
    echo "round $round gdab-$v off=$(t $s $z $h/gdab-$v.json) ut=$(t $s $z $h/gdab-$v-ut.json)" | tee -a "$OUT/unroll-tiles.txt"
  done
done
tar czf "$OUT/inspect.tar.gz" -C "$OUT" i-default i-ut 2>/dev/null && rm -rf "$OUT"/i-default "$OUT"/i-ut
