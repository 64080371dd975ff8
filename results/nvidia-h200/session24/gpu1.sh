#!/usr/bin/env bash
# Session 24, first call on nvidia-h200 (about 9 minutes; bundle: build/bin/mdh peer_mdh peer_prl device_peak mdh_codegen_soak_tests -- apps experiments.json experiments.gpu.json experiments.xeon.json;
# carry .device-bundle; start with `source .device-bundle/env.sh`).
# a) PRL on the 16 Xeon cores with the vectorless CPU default (one element per work-item: 237 ms against 393 for the
#    8 x 4 tile in session 24's first call): retune RW and small (seeded by the default, which the compile deadline
#    no longer cuts), benchmarked beside the threaded C++ baseline in the same run.
# c) The copy bandwidth by size (the floor of a 64/128-MiB stream), beside GEMV 4096^2 and DOT's bytes.
# e) The GPU soak of the md_homs the last call did not finish, with the time left.
set -u
out=${OUT:-/tmp/s24}
mkdir -p "$out/t"
export NVIDIA_TF32_OVERRIDE=0
end=$(($(date +%s) + ${SECONDS_TOTAL:-540}))
stamp() { echo "## $(date -u +%T) $*"; }
{
stamp "a) PRL on the Xeon"
bash scripts/device_run.sh retune cpu experiments.xeon.json --tune-seconds 150 --bench-seconds 100 prl:RW 2>&1 |
  grep -vE '^==' | tail -8
bash scripts/device_run.sh retune cpu experiments.json --tune-seconds 60 --bench-seconds 40 prl:small 2>&1 |
  grep -vE '^==' | tail -6
stamp "c) copy bandwidth by size"
for mib in 32 64 1024; do device_peak --device gpu --copy-mib $mib 2>&1 | grep -iE "copy" | head -1; done
left=$((end - $(date +%s)))
stamp "e) GPU soak, $left s"
((left > 60)) && MDH_TUNABLE_VERBOSE=1 bash scripts/device_run.sh soak --seconds "$left" --gpu-jobs 16 --cpu-jobs 0 \
  --filter 'prl|tc_abcdef_gdbc|tc_abcdef_ge|tc_abcdef_gf' --out "$out/soak.tar.gz" 2>&1 | sed -n '1,/soak on cpu/p' | tail -20
stamp done
} 2>&1 | tee "$out/log.txt"
tar czf "$out/results.tar.gz" results/pocl-cpu-intel-xeon-16c results/nvidia-h200/benchmark.* results/nvidia-h200/records \
  results/nvidia-h200/dot-RW.json* "$out/t" 2>/dev/null
rm -rf "$out/t"
