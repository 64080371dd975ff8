#!/usr/bin/env bash
# Session 38, call 1 (nvidia-h200): the unrolled strided tile loop whose last tile alone is tested (generator 5).
# 1. The TunableKernel tests of unrolled and strided tile loops on the GPU (NVIDIA's compiler, optimised builds).
# 2. Generator 4 (peer_mdh_old, 67557eb) against 5 (peer_mdh) on DOT configurations with short or empty last tiles,
#    and controls whose kernels did not change; three interleaved rounds of 300 runs each.
# 3. The GPU soak of the md_homs outside the contractions. Bundle: peer_mdh, peer_mdh_old, mdh_codegen_tests,
#    mdh_codegen_soak_tests, device_peak.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
B=.device-bundle/bin
H=results/nvidia-h200
C=$H/session38/configs
nvidia-smi -L >"$OUT/gpu.txt"
MDH_TEST_DEVICE_TYPE=gpu $B/mdh_codegen_tests --gtest_filter='TunableKernel.UnrolledStridedTileLoopTestsItsLastTileAlone:TunableKernel.StridedWorkGroupTilesCoverEveryTileOnce:TunableKernel.UnrolledReductionTileLoopComputesTheSameResults' >"$OUT/gpu-tests.txt" 2>&1
tail -4 "$OUT/gpu-tests.txt"
ab() {  # label K config
  for p in peer_mdh_old peer_mdh; do
    $B/$p --config $3 --routine dot --spec apps/dot.mdh --size K=$2 --seed 1 --device gpu --json /tmp/r.json --label $1 \
      --warmups 20 --min-runs 300 --max-runs 300 >/dev/null
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, K=%s %s, %s: device %.2f us, call %.2f us, passed %s' % (sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['validation']['passed']))" /tmp/r.json $round $2 $1 $p
  done
}
{
  for round in 1 2 3; do
    ab committed 16777216 $H/dot-RW.json
    ab wg264 16777216 $C/dot-wg264.json
    ab wg264-unroll-off 16777216 $C/dot-wg264-unroll-off.json
    ab committed 16777215 $H/dot-RW.json
    ab committed 10000000 $H/dot-RW.json
    ab committed-unroll-off 10000000 $C/dot-committed-unroll-off.json
    ab wg128 10000000 $C/dot-wg128.json
    ab wg128-unroll-off 10000000 $C/dot-wg128-unroll-off.json
  done
} 2>&1 | tee "$OUT/ab.txt"
scripts/device_run.sh soak --seconds 330 --cpu-jobs 0 --gpu-jobs 16 --shards 8 \
  --filter '/(dot|gemv|gemm|gemm_nt|max1d|minplus|strided|mcc)$' --out "$OUT/soak.tar.gz" 2>&1 | tail -14
