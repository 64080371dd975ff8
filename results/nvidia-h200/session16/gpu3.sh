#!/usr/bin/env bash
# Session 16, call 3 on nvidia-h200: DOUBLE_BUFFER local (two local tiles per cache, one barrier per tile) against
# DOUBLE_BUFFER on (registers only, two barriers per tile): every committed H200 configuration with double
# buffering, flipped to local in place, and hand configurations (configs/*-local*.json); 30 runs after 3 warm-ups,
# verified, two rounds; cuBLAS (TF32 off) for the GEMM sizes in the same call.
# Bundle: build/bin/mdh build-cuda/bin/peer_cuda -- apps experiments.json experiments.gpu.json (configs travel with the working tree)
set -u
out=${OUT:-/tmp/gpu3}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
cfg=results/nvidia-h200/session16/configs
t() {  # CONFIG
  local spec size
  spec=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['spec'])" "$1")
  size=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['sizes']; print(','.join('%s=%s' % kv for kv in d.items()))" "$1")
  mdh run "$spec" --size "$size" --device gpu --config "$1" --repeat 30 --warmup 3 --verify 2>&1 |
    grep -E 'kernel time|PASS|FAIL|error' | sed -E 's/ over 30 runs.*//; s/verify.*(PASS|FAIL).*/\1/' | cut -c1-100 | tr '\n' ' '
}
flip() {  # CONFIG -> $out/local-NAME
  python3 - "$1" "$out/local-$(basename "$1")" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d.get('config', d)
c['DOUBLE_BUFFER'] = 'local'
json.dump(d, open(sys.argv[2], 'w'))
PY
  echo "$out/local-$(basename "$1")"
}
cublas() {  # SIZE
  peer_cuda --routine gemm --spec apps/gemm.mdh --size "$1" --warmups 3 --min-runs 50 --max-runs 50 \
    --json "$out/cublas.json" >/dev/null 2>&1 </dev/null
  python3 -c "import json,sys; print('cuBLAS $1: median %.4f ms' % (json.load(open(sys.argv[1]))['device_time_ns']['median'] / 1e6))" "$out/cublas.json"
}
committed=$(ls results/nvidia-h200/*.json | grep -E 'gemm-PC|gemm-RW|mcc-RW|prl-RW|tc-')
for round in 1 2; do
  echo "== round $round"
  cublas I=1024,J=1024,K=1024; cublas I=4096,J=4096,K=4096; cublas I=10,J=500,K=64
  for c in $committed; do
    [[ $c == *prl* ]] && continue  # needs --prl-data; below
    echo "$(basename $c): on $(t $c) | local $(t $(flip $c))"
  done
  for c in results/nvidia-h200/session15/configs/g1024-c.json results/nvidia-h200/session15/configs/g1024-a.json \
           results/nvidia-h200/session15/configs/g4096-d.json $cfg/g1024-c-local*.json $cfg/g1024-a-local.json $cfg/g4096-d-local.json; do
    echo "$(basename $c): $(t $c)"
  done
done
rm -f "$out"/local-* "$out/cublas.json"
