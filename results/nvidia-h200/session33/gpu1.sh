#!/usr/bin/env bash
# Session 33, call 1 (nvidia-h200): does the NaN fill before every timed call slow mdh's next kernel?
# peer_mdh_old (main at 4786064) fills the output (clEnqueueFillBuffer + clFinish) before every call, timed or plain;
# peer_mdh (OutputPoison) fills it only before the first, checked call. Both time the committed configurations of
# six cases, alternating, two rounds; cuBLAS beside them. Then the floor of a near-empty call (GEMM 1x1x1) for mdh's
# default and cuBLAS, and the benchmark (all peers, new binaries) of the six cases.
# Bundle: mdh, device_peak, peer_mdh, peer_mdh_old, peer_clblast, peer_cuda.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
B=.device-bundle/bin
nvidia-smi -L >"$OUT/gpu.txt"
cases=("gemm RW I=10,J=500,K=64" "dot RW K=16777216" "gemv RW I=1000,K=2048" "gemv PC I=4096,K=4096"
  "gaussian RW I=224,J=224" "gemm PC I=1024,J=1024,K=1024")
summary() {  # JSON -> "device median / call median" in us
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('%8.2f %8.2f  %s' % (d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, 'ok' if d['validation']['passed'] else 'WRONG'))" "$1"
}
one() {  # PROGRAM ROUTINE LABEL SIZE [--config FILE]
  local prog=$1 r=$2 l=$3 s=$4; shift 4
  local j="$OUT/ab/$round-$prog-$r-$l.json"
  $B/$prog --routine "$r" --spec "apps/$r.mdh" --size "$s" --seed 1 --device gpu --json "$j" --label "$l" \
    --warmups 2 --min-runs 5 --max-runs 100 "$@" >/dev/null 2>"$j.err"
  printf '%-14s %-9s %-3s ' "$prog" "$r" "$l"; summary "$j"
}
mkdir -p "$OUT/ab"
{
  echo "# program routine label device_us call_us"
  for round in 1 2; do
    echo "## round $round"
    for c in "${cases[@]}"; do
      set -- $c
      for prog in peer_mdh_old peer_mdh; do one "$prog" "$1" "$2" "$3" --config "results/nvidia-h200/$1-$2.json"; done
      [[ $1 == gaussian ]] || one peer_cuda "$1" "$2" "$3"
    done
  done
  echo "## floor: GEMM 1x1x1"
  for round in 1 2; do
    one peer_mdh gemm tiny I=1,J=1,K=1
    one peer_mdh_old gemm tiny I=1,J=1,K=1
    one peer_cuda gemm tiny I=1,J=1,K=1
  done
} 2>&1 | tee "$OUT/ab.txt"
scripts/device_run.sh bench gpu experiments.gpu.json --seconds 170 gemm:RW dot:RW gemv:RW gemv:PC gaussian:RW gemm:PC 2>&1 |
  grep -E "^==|^  (mdh|cublas|cudnn|clblast)|device peak|not bench" | tee "$OUT/bench.txt"
tar czf "$OUT/bench.tgz" results/nvidia-h200/benchmark.csv results/nvidia-h200/records
tar czf "$OUT/ab.tgz" -C "$OUT" ab
rm -rf "$OUT/ab"
