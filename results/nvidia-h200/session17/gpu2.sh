#!/usr/bin/env bash
# Session 17, call 5 on nvidia-h200: LOCAL_PAD (padded rows of local caches against bank conflicts), new family.
# Each committed configuration whose inputs are cached in local memory, with pads of 1, 2, 4 (8) elements on one or
# both caches (configs/*.json): GEMM 1024^3 and 4096^3 (cuBLAS in the same call), the CCSD(T) contractions gdab-efgc,
# gdbc-efga and gfab-degc, and MCC. `mdh run`, 50 runs after 3 warm-ups, verified against the double reference
# (4096^3: in round 1 only), two rounds.
# 1. The pads.
# Bundle (-o .device-bundle-pad): build/bin/{mdh,peer_mdh,device_peak,peer_clblast,peer_prl,mdh_codegen_soak_tests}
#   build-cuda/bin/peer_cuda -- apps experiments.json experiments.gpu.json (main at 5fb5835)
set -u
out=${OUT:-/tmp/gpu2}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
cfg=results/nvidia-h200/session17/configs
t() {  # SPEC SIZE CONFIG [ARGS...]
  local spec=$1 size=$2 config=$3; shift 3
  mdh run "$spec" --size "$size" --device gpu --config "$config" --repeat 50 --warmup 3 "$@" </dev/null 2>&1 |
    grep -E 'kernel time|PASS|FAIL|error' | sed -E 's/ over 50 runs.*//; s/kernel time: //; s/verify.*(PASS|FAIL).*/\1/' |
    cut -c1-100 | tr '\n' ' '
}
cublas() {  # SIZE
  peer_cuda --routine gemm --spec apps/gemm.mdh --size "$1" --warmups 3 --min-runs 50 --max-runs 50 \
    --json "$out/cublas.json" >/dev/null 2>&1 </dev/null
  python3 -c "import json,sys; print('%.4f ms' % (json.load(open(sys.argv[1]))['device_time_ns']['median'] / 1e6))" \
    "$out/cublas.json"
}
case_line() {  # NAME SPEC SIZE COMMITTED PREFIX [VERIFY]
  local name=$1 spec=$2 size=$3 committed=$4 prefix=$5 verify=--verify
  [ "${6:-}" = unverified ] && verify=
  echo "-- $name $size"
  echo "committed: $(t "$spec" "$size" "$committed" $verify)"
  for c in "$cfg"/$prefix-*.json; do echo "$(basename "$c" .json): $(t "$spec" "$size" "$c" $verify)"; done
}
for round in 1 2; do
  echo "== round $round"
  echo "cuBLAS 1024^3: $(cublas I=1024,J=1024,K=1024)"
  case_line gemm apps/gemm.mdh I=1024,J=1024,K=1024 results/nvidia-h200/gemm-PC.json g1024
  echo "cuBLAS 4096^3: $(cublas I=4096,J=4096,K=4096)"
  v=verified
  [ $round = 2 ] && v=unverified
  case_line gemm apps/gemm.mdh I=4096,J=4096,K=4096 results/nvidia-h200/gemm-PC-4096.json g4096 $v
  case_line gdab apps/tc/abcdef-gdab-efgc.mdh A=24,B=16,C=16,D=16,E=24,F=16,G=24 \
    results/nvidia-h200/tc-abcdef-gdab-efgc-RW.json gdab
  case_line gdbc apps/tc/abcdef-gdbc-efga.mdh A=24,B=16,C=16,D=16,E=24,F=16,G=24 \
    results/nvidia-h200/tc-abcdef-gdbc-efga-RW.json gdbc
  case_line gfab apps/tc/abcdef-gfab-degc.mdh A=24,B=16,C=16,D=24,E=16,F=16,G=24 \
    results/nvidia-h200/tc-abcdef-gfab-degc-RW.json gfab
  case_line mcc apps/mcc.mdh N=1,P=7,Q=7,K=512,C=512,R=3,S=3 results/nvidia-h200/mcc-RW.json mcc
done
rm -f "$out/cublas.json"
# 2. GPU soak of the new family, first part (LOCAL_PAD is drawn wherever an input of rank 2+ is cached locally).
MDH_BIN=$PWD/.device-bundle-pad/bin bash scripts/device_run.sh soak --seconds 320 --shards 8 --gpu-jobs 15 --cpu-jobs 0 \
  --filter 'dot|gemv|gemm|gaussian|jacobi|mcc|max1d|minplus|contraction4|strided' --out "$out/soak-part1.tar.gz" 2>&1 |
  tail -30
