#!/usr/bin/env bash
# Long runs on a device machine (the GPU machine, or any host with OpenCL devices), each bounded by a deadline so
# that a call with a time limit reports what it did and what it did not do instead of being cut off silently.
#
#   scripts/device_run.sh soak [--seconds N] [--shards K] [--gpu-jobs N] [--cpu-jobs N] [--filter REGEX] [--out F]
#       The tunable-kernel soak (CTest label `soak`: 1,000 random valid configurations per md_hom, optimised builds)
#       on the first GPU with --gpu-jobs processes and on the first CPU device with --cpu-jobs processes. Every case
#       is split into K shards (MDH_TUNABLE_SHARD; the union of a case's shards is its unsharded run); the CPU takes
#       the cases in reverse order, so that together the devices cover as much as possible. Prints per device and
#       case the passed/failed/crashed/unfinished shards and the first failure; a shard the deadline stopped is
#       reported as unfinished, never as passed. Logs: F (default $OUT/soak.tar.gz, else /tmp/soak.tar.gz).
#       Defaults: 540 s, 8 shards, 12 GPU and 4 CPU jobs, every TunableSoak case.
#   scripts/device_run.sh bench DEVICE EXPERIMENTS [--seconds N] [--run-timeout N] [--portability] [--run-id ID]
#                               [--merge] [CASE...]
#       Benchmarks mdh and the peers (experiments.py benchmark) one case (ROUTINE:LABEL) per call, so a call stopped
#       by the deadline keeps the rows of the cases before it. The calls are one run (one --run-id), and the table is
#       that run's alone (experiments.py --replace); with --merge, rows of other runs that it did not measure again
#       stay, each naming its own run in the table. Default: every case of
#       EXPERIMENTS, 520 s, runs limited to 30 s each; --portability also runs every other device's tuned
#       configuration. --run-id continues a run that an earlier call began (its table and benchmark.json in the
#       tree), on the same card only: a benchmark longer than one call of a time-limited machine.
#   scripts/device_run.sh retune DEVICE EXPERIMENTS [--scale S] [--tune-seconds N] [--bench-seconds N]
#                                [--run-timeout N] CASE...
#       Deletes the tuned configurations of the cases, tunes them again (budgets of EXPERIMENTS times S, default 1;
#       CLBlast's own tuners skipped) within --tune-seconds (default 250), benchmarks them as `bench --merge` does within
#       --bench-seconds (default 150), and prints each case's best time, evaluations and tuning seconds.
#
# DEVICE is an mdh device selector (gpu, cpu, P:D). The programs come from $MDH_BIN, else from the directory of the
# `mdh` on PATH (the device bundle's env.sh puts it there: ../shared/device/bundle.sh), else from build/bin.
# Run from the repository root; results go where experiments.py puts them (tables in results/<device-slug>/,
# tuned configurations in tuned/<device-slug>/).
set -u  # not -e: one failing case or shard must not end the run; every step reports its own outcome
cd "$(dirname "$0")/.." || exit 2

usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
  exit 2
}

if [[ -z ${MDH_BIN:-} ]]; then
  if command -v mdh >/dev/null; then MDH_BIN=$(dirname "$(command -v mdh)"); else MDH_BIN=$PWD/build/bin; fi
fi
export MDH_BIN
mdh="$MDH_BIN/mdh"

# bench_cases DEVICE EXPERIMENTS SECONDS RUN_TIMEOUT PORTABILITY RUN_ID KEEP CASE...: one experiments.py call per
# case, all of one run (RUN_ID, else a new one); KEEP is --replace (the table is this run's) or --merge.
bench_cases() {
  local dev=$1 exp=$2 end=$(($(date +%s) + $3)) run_timeout=$4 portability=$5 run_id=$6 keep=$7
  shift 7
  local c left
  [[ -n $run_id ]] || run_id=$(python3 scripts/experiments.py run-id --device "$dev") || return
  echo "== run $run_id"
  for c in "$@"; do
    left=$((end - $(date +%s)))
    if ((left <= 10)); then
      echo "not benchmarked (deadline): $dev $c"
      continue
    fi
    echo "== benchmark $dev $c"
    timeout "$left" python3 scripts/experiments.py benchmark --device "$dev" --experiments "$exp" --only "$c" \
      --run-id "$run_id" "$keep" --run-timeout "$run_timeout" $portability 2>&1 | grep -vE '^\+|^wrote|^run '
  done
}

# every_case EXPERIMENTS: ROUTINE:LABEL for every size of every routine.
every_case() {
  python3 -c "
import json, sys
e = json.load(open(sys.argv[1]))
print(' '.join('%s:%s' % (r['name'], s['label']) for r in e['routines'] for s in r['sizes']))" "$1"
}

soak() {
  local seconds=540 shards=8 gpu_jobs=12 cpu_jobs=4 filter=. out="${OUT:-/tmp}/soak.tar.gz"
  while (($#)); do
    case $1 in
      --seconds) seconds=$2 ;;
      --shards) shards=$2 ;;
      --gpu-jobs) gpu_jobs=$2 ;;
      --cpu-jobs) cpu_jobs=$2 ;;
      --filter) filter=$2 ;;
      --out) out=$2 ;;
      *) usage ;;
    esac
    shift 2
  done
  local soak_tests="$MDH_BIN/mdh_codegen_soak_tests" logs
  logs=$(mktemp -d /tmp/soak.XXXXXX)
  local deadline=$(($(date +%s) + seconds)) cases
  cases=$("$soak_tests" --gtest_list_tests | awk '/^[A-Za-z]/{s=$1} /^  /{print s $1}' | grep 'TunableSoak\.' |
    grep -E -- "$filter" || true)
  [[ -n $cases ]] || { echo "soak: no TunableSoak case matches '$filter'" >&2; exit 2; }

  # One shard, bounded by the deadline; its log ends in rc=… (124: stopped by the deadline; none: not started).
  run_shard() {
    local type=$1 case=$2 k=$3 left log="$logs/$1-${2##*/}-$3.log"
    left=$((deadline - $(date +%s)))
    if ((left < 5)); then
      printf 'not started (deadline)\nrc=none\n' >"$log"
      return
    fi
    # POCL_CPU_MAX_CU_COUNT=1: each CPU shard is one process on one core, so jobs and not PoCL's threads share the
    # cores.
    local rc=0
    MDH_SOAK=1 MDH_TEST_DEVICE_TYPE=$type MDH_TUNABLE_SHARD=$k/$shards POCL_CPU_MAX_CU_COUNT=1 \
      timeout "$left" "$soak_tests" --gtest_filter="$case" >"$log" 2>&1 || rc=$?
    echo "rc=$rc" >>"$log"
  }
  export -f run_shard
  export soak_tests deadline shards logs

  local pids=() type jobs order c k
  for type in gpu cpu; do
    jobs=$gpu_jobs order=cat
    [[ $type == cpu ]] && jobs=$cpu_jobs order=tac
    ((jobs > 0)) || continue
    for c in $(echo "$cases" | $order); do for k in $(seq 0 $((shards - 1))); do echo "$type $c $k"; done; done |
      xargs -r -P"$jobs" -L1 bash -c 'run_shard "$0" "$1" "$2"' &
    pids+=($!)
  done
  wait "${pids[@]}"

  local name passed failed crashed open why f
  for type in gpu cpu; do
    ls "$logs"/"$type"-* >/dev/null 2>&1 || continue
    echo "== soak on $type: case passed/failed/crashed/unfinished shards (of $shards), then the first failure or crash"
    for c in $cases; do
      name=${c##*/} passed=0 failed=0 crashed=0 open=0 why=""
      for k in $(seq 0 $((shards - 1))); do
        f="$logs/$type-$name-$k.log"
        if grep -q '^\[  PASSED  \] 1 test' "$f" && grep -q '^rc=0' "$f"; then
          passed=$((passed + 1))
        elif grep -q '^\[  FAILED  \]' "$f"; then
          failed=$((failed + 1))
          [[ -n $why ]] || why="shard $k: $(grep -m1 -A4 'Failure' "$f" | tr '\n' ' ' | head -c 700)"
        elif grep -qE '^rc=(124|none)' "$f"; then
          open=$((open + 1))
        else
          crashed=$((crashed + 1))
          [[ -n $why ]] || why="shard $k crashed: $(tail -n 4 "$f" | tr '\n' ' ' | head -c 700)"
        fi
      done
      echo "$name $passed/$failed/$crashed/$open $why"
    done
  done
  tar czf "$out" -C "$logs" .
  echo "logs: $out"
}

bench() {
  (($# >= 2)) || usage
  local dev=$1 exp=$2 seconds=520 run_timeout=30 portability="" run_id="" keep=--replace cases=()
  shift 2
  while (($#)); do
    case $1 in
      --seconds) seconds=$2; shift ;;
      --run-timeout) run_timeout=$2; shift ;;
      --portability) portability=--portability ;;
      --run-id) run_id=$2; shift ;;
      --merge) keep=--merge ;;
      -*) usage ;;
      *) cases+=("$1") ;;
    esac
    shift
  done
  ((${#cases[@]})) || read -r -a cases <<<"$(every_case "$exp")"
  bench_cases "$dev" "$exp" "$seconds" "$run_timeout" "$portability" "$run_id" "$keep" "${cases[@]}"
}

retune() {
  (($# >= 2)) || usage
  local dev=$1 exp=$2 scale=1 tune_seconds=250 bench_seconds=150 run_timeout=30 cases=() only=() slug c
  shift 2
  while (($#)); do
    case $1 in
      --scale) scale=$2; shift ;;
      --tune-seconds) tune_seconds=$2; shift ;;
      --bench-seconds) bench_seconds=$2; shift ;;
      --run-timeout) run_timeout=$2; shift ;;
      -*) usage ;;
      *) cases+=("$1") ;;
    esac
    shift
  done
  ((${#cases[@]})) || usage
  slug=$("$mdh" devices --slug "$dev")
  for c in "${cases[@]}"; do
    rm -f "tuned/$slug/${c%%:*}-${c##*:}.json" "tuned/$slug/${c%%:*}-${c##*:}.json.journal"{,.gz}
    only+=(--only "$c")
  done
  echo "== tune on $dev ($slug): ${cases[*]}"
  timeout "$tune_seconds" python3 scripts/experiments.py tune --device "$dev" --experiments "$exp" \
    --budget-scale "$scale" --skip-peer-tuning "${only[@]}" 2>&1 | grep -E "^(best|stopped|warning|note)|error" ||
    echo "(tuning stopped at the deadline, $tune_seconds s, or printed nothing)"
  bench_cases "$dev" "$exp" "$bench_seconds" "$run_timeout" "" "" --merge "${cases[@]}"
  for c in "${cases[@]}"; do
    python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
print(sys.argv[1], d['kernel_time_ns'] / 1e6, 'ms', d['evaluations'], 'evaluations', round(d['tuning_seconds']), 's')" \
      "tuned/$slug/${c%%:*}-${c##*:}.json" 2>/dev/null || echo "tuned/$slug/${c%%:*}-${c##*:}.json: not tuned"
  done
}

(($#)) || usage
command=$1
shift
case $command in
  soak | bench | retune) "$command" "$@" ;;
  *) usage ;;
esac
