#!/usr/bin/env bash
# Runs one fuzz target until its process has used CPU_SECONDS of CPU time (user + system), not wall time: on shared
# cores a wall-clock limit gives a reader a fraction of the fuzzing it was meant to get. Runs at `nice -n 19`, stops the
# fuzzer with SIGINT (libFuzzer then prints its final stats) and prints one summary line:
#   TARGET cpu_s=... runs=... cov_start=... cov_end=... corpus=... exit=... log=...
# exit 0: the budget was reached without a finding; otherwise the fuzzer stopped by itself (a crash, a leak, a
# timeout: see the log and the crash-* / timeout-* files in the log's folder).
#
#   run_for_cpu_time.sh BUILD_DIR TARGET CPU_SECONDS [SEED_DIR] [libFuzzer options...]
#
# The corpus grows in BUILD_DIR/corpus-TARGET (outside git, like the build dir); SEED_DIR defaults to
# tests/fuzz/seeds/TARGET (BUILD_DIR/fuzz-seeds for parser_fuzz). Running it again continues from that corpus.
set -u
build_dir=$(realpath "$1")
target=$2
budget=$3
shift 3
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
seeds=$source_dir/tests/fuzz/seeds/$target
[ "$target" = parser_fuzz ] && seeds=$build_dir/fuzz-seeds
if [ $# -gt 0 ] && [ -d "$1" ]; then
  seeds=$(realpath "$1")
  shift
fi
binary=$build_dir/bin/$target
[ -x "$binary" ] || { echo "no fuzz target $binary (configure with -DMDH_BUILD_FUZZ=ON, build it)" >&2; exit 2; }
corpus=$build_dir/corpus-$target
logs=$build_dir/fuzz-logs
mkdir -p "$corpus" "$logs"
log=$logs/$target.log

# In the log's folder, so that crash-* and timeout-* files land there.
(cd "$logs" && exec nice -n 19 "$binary" -timeout=10 -print_final_stats=1 "$@" "$corpus" "$seeds") >"$log" 2>&1 &
pid=$!
ticks=$(getconf CLK_TCK)
cpu_seconds() {  # utime + stime of the fuzzer (fields 14 and 15 of /proc/PID/stat, counted after the command's name)
  local stat
  stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
  set -- ${stat##*) }
  echo $(((${12} + ${13}) / ticks))
}
used=0
while now=$(cpu_seconds); do
  used=$now
  if [ "$used" -ge "$budget" ]; then
    kill -INT "$pid"
    break
  fi
  sleep 5
done
wait "$pid"
status=$?
# SIGINT at the budget: libFuzzer exits with its interrupt code (72).
[ "$status" = 72 ] && [ "$used" -ge "$budget" ] && status=0
runs=$(grep -o '^stat::number_of_executed_units: [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*$')
cov_start=$(grep -m 1 'INITED' "$log" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*')
cov_end=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*')
echo "$target cpu_s=$used runs=${runs:-?} cov_start=${cov_start:-?} cov_end=${cov_end:-?}" \
  "corpus=$(find "$corpus" -type f | wc -l) exit=$status log=$log"
exit "$status"
