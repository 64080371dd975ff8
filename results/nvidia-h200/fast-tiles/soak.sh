#!/usr/bin/env bash
# Issue 12 items 1-2 (branch kernel-fast-tiles), second device call on the H200:
# (1) the three configurations that the first GPU soak of the new kernel found wrong (seed 77001: matrix_chain #549
#     and #383, contraction4 #900; all keep res_p in global memory and share a reduction between work-items), run
#     twice with the soak binary that found them (res_p declared restrict) and with the fixed one (not restrict);
# (2) mcc RW and jacobi3d PC, whose committed configurations keep res_p in global memory: main (mdh_base), the
#     binary of the first measurement (mdh_v2, restrict) and the fixed one (mdh);
# (3) the GPU soak: 1,000 random valid configurations per md_hom (all 22), seed 77001, optimised builds, 15 jobs
#     (scripts/gpu_session7_soak.sh), logs to $OUT/soak12.tar.gz.
set -u
B=$PWD/.device-bundle
# The test binaries read spec files from the source tree they were built in.
mkdir -p /work && { [[ -e /work/wt-kernel ]] || ln -s "$PWD" /work/wt-kernel; }
for bin in mdh_codegen_soak_tests_v2 mdh_codegen_soak_tests; do
  for c in matrix_chain:549 matrix_chain:383 contraction4:900; do
    for attempt in 1 2; do
      r=$(MDH_SOAK=1 MDH_TEST_DEVICE_TYPE=gpu MDH_TUNABLE_SHARD=${c#*:}/1000 timeout 60 "$B/bin/$bin" \
          --gtest_filter="*TunableSoak.*/${c%%:*}" 2>&1 | grep -E "expected|PASSED  \]|FAILED  \]" | head -1 | cut -c1-120)
      echo "$bin $c #$attempt: $r"
    done
  done
done
export NVIDIA_TF32_OVERRIDE=0
for c in "apps/mcc.mdh|N=1,P=7,Q=7,K=512,C=512,R=3,S=3|results/nvidia-h200/mcc-RW.json" \
         "apps/jacobi3d.mdh|I=512,J=512,K=512|results/nvidia-h200/jacobi3d-PC.json"; do
  IFS='|' read -r spec sizes cfg <<< "$c"
  for round in 1 2; do
    for bin in mdh_base mdh_v2 mdh; do
      o=$(timeout 90 "$B/bin/$bin" run "$spec" --size "$sizes" --config "$cfg" --device gpu --repeat 50 --warmup 3 --verify 2>&1)
      echo "$round $(basename "$cfg" .json) $bin $(echo "$o" | sed -n 's/^kernel time: median \([0-9.e+-]*\) ms.*/\1 ms/p') $(echo "$o" | grep -o 'PASS\|FAIL' | head -1)"
    done
  done
done
start=$(date +%s)
SOAK_BIN=$B/bin/mdh_codegen_soak_tests GPU_JOBS=15 CPU_JOBS=0 SOAK_SECONDS=${SOAK_SECONDS:-470} SOAK_TAR=soak12 \
  bash "$B/gpu_session7_soak.sh" 2>/dev/null | sed '/== soak on cpu/,$d' | tee "$OUT/soak12-summary.txt"
echo "soak wall $(( $(date +%s) - start )) s" | tee -a "$OUT/soak12-summary.txt"
