#!/usr/bin/env bash
# Tunes CLBlast for one device and one routine size with CLBlast's own tuners (Debian clblast-utils), writing their
# clblast_*_32.json results into OUTDIR, which `peer_clblast --tuned OUTDIR` applies.
#
#   peers/tune_clblast.sh P:D OUTDIR ROUTINE SIZES
#     P:D      OpenCL platform and device index (as `mdh devices` lists them)
#     ROUTINE  gemm | gemm_nt | gemv | dot
#     SIZES    the mdh size binding: gemm I=..,J=..,K=..; gemv I=..,K=..; dot K=..
#
# Budget: CLBlast's tuners explore 1/FRACTION of each search space (their -fraction). The GEMM tuner's random
# search spaces hold ~120,000 configurations and its fixed ones ~500, so it gets its own divisor:
#   CLBLAST_GEMM_FRACTION (default 1000: ~120 random GEMMK=0 configurations), CLBLAST_FRACTION (default 4) for the
#   others, CLBLAST_TUNER_TIMEOUT seconds per tuner (default 900; a tuner stopped by it writes no result).
# A tuner that fails or finds no valid configuration leaves CLBlast's shipped parameters for its kernel in place.
set -u

if [[ $# -ne 4 ]]; then
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
device=$1 outdir=$2 routine=$3 sizes=$4
if [[ ! $device =~ ^([0-9]+):([0-9]+)$ ]]; then
  echo "tune_clblast.sh: device '$device' is not P:D (platform and device index)" >&2
  exit 2
fi
platform=${BASH_REMATCH[1]} device_index=${BASH_REMATCH[2]}
gemm_fraction=${CLBLAST_GEMM_FRACTION:-1000}
fraction=${CLBLAST_FRACTION:-4}
limit=${CLBLAST_TUNER_TIMEOUT:-900}

# size NAME: the value of NAME in the binding.
size() {
  local v
  v=$(tr ', ' '\n\n' <<<"$sizes" | sed -n "s/^$1=\([0-9]*\)$/\1/p")
  if [[ -z $v ]]; then
    echo "tune_clblast.sh: '$sizes' binds no size $1 (needed for $routine)" >&2
    exit 2
  fi
  echo "$v"
}
# round_up VALUE MULTIPLE: the tuners of the indirect GEMM path need sizes that are multiples of their tile sizes.
round_up() { echo $(( ($1 + $2 - 1) / $2 * $2 )); }

mkdir -p "$outdir" || exit 2
outdir=$(cd "$outdir" && pwd)
log="$outdir/tuning.log"
failures=0
# tune NAME ARGS...: one CLBlast tuner, run inside OUTDIR (the tuners write their JSON to the working directory).
tune() {
  # From PATH first (a device bundle carries them in its bin/), then where Debian's clblast-utils puts them.
  local tuner
  tuner=$(command -v "clblast_tuner_$1" || echo "/usr/bin/clblast_tuner_$1")
  shift
  if [[ ! -x $tuner ]]; then
    echo "tune_clblast.sh: clblast_tuner_${tuner##*clblast_tuner_} not found on PATH or in /usr/bin (install clblast-utils)" >&2
    exit 2
  fi
  echo "== $(basename "$tuner") -platform $platform -device $device_index $*" | tee -a "$log"
  if ! (cd "$outdir" && timeout "$limit" "$tuner" -platform "$platform" -device "$device_index" -precision 32 "$@" \
        >>"$log" 2>&1); then
    echo "   failed or stopped (see $log); CLBlast's shipped parameters stay for this kernel" | tee -a "$log"
    failures=$((failures + 1))
  fi
}

case $routine in
  gemm | gemm_nt)
    m=$(size I) || exit 2; n=$(size J) || exit 2; k=$(size K) || exit 2
    # Small sizes take CLBlast's direct kernel, large ones the indirect one with pad/transpose kernels: tune both.
    tune xgemm_direct -m "$m" -n "$n" -k "$k" -fraction "$fraction"
    tune xgemm -m "$(round_up "$m" 128)" -n "$(round_up "$n" 128)" -k "$(round_up "$k" 128)" -fraction "$gemm_fraction"
    tune copy_fast -m "$(round_up "$m" 64)" -n "$(round_up "$k" 64)" -fraction "$fraction"
    tune copy_pad -m "$m" -n "$k" -fraction "$fraction"
    tune transpose_fast -m "$(round_up "$k" 64)" -n "$(round_up "$n" 64)" -fraction "$fraction"
    tune transpose_pad -m "$k" -n "$n" -fraction "$fraction"
    ;;
  gemv)
    m=$(size I) || exit 2; k=$(size K) || exit 2
    tune xgemv -m "$m" -n "$k" -fraction "$fraction"
    ;;
  dot)
    n=$(size K) || exit 2
    tune xdot -n "$n" -fraction "$fraction"
    ;;
  *)
    echo "tune_clblast.sh: no CLBlast tuners for routine '$routine' (gemm, gemm_nt, gemv, dot)" >&2
    exit 2
    ;;
esac
found=$(find "$outdir" -maxdepth 1 -name 'clblast_*_32.json' | wc -l)
echo "tune_clblast.sh: $found result file(s) in $outdir, $failures tuner(s) failed; log: $log"
[[ $found -gt 0 ]]
