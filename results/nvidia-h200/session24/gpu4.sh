#!/usr/bin/env bash
# Session 24, fourth call on nvidia-h200 (about 3 minutes; bundle: build/bin/mdh peer_mdh device_peak and peer_cuda
# -- apps experiments.gpu.json; carry .device-bundle; start with `source .device-bundle/env.sh`).
# The GPU default with the raised input reuse (merge 6dc7606 with its reduction tiles kept) on the three contractions
# it changes, gdab-efgc, gdac-efgb and gdbc-efga: `--config default` against the committed tuned configurations
# (gdac's and gdbc's are their old defaults), two rounds in opposite orders; then the benchmark of the three
# (mdh, the default, cuBLAS-TTGT in the same run) for the table.
set -u
out=${OUT:-/tmp/s24c4}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
size=A=24,B=16,C=16,D=16,E=24,F=16,G=24
time_config() {  # time_config CASE CONFIG
  echo "$1 $2: $(mdh run apps/tc/abcdef-$1.mdh --size $size --config "$3" --device gpu --repeat 50 --warmup 5 --verify \
    2>&1 | grep -E 'kernel time|PASS|FAIL|error' | cut -c1-70 | tr '\n' ' ')"
}
{
echo "## $(date -u +%T) defaults"
for round in 1 2; do
  for c in gdab-efgc gdac-efgb gdbc-efga; do
    if ((round == 1)); then
      time_config $c default default
      time_config $c committed results/nvidia-h200/tc-abcdef-$c-RW.json
    else
      time_config $c committed results/nvidia-h200/tc-abcdef-$c-RW.json
      time_config $c default default
    fi
  done
done
echo "## $(date -u +%T) bench"
bash scripts/device_run.sh bench gpu experiments.gpu.json --seconds 120 tc-abcdef-gdab-efgc:RW tc-abcdef-gdac-efgb:RW \
  tc-abcdef-gdbc-efga:RW 2>&1 | grep -vE '^==' | tail -14
echo "## $(date -u +%T) done"
} 2>&1 | tee "$out/log.txt"
tar czf "$out/results.tar.gz" results/nvidia-h200/benchmark.* results/nvidia-h200/records 2>/dev/null
