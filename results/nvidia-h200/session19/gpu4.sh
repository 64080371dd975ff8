#!/usr/bin/env bash
# Session 19, call 5 on nvidia-h200 (bundle .device-bundle: this session's binary with the default technique `local`,
# one compile worker per core (16 here) and the run's compile deadline applied to compiles started before it was
# known).
# a) Gaussian 4096^2 probes (gpu2.sh).
# b) MCC tuned again 45 s from the committed configuration (call 4's run stalled 40 of 45 s behind one compile that
#    started before the deadline was known).
# c) The eight other contractions tuned 25 s each with `local` from their committed configurations; a result
#    replaces the committed one only where its kernel time is lower.
# d) Gaussian 4096^2, MCC and the eight contractions benchmarked with their peers (cuDNN, cuBLAS-TTGT).
set -u
out=${OUT:-/tmp/gpu4}
mkdir -p "$out/t"
export NVIDIA_TF32_OVERRIDE=0
log=$out/log.txt
stamp() { echo "## $(date -u +%T) $*"; }
tune() {  # name spec size seconds [extra...]
  local name=$1 spec=$2 size=$3 secs=$4; shift 4
  stamp "$name: $spec $size ${secs}s $*"
  mdh tune "$spec" --size "$size" --device gpu --seed 1 --evals 10000000 --budget "${secs}s" \
    --journal "$out/t/$name.journal" --out "$out/t/$name.json" "$@" 2>&1 | grep -vE '^ ' | tail -5
}
replace() {  # name committed-basename
  python3 - "$out/t/$1.json" "results/nvidia-h200/$2.json" <<'PY' && cp -f "$out/t/$1.json" "results/nvidia-h200/$2.json" &&
import json, sys
new, old = (json.load(open(p))["kernel_time_ns"] for p in sys.argv[1:])
print("%s: new %.0f ns, committed %.0f ns" % (sys.argv[2], new, old))
sys.exit(0 if new < old else 1)
PY
    cp -f "$out/t/$1.journal" "results/nvidia-h200/$2.json.journal" && echo "results/nvidia-h200/$2.json replaced"
}
{
stamp "a) Gaussian probes"
OUT=$out/g bash results/nvidia-h200/session19/gpu2.sh >/dev/null 2>&1; cat "$out/g/log.txt"; rm -rf "$out/g"
tune mcc-RW apps/mcc.mdh N=1,P=7,Q=7,K=512,C=512,R=3,S=3 45 --no-transfer --start results/nvidia-h200/mcc-RW.json
replace mcc-RW mcc-RW
cases=()
for s in gdac-efgb gdbc-efga geab-dfgc geac-dfgb gebc-dfga gfab-degc gfac-degb gfbc-dega; do
  case $s in gd*) size=A=24,B=16,C=16,D=16,E=24,F=16,G=24 ;; *) size=A=24,B=16,C=16,D=24,E=16,F=16,G=24 ;; esac
  tune tc-$s apps/tc/abcdef-$s.mdh $size 25 --no-transfer --start results/nvidia-h200/tc-abcdef-$s-RW.json
  replace tc-$s tc-abcdef-$s-RW
  cases+=(tc-abcdef-$s:RW)
done
stamp "bench"
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh bench gpu experiments.gpu.json --seconds 200 gaussian:PC \
  mcc:RW "${cases[@]}" 2>&1 | grep -vE '^==' | tail -50
stamp done
} 2>&1 | tee -a "$log"
tar czf "$out/call5.tar.gz" -C "$out" t log.txt
tar czf "$out/results.tar.gz" results/nvidia-h200/records results/nvidia-h200/benchmark.json \
  results/nvidia-h200/benchmark.csv results/nvidia-h200/mcc-RW.json* results/nvidia-h200/tc-*-RW.json*
rm -rf "$out/t"
