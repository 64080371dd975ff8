#!/usr/bin/env bash
# Session 29, call 1 (issue 13 item 1 and Jacobi 3D's 1-minute goal): do the GPU defaults gain from storing their
# results in vectors (STORE_WIDTH) and from unrolled private steps (UNROLL_STEPS), and which work-item shape suits
# Jacobi 3D 512^3? Timed with `mdh run` (median of 50 device times after 3 warm-ups; one process per configuration),
# two rounds.
#  A. Each case below: its default on this device (`mdh tune --evals 1`), and the default with STORE_WIDTH at the
#     widest of 4 and 2 that the kernel accepts (sw), UNROLL_STEPS on (u), both (swu).
#  B. Jacobi 3D 512^3: work-item shapes along j and k with STORE_WIDTH and UNROLL_STEPS (made from the default by
#     shapes.py), beside session 27's and 28's 5-minute bests.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
here=results/nvidia-h200/session29
work=/tmp/s29; mkdir -p "$work"
nvidia-smi -L >"$OUT/gpu.txt"
time_config() {  # SPEC SIZE CONFIG -> median ms, or the first error line
  local out
  out=$(timeout 120 mdh run "$1" --size "$2" --config "$3" --device gpu --repeat 50 --warmup 3 2>&1)
  local t
  t=$(sed -n 's/^kernel time: median \([0-9.]*\) ms.*/\1/p' <<<"$out")
  [[ -n $t ]] && echo "$t" || echo "error($(grep -m1 -i error <<<"$out" | cut -c1-80 | tr ' ' _))"
}
cases="jacobi3d:PC jacobi3d:RW gaussian:RW gaussian:PC gemm:PC gemm:RW gemm:PC-4096 mcc:RW gemv:PC dot:RW prl:RW
tc-abcdef-gdab-efgc:RW tc-abcdef-geab-dfgc:RW"
python3 - $cases >"$work/cases.txt" <<'PY'
import json, sys
want = set(sys.argv[1:])
for r in json.load(open('experiments.gpu.json'))['routines']:
    for s in r['sizes']:
        if r['name'] + ':' + s['label'] in want:
            print(r['name'], r['spec'], s['label'], s['size'])
PY
while read -r name spec label size; do
  d=$work/$name-$label
  mdh tune "$spec" --size "$size" --device gpu --evals 1 --no-transfer --finalists 0 --out "$d.default.json" \
    --journal "$d.journal" >/dev/null 2>&1 || { echo "$name $label: no default" >>"$OUT/variants.txt"; continue; }
  cp "$d.default.json" "$OUT/$name-$label.default.json"
  python3 "$here/variants.py" "$d"
done <"$work/cases.txt"
python3 "$here/shapes.py" "$work/jacobi3d-PC" "$work/shapes"
cp results/nvidia-h200/session28/jacobi-shapes/best_h100.json results/nvidia-h200/session28/jacobi-shapes/best_h200.json "$work/shapes/"
for round in 1 2; do
  while read -r name spec label size; do
    d=$work/$name-$label
    [[ -f $d.default.json ]] || continue
    line="round $round $name $label"
    for v in default sw u swu; do
      [[ -f $d.$v.json ]] && line="$line $v=$(time_config "$spec" "$size" "$d.$v.json")"
    done
    echo "$line" >>"$OUT/variants.txt"
  done <"$work/cases.txt"
  for f in "$work"/shapes/*.json; do
    echo "round $round $(basename "$f" .json) $(time_config apps/jacobi3d.mdh I=512,J=512,K=512 "$f")" >>"$OUT/jacobi.txt"
  done
done
cp -r "$work/shapes" "$OUT/"
