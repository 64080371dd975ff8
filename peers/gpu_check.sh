#!/usr/bin/env bash
# Runs every CUDA peer (and the CPU PRL baseline) once at small sizes and at the sizes experiments.gpu.json commits,
# prints one line per run (exit status, validation, steady / one-call event / call medians in ms, calls per
# sample, what set-up chose) and keeps every full record, so that one GPU call validates all of them.
#   peers/gpu_check.sh [--small | --committed] [--peer NAME]... [--device SEL] [--precision tf32] [--ncu]
# --precision tf32 runs the peers and routines with a TF32 path instead (peers/README.md): the small sizes, and the
# rows experiments.gpu.json commits in TF32 (records in gpu_check_MODE-tf32.jsonl).
# --ncu instead cross-checks the steady instrument against Nsight Compute's kernel durations on three rows of
# programs without set-up trials, whose launches ncu would count too (cuBLAS GEMM 1024^3, GEMV 4096^2, DOT 2^24):
# the steady median beside ncu's mean gpu__time_duration of 30 launches after 20 (no cache flush, no clock locking,
# as the steady runs see the GPU).
# Programs: $MDH_BIN, else the directory of the `mdh` on PATH (the device bundle's env.sh), else build/bin.
# Environment: OUT (records go to $OUT/gpu_check_MODE.jsonl, MODE all, small or committed; else /tmp), RUN_LIMIT_S
# (per program run, default 120), MAX_RUNS (default 30), CI (default 0.05: a check, not a benchmark).
# Exit status: 0 when every run validated, 1 otherwise (on the GPU machine, "not available" is a failure too).
set -uo pipefail
cd "$(dirname "$0")/.."
if [[ -z ${MDH_BIN:-} ]]; then
  if command -v mdh >/dev/null; then MDH_BIN=$(dirname "$(command -v mdh)"); else MDH_BIN=$PWD/build/bin; fi
fi
which=all
peers=()
device=()
precision=fp32
while (($#)); do
  case $1 in
    --small) which=small ;;
    --committed) which=committed ;;
    --peer) peers+=("$2"); shift ;;
    --device) device=(--device "$2"); shift ;;
    --precision) precision=$2; shift ;;
    --ncu) which=ncu ;;
    *) echo "gpu_check.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[[ $precision == fp32 || $precision == tf32 ]] || { echo "gpu_check.sh: --precision fp32 or tf32" >&2; exit 2; }
[[ $precision == fp32 || $which != ncu ]] || { echo "gpu_check.sh: --ncu checks fp32 rows only" >&2; exit 2; }
precision_args=()
suffix=
if [[ $precision != fp32 ]]; then precision_args=(--precision "$precision"); suffix=-$precision; fi
records=${OUT:-/tmp}/gpu_check_$which$suffix.jsonl
[[ -x $MDH_BIN/peer_cuda ]] || { echo "gpu_check.sh: $MDH_BIN/peer_cuda is not built (-DMDH_BUILD_CUDA_PEERS=ON)" >&2; exit 2; }
if [[ $which == ncu ]]; then
  ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
  [[ -x $ncu ]] || { echo "gpu_check.sh: no ncu (set NCU=PATH, or put the CUDA toolkit's bin on PATH)" >&2; exit 2; }
  printf '%-14s %-9s %-16s %12s %12s %7s\n' peer routine size steady_us ncu_us ratio
  status=0
  while read -r peer routine spec size kernel; do
    json=$(mktemp)
    "$MDH_BIN/peer_cuda" --peer "$peer" --routine "$routine" --spec "$spec" --size "$size" "${device[@]}" \
      --max-runs 50 --ci 0.01 --json "$json" >/dev/null 2>"$json.err" || { cat "$json.err"; status=1; continue; }
    "$ncu" --csv --metrics gpu__time_duration.sum --cache-control none --clock-control none -k "regex:$kernel" \
      --launch-skip 20 --launch-count 30 "$MDH_BIN/peer_cuda" --peer "$peer" --routine "$routine" --spec "$spec" \
      --size "$size" "${device[@]}" --max-runs 10 --ci 0.5 >"$json.ncu" 2>&1 || { tail -5 "$json.ncu"; status=1; }
    python3 - "$json" "$json.ncu" "$peer" "$routine" "$size" <<'PY'
import csv, json, sys
record, report, peer, routine, size = sys.argv[1:6]
steady = json.load(open(record))["steady_time_ns"]["median"] / 1e3
scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3, "second": 1e6, "s": 1e6}
rows = [r for r in csv.reader(l for l in open(report) if l.startswith('"')) if len(r) > 3]
header, values = rows[0], rows[1:]
unit, value = header.index("Metric Unit"), header.index("Metric Value")
times = [float(r[value].replace(",", "")) * scale[r[unit]] for r in values if r[unit] in scale]
mean = sum(times) / len(times) if times else float("nan")
print("%-14s %-9s %-16s %12.2f %12.2f %7.3f   (%d kernels)" % (peer, routine, size[:16], steady, mean, steady / mean,
                                                               len(times)))
PY
    rm -f "$json" "$json.err" "$json.ncu"
  done <<'ROWS'
cublas gemm apps/gemm.mdh I=1024,J=1024,K=1024 gemm
cublas gemv apps/gemv.mdh I=4096,K=4096 gemv
cublas dot apps/dot.mdh K=16777216 dot
ROWS
  exit $status
fi

: >"$records"
# peer routine spec size label, one run a line: the small sizes first (odd extents on purpose), then experiments.gpu.json's.
cases=$(WHICH=$which PEERS="${peers[*]}" PRECISION=$precision python3 - <<'PY'
import json, os
cuda = ["cublas", "cublaslt", "cudnn", "im2col_cublas", "cuda_stencil", "ttgt_lib", "prl_cuda"]
wanted = os.environ["PEERS"].split() or cuda + ["prl_threads"]
precision = os.environ["PRECISION"]
# The (peer, routine) pairs with a TF32 path (peer_cuda's table); "tc": every contraction.
tf32 = {("cublas", "gemm"), ("cublas", "gemm_nt"), ("cublaslt", "gemm"), ("cublaslt", "gemm_nt"), ("cudnn", "gaussian"),
        ("cudnn", "jacobi3d"), ("cudnn", "mcc"), ("im2col_cublas", "mcc"), ("ttgt_lib", "tc")}
offered = lambda peer, routine: precision == "fp32" or (peer, "tc" if routine.startswith("tc") else routine) in tf32
small = [("cublas", "gemm", "apps/gemm.mdh", "I=37,J=29,K=41"), ("cublaslt", "gemm", "apps/gemm.mdh", "I=37,J=29,K=41"),
         ("cublaslt", "gemm_nt", "apps/gemm_nt.mdh", "I=37,J=29,K=41"),
         ("cublas", "gemm", "apps/gemm_half.mdh", "I=37,J=29,K=41"),
         ("cublaslt", "gemm", "apps/gemm_half.mdh", "I=37,J=29,K=41"),
         ("cublas", "gemm", "apps/gemm_bfloat16.mdh", "I=37,J=29,K=40"),
         ("cublaslt", "gemm", "apps/gemm_bfloat16.mdh", "I=37,J=29,K=40"),
         ("cudnn", "gaussian", "apps/gaussian.mdh", "I=37,J=29"), ("cuda_stencil", "gaussian", "apps/gaussian.mdh", "I=37,J=29"),
         ("cudnn", "jacobi3d", "apps/jacobi3d.mdh", "I=13,J=11,K=37"),
         ("cuda_stencil", "jacobi3d", "apps/jacobi3d.mdh", "I=13,J=11,K=37"),
         ("cudnn", "mcc", "apps/mcc.mdh", "N=2,P=5,Q=6,K=12,C=20,R=3,S=3"),
         ("im2col_cublas", "mcc", "apps/mcc.mdh", "N=2,P=5,Q=6,K=12,C=20,R=3,S=3"),
         ("im2col_cublas", "mcc", "apps/mcc.mdh", "N=1,P=4,Q=4,K=8,C=6,R=2,S=3"),
         ("ttgt_lib", "tc-abcdef-gdab-efgc", "apps/tc/abcdef-gdab-efgc.mdh", "A=5,B=3,C=4,D=3,E=5,F=2,G=7"),
         ("ttgt_lib", "tc-abcdef-gfbc-dega", "apps/tc/abcdef-gfbc-dega.mdh", "A=5,B=3,C=4,D=3,E=5,F=2,G=7"),
         ("prl_cuda", "prl", "apps/prl.mdh", "N=77,M=300"), ("prl_threads", "prl", "apps/prl.mdh", "N=77,M=300")]
lines = []
if os.environ["WHICH"] in ("all", "small"):
    lines += ["%s %s %s %s small" % c for c in small if c[0] in wanted and offered(c[0], c[1])]
if os.environ["WHICH"] in ("all", "committed"):
    for routine in json.load(open("experiments.gpu.json"))["routines"]:
        for peer in routine.get("peers", []):
            if peer in wanted:
                lines += ["%s %s %s %s %s" % (peer, routine["name"], routine["spec"], s["size"], s["label"])
                          for s in routine["sizes"]
                          if s.get("precision", routine.get("precision", "fp32")) == precision]
print("\n".join(lines))
PY
)
failed=0
printf '%-14s %-22s %-36s %5s %-9s %10s %10s %10s %5s  %s\n' peer routine size exit validated steady_ms event_ms call_ms n chosen
while read -r peer routine spec size label; do
  [[ -n $peer ]] || continue
  if [[ $peer == prl_threads ]]; then command=("$MDH_BIN/peer_prl"); else command=("$MDH_BIN/peer_cuda" --peer "$peer"); fi
  json=$(mktemp)
  timeout "${RUN_LIMIT_S:-120}" "${command[@]}" --routine "$routine" --spec "$spec" --size "$size" "${device[@]}" \
    --label "$label" --max-runs "${MAX_RUNS:-30}" --ci "${CI:-0.05}" "${precision_args[@]}" --json "$json" \
    >/dev/null 2>"$json.err"
  code=$?
  # A spec of the routine in other element types (gemm_half.mdh) is named beside it.
  shown=$routine
  [[ $(basename "$spec" .mdh) == "${routine}_"* ]] && shown="$routine ($(basename "$spec" .mdh))"
  line=$(CODE=$code python3 - "$json" "$peer" "$shown" "$size" <<'PY'
import json, os, sys
path, peer, routine, size = sys.argv[1:5]
code = int(os.environ["CODE"])
try:
    r = json.load(open(path))
except (OSError, ValueError):
    r = {}
ms = lambda key: "%.4f" % (r[key]["median"] / 1e6) if r.get(key) else "-"
notes = r.get("notes", {})
chosen = notes.get("variant") or notes.get("threads_per_record_of_a") or (notes.get("cublaslt") or {}).get("chosen") or \
    (notes.get("cudnn") or {}).get("chosen") or (notes.get("ttgt") or {}).get("chosen") or notes.get("threads") or ""
print("%-14s %-22s %-36s %5d %-9s %10s %10s %10s %5s  %s" % (
    peer, routine[:22], size[:36], code, r.get("validation", {}).get("passed", "-"), ms("steady_time_ns"),
    ms("device_time_ns"), ms("call_time_ns"), r.get("steady", {}).get("calls_per_sample", "-"),
    json.dumps(chosen, separators=(",", ":"))[:160]))
PY
)
  echo "$line"
  if [[ $code != 0 ]]; then
    failed=1
    sed 's/^/    /' "$json.err" | tail -5
  fi
  [[ -s $json ]] && { tr -d '\n' <"$json"; echo; } >>"$records"
  rm -f "$json" "$json.err"
done <<<"$cases"
echo "full records: $records"
exit $failed
