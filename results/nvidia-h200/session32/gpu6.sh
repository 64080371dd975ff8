#!/usr/bin/env bash
# Session 32, call 6 (nvidia-h200): the whole-call time. runtime/execute.cpp now polls the last kernel's status for up
# to 200 us before it blocks in clFinish. (a) peer_mdh_old (clFinish only) against peer_mdh (polling) on DOT 2^24,
# GEMM 10x500x64, GEMM 1024^3 and GEMV 1000x2048 with their committed configurations, two rounds; (b) if polling
# shortens DOT's call time, the benchmark with the peers of every case whose mdh call time lost to cuBLAS, and the
# other short ones; (c) a GPU soak of the reducing md_homs with two `++` dimensions or more after the fold's fix.
# Bundle: mdh, device_peak, peer_mdh, peer_mdh_old, peer_clblast, peer_cuda, mdh_codegen_soak_tests.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
nvidia-smi -L >"$OUT/gpu.txt"
p() {
  $1 --config results/nvidia-h200/$2-$3.json --routine $2 --spec apps/$2.mdh --size $4 --seed 1 --device gpu \
    --json /tmp/r.json --label $3 --warmups 2 --min-runs 5 --max-runs 100 >/tmp/r.log 2>&1 || { tail -2 /tmp/r.log; return; }
  python3 -c "import json; d=json.load(open('/tmp/r.json')); print('device %.4f ms call %.4f ms valid %s' % \
(d['device_time_ns']['median'] * 1e-6, d['call_time_ns']['median'] * 1e-6, d['validation']['passed']))"
}
for round in 1 2; do
  for c in "dot RW K=16777216" "gemm RW I=10,J=500,K=64" "gemm PC I=1024,J=1024,K=1024" "gemv RW I=1000,K=2048"; do
    set -- $c
    for bin in peer_mdh_old peer_mdh; do echo "round $round $1 $2 $bin: $(p $bin $1 $2 $3)"; done
  done
done 2>&1 | tee "$OUT/call_time.txt"
gain=$(python3 - "$OUT/call_time.txt" <<'PY'
import re, sys
calls = {"peer_mdh_old": [], "peer_mdh": []}
for line in open(sys.argv[1]):
    m = re.match(r"round \d dot RW (\S+): device \S+ ms call (\S+) ms", line)
    if m: calls[m.group(1)].append(float(m.group(2)))
print("%.4f" % (min(calls["peer_mdh_old"]) - min(calls["peer_mdh"])) if all(calls.values()) else "0")
PY
)
echo "DOT's call time shortened by $gain ms"
if python3 -c "import sys; sys.exit(0 if float('$gain') > 0.003 else 1)"; then
  scripts/device_run.sh bench gpu experiments.gpu.json --seconds 230 dot:RW gemm:RW gemm:PC gemv:RW gemv:PC \
    gaussian:RW mcc:RW jacobi3d:RW 2>&1 | grep -E "^==|^  (mdh|cublas|cudnn|clblast) |device peak|not bench"
  tar czf "$OUT/bench.tgz" results/nvidia-h200/benchmark.csv results/nvidia-h200/records
fi
# (c) the last work-group's fold clipped to the extent (found on PoCL after calls 4-5): the md_homs with two `++`
# dimensions or more that reduce.
export MDH_TUNABLE_VERBOSE=1
scripts/device_run.sh soak --seconds 110 --cpu-jobs 0 --gpu-jobs 16 --shards 8 \
  --filter 'gemm|mcc|contraction4|strided' --out "$OUT/soak.tar.gz" 2>&1 | tail -7
