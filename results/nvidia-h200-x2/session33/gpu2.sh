#!/usr/bin/env bash
# Issue 16, second call: gpu1.sh's phases A (GPU 0 alone, cores 0-15) and C (`mpirun -np 2`, both GPUs, all cores)
# again, for GEMM 1024^3 and for the contraction abcdef-geab-dfgc, S s each, one candidate stream per case (`random`,
# seed 1). Carry and start as gpu1.sh says.
set -u
out=${OUT:-/tmp/x2}
work=/tmp/x2work
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rm -rf "$work"; mkdir -p "$out" "$work"
S=${S:-75} DEVICE=${DEVICE:-gpu}
export NVIDIA_TF32_OVERRIDE=0
common=(--device "$DEVICE" --no-transfer --no-default-start --technique random --seed 1 --finalists 0
  --budget "${S}s")
for case in gemm tc; do
  if [[ $case == gemm ]]; then args=(apps/gemm.mdh --size I=1024,J=1024,K=1024)
  else args=(apps/tc/abcdef-geab-dfgc.mdh --size A=24,B=16,C=16,D=24,E=16,F=16,G=24); fi
  mkdir -p "$work/$case"
  CUDA_VISIBLE_DEVICES=0 taskset -c 0-15 mdh tune "${args[@]}" "${common[@]}" \
    --journal "$work/$case/a.journal" --out "$work/$case/a.json" > "$work/$case/a.log" 2>&1
  CUDA_CACHE_PATH=$work/$case/nv-c mpirun -np 2 --bind-to none -x CUDA_CACHE_PATH "$(command -v mdh)" tune \
    "${args[@]}" "${common[@]}" --journal "$work/$case/c.journal" --out "$work/$case/c.json" > "$work/$case/c.log" 2>&1
  { echo "=== $case"; python3 "$here/analyse.py" "$work/$case"; } | tee -a "$out/analysis.txt"
  for f in a c; do echo "== $case $f.log"; grep -E "keeps to cores|note: MPI|stopped|time:|compiles of|best:" "$work/$case/$f.log"; done \
    >> "$out/logs.txt"
  for f in a c; do [[ -f $work/$case/$f.journal ]] && gzip -9 -c "$work/$case/$f.journal" > "$out/$case-$f.journal.gz"; done
done
exit 0
