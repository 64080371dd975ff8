#!/usr/bin/env bash
# Session 24, third call on nvidia-h200 (about 8 minutes; bundle: build/bin/mdh peer_mdh peer_prl peer_clblast
# device_peak and peer_cuda (built with -DMDH_BUILD_CUDA_PEERS=ON) -- apps experiments.json experiments.gpu.json
# experiments.quick.json; carry .device-bundle; start with `source .device-bundle/env.sh`).
# a) gdab-efgc's default against variants toward its 30-minute best (gdab_variants.sh; issue 13 item 1).
# b) DOT 2^24: retuned (the space has WG_COMBINE; session 23's 40-s tune chose `last`), benchmarked with CLBlast and
#    cuBLAS in the same run, for the table.
# c) PRL small (N=2048) on the Xeon with the vectorless CPU default, retuned and benchmarked beside the threaded C++.
set -u
out=${OUT:-/tmp/s24c3}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
stamp() { echo "## $(date -u +%T) $*"; }
{
stamp "a) gdab variants"
OUT=$out/gdab timeout 170 bash results/nvidia-h200/session24/gdab_variants.sh > /dev/null 2>&1
cat "$out/gdab/log.txt"
stamp "b) DOT on the H200"
bash scripts/device_run.sh retune gpu experiments.gpu.json --tune-seconds 60 --bench-seconds 90 dot:RW 2>&1 |
  grep -vE '^==' | tail -12
python3 -c "import json; c=json.load(open('results/nvidia-h200/dot-RW.json'))['config']; print('dot WG_COMBINE', c.get('WG_COMBINE'))"
stamp "c) PRL small on the Xeon"
bash scripts/device_run.sh retune cpu experiments.quick.json --tune-seconds 60 --bench-seconds 50 prl:small 2>&1 |
  grep -vE '^==' | tail -6
stamp done
} 2>&1 | tee "$out/log.txt"
rm -rf "$out/gdab/t"
tar czf "$out/results.tar.gz" results/nvidia-h200/benchmark.* results/nvidia-h200/records results/nvidia-h200/dot-RW.json* \
  results/pocl-cpu-intel-xeon-16c 2>/dev/null
