#!/usr/bin/env bash
# Session 28, call 2: two questions about default configurations (issue 13 item 1 and its 1-minute goal), timed
# with `mdh run` (median of 50 device times after 3 warm-ups; one process per configuration).
#  A. Cached copies in vectors: every case of experiments.gpu.json whose default caches an input in local memory,
#     with VECTOR_WIDTH of those inputs at 1 (today's default), 4, 8 and 16, beside the committed tuned configuration.
#  B. Jacobi 3D 512^3: the default's work-item shape against wider rows along the unit-stride dimension
#     (jacobi-shapes/, derived from the default by make in session 28's README).
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
here=results/nvidia-h200/session28
work=/tmp/s28; mkdir -p "$work"
time_config() {  # SPEC SIZE CONFIG -> median ms
  mdh run "$1" --size "$2" --config "$3" --device gpu --repeat 50 --warmup 3 2>&1 |
    sed -n 's/^kernel time: median \([0-9.]*\) ms.*/\1/p'
}
python3 - >"$work/cases.txt" <<'PY'
import json
for r in json.load(open('experiments.gpu.json'))['routines']:
    for s in r['sizes']:
        print(r['name'], r['spec'], s['label'], s['size'])
PY
out=$OUT/vectors.txt
while read -r name spec label size; do
  [[ $name == prl || $name == dot || $name == gemv ]] && continue
  d=$work/$name-$label
  mdh tune "$spec" --size "$size" --device gpu --evals 1 --no-transfer --finalists 0 --out "$d.default.json" \
    --journal "$d.journal" >/dev/null 2>&1 || { echo "$name $label: no default" >>"$out"; continue; }
  variants=$(python3 - "$d" <<'PY'
import json, sys
d = sys.argv[1]
c = json.load(open(d + '.default.json'))['config']
cached = [k[len('MEM_INP_L_'):] for k, v in c.items() if k.startswith('MEM_INP_L_') and v != 'none']
widths = [b for b in cached if 'VECTOR_WIDTH_' + b in c]
if widths:
    for w in (1, 4, 8, 16):
        v = dict(c)
        for b in widths: v['VECTOR_WIDTH_' + b] = w
        json.dump({'config': v}, open(f'{d}.w{w}.json', 'w'))
        print(f'w{w}')
print('cached=' + ','.join(cached), file=sys.stderr)
PY
)
  [[ -z $variants ]] && { echo "$name $label: no local cache" >>"$out"; continue; }
  line="$name $label"
  for v in $variants; do line="$line $v=$(time_config "$spec" "$size" "$d.$v.json")"; done
  best=results/nvidia-h200/$name-$label.json
  [[ -f $best ]] && line="$line tuned=$(time_config "$spec" "$size" "$best")"
  echo "$line" >>"$out"
  cp "$d.default.json" "$OUT/$name-$label.default.json"
done <"$work/cases.txt"
for round in 1 2; do
  for f in "$here"/jacobi-shapes/*.json; do
    echo "round $round $(basename "$f" .json) $(time_config apps/jacobi3d.mdh I=512,J=512,K=512 "$f")" >>"$OUT/jacobi.txt"
  done
done
nvidia-smi -L >"$OUT/gpu.txt"
