#!/usr/bin/env bash
# Session 15, call 11: the 16-core Xeon through PoCL, the new CPU default beside Eigen (all threads or one, the faster;
# OpenBLAS cannot come along, see gpu5.sh) in one run, 10 runs after 2 warm-ups each, verified.
# Bundle: build/bin/mdh build/bin/peer_eigen -- apps experiments.json
set -u
out=${OUT:-/tmp/gpu6}
mkdir -p "$out"
for c in "gemm apps/gemm.mdh I=1024,J=1024,K=1024" "gemv apps/gemv.mdh I=4096,K=4096" "dot apps/dot.mdh K=16777216" \
         "gemm apps/gemm.mdh I=10,J=500,K=64" "gemv apps/gemv.mdh I=1000,K=2048"; do
  read -r routine spec size <<< "$c"
  m=$(mdh run $spec --size $size --device cpu --config default --repeat 10 --warmup 2 --verify </dev/null 2>&1 |
    grep -E 'kernel time|PASS|FAIL|error' | sed -E 's/.*median ([0-9.]+ ms).*/\1/; s/verify.*(PASS|FAIL).*/\1/' | tr '\n' ' ')
  peer_eigen --routine $routine --spec $spec --size $size --warmups 2 --min-runs 10 --max-runs 10 --json "$out/e.json" \
    </dev/null >/dev/null 2>&1
  e=$(python3 -c "import json,sys; print('%.4f ms' % (json.load(open(sys.argv[1]))['device_time_ns']['median'] / 1e6))" "$out/e.json")
  echo "xeon $routine $size  mdh default: $m  eigen: $e"
done
rm -f "$out/e.json"
