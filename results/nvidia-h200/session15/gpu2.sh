#!/usr/bin/env bash
# Session 15, call 2 on nvidia-h200: the GPU default with register tiles fed by vectors (tile_for_reuse:
# STRIDED_RUN, private caches from the local caches, VECTOR_WIDTH) against the default before it (mdh_old, built
# from dc7d270), on every case of experiments.gpu.json (cases.txt): 30 runs after 3 warm-ups, verified, in turn.
# Then 60 s of `mdh tune` for GEMM 1024^3 and 4096^3 from the new default: does the search improve on it?
# Bundle: build/bin/mdh /tmp/mdh_old/mdh_old build-cuda/bin/peer_cuda build/bin/mdh_codegen_soak_tests -- apps ...
set -u
out=${OUT:-/tmp/gpu2}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
t() {  # BINARY SPEC SIZE
  "$1" run "$2" --size "$3" --device gpu --config default --repeat 30 --warmup 3 --verify </dev/null 2>&1 |
    grep -E 'kernel time|PASS|FAIL|error' | sed -E 's/.*median ([0-9.]+ ms).*/\1/; s/verify.*(PASS|FAIL).*/\1/' |
    cut -c1-100 | tr '\n' ' '
}
while read -r name spec label size; do
  echo "$name $label  old: $(t mdh_old "$spec" "$size")  new: $(t mdh "$spec" "$size")"
done < results/nvidia-h200/session15/cases.txt
for s in I=1024,J=1024,K=1024 I=4096,J=4096,K=4096; do
  mdh tune apps/gemm.mdh --size $s --device gpu --budget 60s --no-transfer --journal "$out/gemm-${s:2:4}.journal" \
    --out "$out/gemm-${s:2:4}.json" 2>&1 | grep -E '^(stopped|time|per eval|best)'
done
tar czf "$out/tunes.tar.gz" -C "$out" gemm-1024.journal gemm-1024.json gemm-4096.journal gemm-4096.json && \
  rm -f "$out"/gemm-*.j*
