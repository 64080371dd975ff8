#!/usr/bin/env bash
# Session 38, call 2 (nvidia-h200): generator 5 with mdh_accumulate and mdh_shuffle_down plain functions (no C99
# `inline`, which left NVIDIA's compiler nothing to call at -cl-opt-disable: call 1's test failures).
# 1. The TunableKernel tests of strided tile loops on the GPU (NVIDIA's compiler, unoptimised and optimised builds).
# 2. The PTX of the committed H200 configurations that hold those functions (DOT: shuffle and atomic; MCC), from
#    generator 4 (mdh_old, 67557eb) and 5 (mdh): `mdh inspect`.
# 3. The GPU soak of the md_homs outside the contractions whose draws hold the peeled tile loop.
# Bundle: mdh, mdh_old, mdh_codegen_tests, mdh_codegen_soak_tests, peer_mdh, device_peak.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
B=.device-bundle/bin
H=results/nvidia-h200
nvidia-smi -L >"$OUT/gpu.txt"
MDH_TEST_DEVICE_TYPE=gpu $B/mdh_codegen_tests --gtest_filter='TunableKernel.UnrolledStridedTileLoopTestsItsLastTileAlone:TunableKernel.StridedWorkGroupTilesCoverEveryTileOnce' >"$OUT/gpu-tests.txt" 2>&1
tail -4 "$OUT/gpu-tests.txt"
mkdir -p /tmp/ptx
for c in dot:K=16777216 mcc:N=1,P=7,Q=7,K=512,C=512,R=3,S=3; do
  r=${c%%:*} s=${c#*:}
  for m in mdh_old mdh; do
    $B/$m inspect apps/$r.mdh --size $s --config $H/$r-RW.json --device gpu -o /tmp/ptx/$r-$m >/tmp/ptx/$r-$m.txt 2>&1
  done
  echo "== $r: inspect old/new"; cat /tmp/ptx/$r-mdh_old.txt /tmp/ptx/$r-mdh.txt | grep -iE "register|spill|error" | head -6
  for f in /tmp/ptx/$r-mdh/*; do
    o=/tmp/ptx/$r-mdh_old/$(basename $f)
    if cmp -s $f $o; then echo "same: $(basename $f)"; else echo "differs: $(basename $f) ($(diff $o $f | grep -c '^[<>]') lines)"; fi
  done
done 2>&1 | tee "$OUT/ptx.txt"
tar czf "$OUT/ptx.tgz" -C /tmp ptx
scripts/device_run.sh soak --seconds 330 --cpu-jobs 0 --gpu-jobs 16 --shards 8 \
  --filter '/(dot|gemv|gemm|gemm_nt|max1d|minplus|strided|mcc)$' --out "$OUT/soak.tar.gz" 2>&1 | tail -14
