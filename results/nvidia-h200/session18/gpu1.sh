#!/usr/bin/env bash
# Session 18, call 1 on nvidia-h200. Bundle .device-bundle (bin/{mdh,peer_mdh,device_peak,peer_clblast,peer_prl,
# peer_cuda,mdh_codegen_soak_tests} + apps/ experiments*.json).
# a) device_peak: default copy (1024 MiB) and copies of 32, 64, 128 MiB (GEMV 4096^2 reads 64 MiB, DOT 2^24 128 MiB).
# b) GEMM 1024^3 probes: the committed configuration (gemm-PC.json) and variants of it (configs/g1024-*.json: split-K,
#    64x64, 128x32, 64x128 tiles), `mdh run --repeat 100 --verify`, two rounds in round-robin order, cuBLAS
#    (peer_cuda) at the start and end.
# c) GEMV 4096^2 5-minute reference run (auc_bandit seed 1, --no-transfer).
# d) Gaussian 4096^2 tuned 120 s from the committed configuration (transfer on).
set -u
out=${OUT:-/tmp/gpu1}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
dir=results/nvidia-h200/session18
cfg=$dir/configs
log=$out/log.txt
stamp() { echo "## $(date -u +%T) $*" | tee -a "$log"; }
mkdir -p /tmp/small
{
stamp "a) device_peak"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
device_peak --device gpu --json /tmp/small/device_peak-default.json 2>&1 | tail -8
for m in 32 64 128; do
  echo "-- copy-mib $m"
  device_peak --device gpu --copy-mib $m --json /tmp/small/device_peak-$m.json 2>&1 | tail -8
done
stamp "b) GEMM 1024^3 probes"
cublas() {
  peer_cuda --routine gemm --spec apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu \
    --json /tmp/small/cublas-$1.json </dev/null 2>&1 | tail -3
}
t() {  # CONFIG
  mdh run apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --config "$1" --verify --repeat 100 </dev/null 2>&1 |
    grep -E 'kernel time|PASS|FAIL|error' | sed -E 's/kernel time: //; s/verify.*(PASS|FAIL).*/\1/' | cut -c1-110 | tr '\n' ' '
}
echo "cuBLAS start: $(cublas start | tr '\n' ' ')"
for round in 1 2; do
  echo "== round $round"
  echo "C: $(t results/nvidia-h200/gemm-PC.json)"
  for v in splitk2 splitk4 t64x64 t64x64-s2 t128x32 t64x128 t64x64-w128; do
    echo "$v: $(t $cfg/g1024-$v.json)"
  done
done
echo "cuBLAS end: $(cublas end | tr '\n' ' ')"
} 2>&1 | tee -a "$log"
(cd /tmp/small && tar czf "$out/small.tar.gz" *.json)
{
stamp "c) GEMV 4096^2 300 s"
mdh tune apps/gemv.mdh --size I=4096,K=4096 --device gpu --technique auc_bandit --seed 1 --evals 10000000 --budget 300s \
  --no-transfer --journal $out/gemv-PC-300s.journal --out $out/gemv-PC-300s.json 2>&1 | grep -vE '^ ' | tail -12
stamp "d) Gaussian 4096^2 120 s from the committed"
mdh tune apps/gaussian.mdh --size I=4096,J=4096 --device gpu --technique auc_bandit --seed 1 --budget 120s \
  --start results/nvidia-h200/gaussian-PC.json --journal $out/gaussian-PC.json.journal --out $out/gaussian-PC.json 2>&1 |
  grep -vE '^ ' | tail -12
stamp done
} 2>&1 | tee -a "$log"
