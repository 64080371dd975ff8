#!/usr/bin/env bash
# Issue 16, third call: GEMM 1024^3's phases A (GPU 0 alone, cores 0-15) and C (`mpirun -np 2`, both GPUs, all
# cores) interleaved, A C A C, S s each, one candidate stream (`random`, seed 1), so that a drift of the host's compile
# speed between phases (calls 1 and 2: c/a 2.07x and 1.64x) weighs on both. Carry and start as gpu1.sh says.
set -u
out=${OUT:-/tmp/x2}
work=/tmp/x2work
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rm -rf "$work"; mkdir -p "$out" "$work"
S=${S:-60} DEVICE=${DEVICE:-gpu}
export NVIDIA_TF32_OVERRIDE=0
args=(apps/gemm.mdh --size I=1024,J=1024,K=1024 --device "$DEVICE" --no-transfer --no-default-start --technique random
  --seed 1 --finalists 0 --budget "${S}s")
for round in 1 2; do
  mkdir -p "$work/$round"
  CUDA_VISIBLE_DEVICES=0 taskset -c 0-15 mdh tune "${args[@]}" \
    --journal "$work/$round/a.journal" --out "$work/$round/a.json" > "$work/$round/a.log" 2>&1
  CUDA_CACHE_PATH=$work/$round/nv-c mpirun -np 2 --bind-to none -x CUDA_CACHE_PATH "$(command -v mdh)" tune \
    "${args[@]}" --journal "$work/$round/c.journal" --out "$work/$round/c.json" > "$work/$round/c.log" 2>&1
  { echo "=== round $round"; python3 "$here/analyse.py" "$work/$round" | grep -v "^d: missing"; } | tee -a "$out/analysis.txt"
  for f in a c; do echo "== round $round $f.log"; grep -E "keeps to cores|note: MPI|stopped|time:|compiles of|best:" "$work/$round/$f.log"; done \
    >> "$out/logs.txt"
  for f in a c; do [[ -f $work/$round/$f.journal ]] && gzip -9 -c "$work/$round/$f.journal" > "$out/r$round-$f.journal.gz"; done
done
exit 0
