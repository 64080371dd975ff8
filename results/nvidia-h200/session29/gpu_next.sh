#!/usr/bin/env bash
# Written in session 29 for the next session's first call (run in session 30, call 1: ../session30/README.md): steps 1 and 3 of session 29's closing note.
#  1. read_ceiling (build it first: nvcc -O3 -arch=sm_90 -o .device-bundle/bin/read_ceiling read_ceiling.cu), now
#     also with an output reset before each launch, as the benchmark times.
#  2. For every case of experiments.gpu.json: its default on this device, and the default with at most 2 and 4
#     work-groups per compute unit (wg_cap.py), timed with `mdh run` (median of 50 after 3 warm-ups), two rounds.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
here=results/nvidia-h200/session29
work=/tmp/next; mkdir -p "$work"
nvidia-smi -L >"$OUT/gpu.txt"
read_ceiling >"$OUT/read_ceiling.txt" 2>&1
time_config() {  # SPEC SIZE CONFIG -> median ms, or the first error line
  local out t
  out=$(timeout 120 mdh run "$1" --size "$2" --config "$3" --device gpu --repeat 50 --warmup 3 2>&1)
  t=$(sed -n 's/^kernel time: median \([0-9.]*\) ms.*/\1/p' <<<"$out")
  [[ -n $t ]] && echo "$t" || echo "error($(grep -m1 -i error <<<"$out" | cut -c1-80 | tr ' ' _))"
}
python3 - >"$work/cases.txt" <<'PY'
import json
for r in json.load(open('experiments.gpu.json'))['routines']:
    for s in r['sizes']:
        print(r['name'], r['spec'], s['label'], s['size'])
PY
while read -r name spec label size; do
  d=$work/$name-$label
  mdh tune "$spec" --size "$size" --device gpu --evals 1 --no-transfer --finalists 0 --out "$d.default.json" \
    --journal "$d.journal" >/dev/null 2>&1 || { echo "$name $label: no default" >>"$OUT/wg_cap.txt"; continue; }
  python3 "$here/wg_cap.py" "$spec" "$d" >/dev/null
done <"$work/cases.txt"
for round in 1 2; do
  while read -r name spec label size; do
    d=$work/$name-$label
    [[ -f $d.default.json ]] || continue
    line="round $round $name $label"
    for v in default cap2 cap4; do
      [[ -f $d.$v.json ]] && line="$line $v=$(time_config "$spec" "$size" "$d.$v.json")"
    done
    echo "$line" >>"$OUT/wg_cap.txt"
  done <"$work/cases.txt"
done
cat "$OUT/read_ceiling.txt" "$OUT/wg_cap.txt"
