#!/usr/bin/env bash
# Session 35, call 4 (nvidia-h200).
# (a) DOT 2^24 through peer_mdh without the scratch fills before each call (a program's next call finds the counters
#     its kernels reset, as mdh_runner.hpp's Runner does) and with a checked call after the timed ones: the committed
#     configuration, session 34's tuned strided one, the shuffle, and the hand-written kernels' shape in mdh's space
#     (configs/dot-cyclic-float4*: float4 private caches of x and y, 4 runs of 4 per work-item, work-groups cyclic
#     over the tiles), three rounds of 300 runs, with the copy bandwidth.
# (b) The two H200 rows whose calls had those fills (DOT and MCC, WG_COMBINE atomic), benchmarked again with their
#     peers in one run.
# (c) CMB_WI shuffle with more work-items per point than a warp (the second level): random configurations of the
#     tuner's lattices at sizes with room for them (TunableSoakShuffle, 100 per md_hom, optimised, the four md_homs
#     side by side, 170 s at most). Call 3 ran an earlier form of it first and nothing else: it drew from the whole
#     ranges, whose kernels at these sizes compile for minutes, and did not finish in 600 s.
# Bundle: mdh, mdh_codegen_soak_tests, peer_mdh, device_peak, peer_cuda, peer_clblast.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
B=.device-bundle/bin
R=results/nvidia-h200
D=$R/session35/configs
nvidia-smi -L >"$OUT/gpu.txt"
measure() {  # round label config
  $B/peer_mdh --config $3 --routine dot --spec apps/dot.mdh --size K=16777216 --seed 1 --device gpu --json "$OUT/r.json" \
    --label RW --warmups 20 --min-runs 300 --max-runs 300 >/dev/null
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); v=d['validation']; print('round %s, %-22s device %.2f us, call %.2f us, runs %d, passed %s (%s)' % (sys.argv[2], sys.argv[3] + ':', d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['runs'], v['passed'], v['checked_calls']))" "$OUT/r.json" $1 $2
}
{
  $B/device_peak --device gpu | grep -iE "copy"
  for round in 1 2 3; do
    measure $round dot $R/dot-RW.json
    measure $round dot-strided $R/session34/dot/t1-tuned-call8.json
    measure $round dot-shuffle $D/dot-shuffle.json
    measure $round cyclic-float4 $D/dot-cyclic-float4.json
    measure $round cyclic-float4-tree $D/dot-cyclic-float4-tree.json
    measure $round cyclic-float4-256 $D/dot-cyclic-float4-256.json
  done
} 2>&1 | tee "$OUT/dot.txt"
scripts/device_run.sh bench gpu experiments.gpu.json --seconds 240 dot:RW mcc:RW 2>&1 |
  grep -E "^==|^  (mdh|cublas|cudnn|clblast)|device peak|not bench" | tee "$OUT/bench.txt"
tar czf "$OUT/bench.tgz" results/nvidia-h200/benchmark.csv results/nvidia-h200/records
for c in dot gemv gemm matrix_chain; do
  MDH_SOAK=1 MDH_TEST_DEVICE_TYPE=gpu MDH_TUNABLE_VERBOSE=1 timeout 170 $B/mdh_codegen_soak_tests \
    --gtest_filter="*TunableSoakShuffle*/$c" >"$OUT/soak-shuffle-$c.log" 2>&1 &
done
wait
grep -hE "^\[ +(OK|FAILED) +\]|Failure" "$OUT"/soak-shuffle-*.log
for c in dot gemv gemm matrix_chain; do echo "$c: $(grep -c '^.* config {' "$OUT/soak-shuffle-$c.log") configurations begun"; done
