#!/usr/bin/env bash
# Every shipped workload on the default device (first GPU, else PoCL on the CPU), run with the default config and verified
# against the double-precision reference, with a summary table. Usage: scripts/verify_apps.sh [--device SEL]
set -euo pipefail
cd "$(dirname "$0")/.."
mdh=build/bin/mdh
device=(); [[ ${1:-} == --device ]] && device=(--device "$2")

# workload spec, sizes (small enough for a 2-core CPU), extra options
cases=(
  "apps/dot.mdh|K=1048576|"
  "apps/gemv.mdh|I=1000,K=2048|"
  "apps/gemm.mdh|I=10,J=500,K=64|"
  "apps/gemm.mdh|I=256,J=256,K=256|"
  "apps/gemm_nt.mdh|I=256,J=256,K=256|"
  "apps/gemm_half.mdh|I=256,J=256,K=256|"
  "apps/gemm_bfloat16.mdh|I=256,J=256,K=256|"
  "apps/gaussian.mdh|I=224,J=224|"
  "apps/jacobi3d.mdh|I=64,J=64,K=64|"
  "apps/mcc.mdh|N=1,P=7,Q=7,K=64,C=64,R=3,S=3|"
  "apps/prl.mdh|N=1024,M=1024|--prl-data"
  "apps/prl_weights.mdh|N=1024,M=1024|--prl-data"
  "apps/tc/abcdef-gdab-efgc.mdh|A=12,B=8,C=8,D=8,E=12,F=8,G=12|"
)

$mdh devices | head -3
printf '\n%-28s %-34s %14s %12s  %s\n' workload sizes "median kernel" rate verify
status=0
for c in "${cases[@]}"; do
  IFS='|' read -r spec sizes extra <<<"$c"
  out=$($mdh run "$spec" --size "$sizes" --config default --repeat 5 --verify ${extra:+$extra} "${device[@]}" 2>&1) || status=1
  time=$(sed -n 's/^kernel time: median \([0-9.]* ms\).*/\1/p' <<<"$out")
  rate=$(grep -oE '[0-9.]+ (GFLOP/s|GB/s)' <<<"$out" | head -1 || true)
  verdict=$(grep -oE '(PASS|FAIL)' <<<"$out" | head -1 || echo "ERROR")
  printf '%-28s %-34s %14s %12s  %s\n' "$(basename "$spec" .mdh)" "$sizes" "${time:--}" "${rate:--}" "$verdict"
  [[ $verdict == PASS ]] || { status=1; echo "$out" | sed 's/^/    /'; }
done
exit $status
