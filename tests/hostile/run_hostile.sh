#!/usr/bin/env bash
# The hostile-input suite (issue 15): runs the mdh CLI on a corpus of bad specs, sizes, params, .npy files,
# configurations, journals, options and output paths, and on faults (a full disk, kill -9 of the tuner, SIGTERM, two
# tuners on one journal, a compile that never ends). For each bad input it asserts: exit status 1 or 2, a message
# naming the input, no crash (no signal, no sanitizer report), and no input file changed.
#
#   run_hostile.sh MDH SOURCE_DIR GROUP      GROUP: inputs | journals | faults
#
# Works with a release or a sanitizer build of mdh (scripts/test.sh runs it with both): sanitizer reports get their
# own exit status, so that they cannot pass for a user error's 1 or 2.
set -u
mdh=$(realpath "$1")
source_dir=$(realpath "$2")
group=$3
export ASAN_OPTIONS="exitcode=99:detect_leaks=0:abort_on_error=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="exitcode=99:halt_on_error=1:print_stacktrace=1:${UBSAN_OPTIONS:-}"
export MDH_TUNED_RESULTS=none  # the default configuration, whatever the machine's store of tuned results holds
ulimit -c 0  # a crash is detected by its signal; no core files in the working folder

work=$(mktemp -d "${TMPDIR:-/tmp}/mdh-hostile-XXXXXX")
# What mdh writes under TMPDIR (kernels, references, the folders a killed tuner leaves) goes into a folder removed at
# the end as well; outside the work folder, whose files the cases compare before and after.
mdh_tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/mdh-hostile-tmpdir-XXXXXX")
trap 'rm -rf "$work" "$mdh_tmpdir"' EXIT
export TMPDIR="$mdh_tmpdir"
cd "$work" || exit 1
failures=0
cases=0

fail() {
  echo "FAIL [$1]: $2"
  failures=$((failures + 1))
}

snapshot() { find . -type f ! -name '*.out' -print0 | sort -z | xargs -0 -r md5sum; }

# check_outcome NAME STATUS NEEDLE OUTPUT_FILE BEFORE: the assertions shared by every bad input.
check_outcome() {
  local name=$1 status=$2 needle=$3 output=$4 before=$5
  [ -n "${HOSTILE_VERBOSE:-}" ] && echo "[$name] exit $status: $(head -c 300 "$output" | head -n 3)"
  if [ "$status" -ne 1 ] && [ "$status" -ne 2 ]; then
    fail "$name" "exit status $status, expected 1 or 2; output:"
    head -c 3000 "$output"
    echo
  fi
  if grep -q -e "AddressSanitizer" -e "runtime error:" -e "LeakSanitizer" "$output"; then
    fail "$name" "sanitizer report:"
    head -c 3000 "$output"
  fi
  if ! grep -q -F -e "$needle" "$output"; then
    fail "$name" "the message does not name '$needle':"
    head -c 2000 "$output"
    echo
  fi
  if [ "$(wc -c <"$output")" -gt 20000 ]; then fail "$name" "the message is $(wc -c <"$output") bytes long"; fi
  local after
  after=$(echo "$before" | awk '{print $2}' | xargs -r md5sum 2>&1)  # the files that existed before
  if [ "$before" != "$after" ]; then
    fail "$name" "an input file changed:"
    diff <(echo "$before") <(echo "$after") | head -20
  fi
}

# bad NAME NEEDLE ARGS...: mdh ARGS must fail cleanly, naming NEEDLE.
bad() {
  local name=$1 needle=$2
  shift 2
  cases=$((cases + 1))
  local before
  before=$(snapshot)
  timeout -s KILL 300 "$mdh" "$@" >"$name.out" 2>&1
  local status=$?
  check_outcome "$name" "$status" "$needle" "$name.out" "$before"
  rm -f "$name.out"
}

# good NAME ARGS...: mdh ARGS must succeed (inputs at the edge of what is valid).
good() {
  local name=$1
  shift
  cases=$((cases + 1))
  timeout -s KILL 300 "$mdh" "$@" >"$name.out" 2>&1
  local status=$?
  if [ "$status" -ne 0 ]; then
    fail "$name" "exit status $status, expected 0:"
    head -c 3000 "$name.out"
  fi
  rm -f "$name.out"
}

cp "$source_dir/apps/gemm.mdh" gemm.mdh
G=(gemm.mdh --size I=8,J=8,K=8)
cat >scaled.mdh <<'EOF'
md_hom scaled
size I
param alpha : float
input A : float[I]
output B : float[I]
view (i < I) : A[i] -> B[i]
scalar (a) = alpha * a
combine (++)
EOF

# npy_file NAME DESCR SHAPE DATA_BYTES: a version 1.0 .npy file whose data are DATA_BYTES zero bytes.
npy_file() {
  local dict="{'descr': '$2', 'fortran_order': False, 'shape': $3, }"
  local header_length=$((${#dict} + 1))
  {
    printf '\x93NUMPY\x01\x00'
    printf "\\x$(printf %02x $((header_length % 256)))\\x$(printf %02x $((header_length / 256)))"
    printf '%s\n' "$dict"
    head -c "$4" /dev/zero
  } >"$1"
}

if [ "$group" = inputs ]; then
  # --- specs
  mkdir dir.mdh
  bad spec-directory "dir.mdh" check dir.mdh
  ln -s /dev/zero zero.mdh
  bad spec-dev-zero "zero.mdh" check zero.mdh
  bad spec-missing "missing.mdh" check missing.mdh
  : >empty.mdh
  bad spec-empty "empty.mdh" check empty.mdh
  printf '\x00\xff\xfe binary \x01\x02' >binary.mdh
  bad spec-binary "binary.mdh" check binary.mdh
  head -c 300000 /dev/zero | tr '\0' 'x' >long.txt
  { printf 'md_hom g\nsize I\ninput A : float[I]\noutput B : float[I]\nview (i < I) : A[i] -> '; cat long.txt; printf '[i]\nscalar (a) = a\ncombine (++)\n'; } >longname.mdh
  bad spec-long-identifier "longname.mdh" check longname.mdh
  {
    printf 'md_hom deep\nsize N\ninput A : float[N]\noutput B : float[N]\nview ('
    for k in $(seq 0 20); do printf 'd%s < N, ' "$k"; done | sed 's/, $//'
    printf ') : A[d0] -> B[d0]\nscalar (a) = a\ncombine (++'
    for k in $(seq 1 20); do printf ', +'; done
    printf ')\n'
  } >dims21.mdh
  bad spec-21-dimensions "dims21.mdh" generate dims21.mdh --size N=2
  # Counting the space at the edge of 64 bits (run under UBSan too): 20 dimensions, three reductions of 2^31 - 1
  head -n 5 dims21.mdh | sed 's/, d20 < N//' >dims20.mdh
  sed -n 6p dims21.mdh >>dims20.mdh
  sed -n 7p dims21.mdh | sed 's/, +)$/)/' >>dims20.mdh
  good space-20-dimensions space dims20.mdh --size N=2 -q
  printf 'md_hom big\nsize R\ninput A : float[R]\noutput B : float[1]\nview (a < R, b < R, c < R) : A[a] -> B[0]\nscalar (x) = x\ncombine (+, +, +)\n' >big.mdh
  good space-reductions-of-2-to-the-31 space big.mdh --size R=2147483647 -q
  # 20 dimensions whose products pass 2^31 and 2^63 (run under UBSan too): one `++` dimension and 19 reductions that
  # A does not index, 2^589 steps at 2^31 - 1. Counted, split over work-groups and checked without wrapping; the
  # default configuration is one the checks accept (it made 1024^19 work-groups before).
  {
    printf 'md_hom red20\nsize N\ninput A : float[N]\noutput B : float[N]\nview ('
    for k in $(seq 0 19); do printf 'd%s < N, ' "$k"; done | sed 's/, $//'
    printf ') : A[d0] -> B[d0]\nscalar (a) = a\ncombine (++'
    for k in $(seq 1 19); do printf ', +'; done
    printf ')\n'
  } >red20.mdh
  good reductions-19-of-2-to-the-31-space space red20.mdh --size N=2147483647 -q
  good reductions-19-of-2-to-the-31-default generate red20.mdh --size N=2147483647 --config default -o red20.cl
  good reductions-19-run run red20.mdh --size N=2 --config default --verify --repeat 1
  # A broadcast reduction whose default split over 256 work-groups needed a 256 GB scratch buffer
  printf 'md_hom broadcast\nsize I R\ninput A : float[I]\noutput B : float[I]\nview (i < I, r < R) : A[i] -> B[i]\nscalar (a) = a\ncombine (++, +)\n' >broadcast.mdh
  good broadcast-reduction-default generate broadcast.mdh --size I=268435456,R=1048576 --config default -o broadcast.cl
  # A reduction of 2^31 - 1 (a prime): near 2^31 the kernel's int tile arithmetic wrapped (EXTENT + LT_SIZE - 1, a
  # default summed to 0), and keeping within int left no room to split it, so one work-item summed 2^31 floats and
  # --verify failed. The kernel now computes its positions in long where they pass 2^31 (codegen/index_range.h):
  # the default splits it over work-groups and the result verifies
  good broadcast-reduction-of-2-to-the-31-minus-1 run broadcast.mdh --size I=1,R=2147483647 --config default --verify --repeat 1
  # A buffer past the tunable kernel's int indices: refused at its place in the spec before any configuration is
  # derived (a default derived for it overflowed 64 bits), by space and generate alike; the reference kernel takes it
  sed -e 's/^input A : float\[N\]$/input A : float[N][N]/' -e 's/ : A\[d0\] -> / : A[d0][d1] -> /' red20.mdh >wide20.mdh
  wide20_message="wide20.mdh:3:7: error: buffer 'A' has 4294967296 elements at these sizes, more than the tunable kernel's int indices address (2147483647); the reference kernel (--reference) indexes with 64 bits"
  bad buffer-past-int-indices-space "$wide20_message" space wide20.mdh --size N=65536
  bad buffer-past-int-indices-generate "$wide20_message" generate wide20.mdh --size N=65536 -o wide20.cl
  good buffer-past-int-indices-reference generate wide20.mdh --size N=65536 --reference -o wide20.cl
  # A count past 2^63 in a refused configuration reads as such, not as a wrapped or clamped number
  sed 's/^output B : float\[N\]$/output B : float[1]/; s/ -> B\[d0\]/ -> B[0]/; s/combine (++/combine (+/' red20.mdh >allred20.mdh
  if "$mdh" inspect allred20.mdh --size N=2 --config default -o inspected --json >inspected.json 2>&1; then
    python3 -c 'import json, sys
c = json.load(open("inspected.json"))["config"]
for d in range(20):
    c.update({"LT_SIZE_d%d" % d: 1, "PT_SIZE_d%d" % d: 1, "NUM_WI_d%d" % d: 1, "NUM_WG_d%d" % d: 2147483647})
json.dump(c, open("saturated.json", "w"))'
    bad config-count-past-2-to-the-63 "(work-groups on OpenCL dimension 2 = 2^63 or more, work-items on OpenCL dimension 2 = 1, NUM_WG_d0 = 2147483647" generate allred20.mdh --size N=2147483647 --config saturated.json
  else
    fail config-count-past-2-to-the-63 "inspect failed: $(head -c 1000 inspected.json)"
  fi
  rm -rf red20.cl broadcast.cl wide20.cl inspected inspected.json saturated.json
  { printf 'md_hom g\nsize I\ninput A : float[I]\noutput B : float[I]\nview (i < I) : A[i] -> B[i]\nscalar (a) = '; head -c 200000 /dev/zero | tr '\0' '('; printf 'a\ncombine (++)\n'; } >nested.mdh
  bad spec-deep-expression "nested.mdh" check nested.mdh

  # --- file names are data: a spec path with a newline, quotes and a comment's end reaches the kernels only
  # escaped (issue 50): it adds no line of code to them, they build, and the run computes what the spec says
  injected=$'inj\n#define a 0\n"*/ ??/x.mdh'
  mkdir -p "$(dirname "$injected")"
  cp gemm.mdh "$injected"
  for kind in tunable reference; do
    cases=$((cases + 1))
    option=()
    [ $kind = reference ] && option=(--reference)
    if ! "$mdh" generate "$injected" --size I=8,J=8,K=8 "${option[@]}" -o "name-$kind.cl" >name.out 2>&1; then
      fail "spec-name-$kind" "generate failed: $(head -c 1000 name.out)"
    elif grep -qx '#define a 0' "name-$kind.cl"; then
      fail "spec-name-$kind" "the spec's file name put a line of code into the $kind kernel"
    fi
  done
  cases=$((cases + 1))
  if "$mdh" run gemm.mdh --size I=8,J=8,K=8 --verify --output C=plain.npy >name.out 2>&1 &&
    "$mdh" run "$injected" --size I=8,J=8,K=8 --verify --output C=named.npy >>name.out 2>&1; then
    cmp -s plain.npy named.npy || fail spec-name-run "the result under the odd file name differs from gemm.mdh's"
  else
    fail spec-name-run "run failed: $(head -c 1000 name.out)"
  fi
  cases=$((cases + 1))
  if "$mdh" export "$injected" --size I=8,J=8,K=8 -o exported >name.out 2>&1; then
    ! grep -qx '#define a 0' exported/gemm.cl || fail spec-name-export "the file name put a line of code into the export"
  else
    fail spec-name-export "export failed: $(head -c 1000 name.out)"
  fi
  rm -rf name.out name-*.cl plain.npy named.npy exported "${injected%%/*}"

  # A spec path that is not UTF-8: mdh tune records its options in JSON (the workers' request, the journal, the
  # result), which holds UTF-8 only, so it refuses the path by name before any work; generate needs no JSON.
  cp gemm.mdh $'g\xff.mdh'
  bad spec-name-not-utf8-tune 'the spec path '"'"'g\xff.mdh'"'"' is not UTF-8 text' tune $'g\xff.mdh' \
    --size I=8,J=8,K=8 --evals 1 --out not-utf8.json
  good spec-name-not-utf8-generate generate $'g\xff.mdh' --size I=8,J=8,K=8 -o not-utf8.cl
  rm -f $'g\xff.mdh' not-utf8.cl

  # --- --full-ranges at an extent where one dimension's tile sizes alone make tens of millions of combinations:
  # refused at once, not after minutes of growing memory
  bad full-ranges-too-large-space "--full-ranges: LT_SIZE_k, PT_SIZE_k, NUM_WI_k and NUM_WG_k at extent 2048 have more" \
    space "$source_dir/apps/dot.mdh" --size K=2048 --full-ranges
  bad full-ranges-too-large-tune "--full-ranges: LT_SIZE_k, PT_SIZE_k, NUM_WI_k and NUM_WG_k at extent 2048 have more" \
    tune "$source_dir/apps/dot.mdh" --size K=2048 --full-ranges --evals 1 --out full-ranges.json

  # --- names that could never compile (OpenCL C words, the generator's own identifiers and macros): refused at
  # check time with their place in the spec
  reserved_spec() { sed -e "s/^view (i < I) : A\[i\] -> B\[i\]/$2/" -e "s/^input A /input $3 /" scaled.mdh >"$1"; }
  reserved_spec slot.mdh 'view (slot < I) : A[slot] -> B[slot]' A
  bad spec-reserved-dimension "slot.mdh:6:7: error: name 'slot' of a dimension is reserved" check slot.mdh
  reserved_spec kernel.mdh 'view (i < I) : kernel[i] -> B[i]' kernel
  bad spec-reserved-keyword "kernel.mdh:4:7: error: name 'kernel' of a buffer is reserved" check kernel.mdh
  reserved_spec macro.mdh 'view (i < I) : NUM_WG_i[i] -> B[i]' NUM_WG_i
  bad spec-reserved-macro "macro.mdh:4:7: error: name 'NUM_WG_i' of a buffer is reserved" run macro.mdh --size I=8 \
    --param alpha=1

  # --- sizes
  bad size-zero "I" run "${G[@]/I=8/I=0}"
  bad size-negative "I" run gemm.mdh --size I=-1,J=8,K=8
  bad size-not-a-number "I" run gemm.mdh --size I=abc,J=8,K=8
  bad size-too-large "I" run gemm.mdh --size I=99999999999999999999,J=8,K=8
  bad size-missing "K" run gemm.mdh --size I=8,J=8
  bad size-unknown "Q" run gemm.mdh --size I=8,J=8,K=8,Q=3
  bad size-reference-huge "buffer A" run gemm.mdh --size I=1000000,J=1000000,K=1000000 --reference

  # --- params
  bad param-not-a-number "alpha" run scaled.mdh --size I=8 --param alpha=abc
  bad param-overflow "alpha" run scaled.mdh --size I=8 --param alpha=1e400
  bad param-missing "alpha" run scaled.mdh --size I=8
  bad param-unknown "beta" run scaled.mdh --size I=8 --param alpha=1 --param beta=2
  # In a tuning run: refused before it starts, not in each of its 200 evaluations.
  bad tune-param-not-a-number "param 'alpha' is a float: 'abc' is not a number" tune scaled.mdh --size I=8 \
    --param alpha=abc --out o22.json --journal j22.jsonl
  bad tune-size-beyond-memory "more than" tune gemm.mdh --size I=65536,J=65536,K=65536 --out o23.json --journal j23.jsonl
  good param-underflow-is-a-tiny-number run scaled.mdh --size I=8 --param alpha=1e-400 --verify --repeat 1

  # --- .npy and .bin inputs
  mkdir dir.npy
  bad npy-directory "dir.npy" run "${G[@]}" --input A=dir.npy
  ln -s /dev/zero zero.npy
  bad npy-dev-zero "zero.npy" run "${G[@]}" --input A=zero.npy
  bad npy-missing "missing.npy" run "${G[@]}" --input A=missing.npy
  printf 'hello' >garbage.npy
  bad npy-garbage "garbage.npy" run "${G[@]}" --input A=garbage.npy
  npy_file dtype.npy '<f8' '(8, 8)' 512
  bad npy-dtype "dtype.npy" run "${G[@]}" --input A=dtype.npy
  npy_file shape.npy '<f4' '(8, 9)' 288
  bad npy-shape "shape.npy" run "${G[@]}" --input A=shape.npy
  npy_file short.npy '<f4' '(8, 8)' 100
  bad npy-truncated-data "short.npy" run "${G[@]}" --input A=short.npy
  npy_file huge-shape.npy '<f4' '(99999999999999, 8)' 0
  bad npy-huge-shape "huge-shape.npy" run "${G[@]}" --input A=huge-shape.npy
  head -c 20 short.npy >torn.npy
  bad npy-torn-header "torn.npy" run "${G[@]}" --input A=torn.npy
  printf '\x93NUMPY\x02\x00\xff\xff\xff\xff{' >bighdr.npy
  bad npy-header-length "bighdr.npy" run "${G[@]}" --input A=bighdr.npy
  bad npy-output-as-input "C" run "${G[@]}" --input C=short.npy
  head -c 10 /dev/zero >small.bin
  bad bin-size "small.bin" run "${G[@]}" --input A=small.bin

  # --- configurations
  mkdir dir.json
  bad config-directory "dir.json" generate "${G[@]}" --config dir.json
  ln -s /dev/zero zero.json
  bad config-dev-zero "zero.json" generate "${G[@]}" --config zero.json
  printf '{"NUM_WG_i": ' >torn.json
  bad config-invalid-json "torn.json" generate "${G[@]}" --config torn.json
  { head -c 200000 /dev/zero | tr '\0' '['; } >deep.json
  bad config-deep-json "deep.json" generate "${G[@]}" --config deep.json
  printf '{"LT_SIZE_i": 18446744073709551615}' >wide.json
  bad config-2-to-the-64 "wide.json" generate "${G[@]}" --config wide.json
  printf '{"ORDER_OCL_G_i": 4294967297}' >wide32.json
  bad config-missing-parameters "wide32.json" generate "${G[@]}" --config wide32.json
  printf '{"mdh_config": 1e300}' >version.json
  bad config-float-version "version.json" generate "${G[@]}" --config version.json
  printf '[1, 2, 3]' >array.json
  bad config-not-an-object "array.json" generate "${G[@]}" --config array.json
  # Well-formed but nested deeper than any reader should recurse: refused before it is parsed.
  nest() { head -c 100000 /dev/zero | tr '\0' "$1"; }
  { printf '{"NUM_WG_i": '; nest '['; nest ']'; printf '}'; } >nested.json
  bad config-nested-json "nested.json" generate "${G[@]}" --config nested.json
  bad start-nested-json "nested.json" tune "${G[@]}" --start nested.json --evals 1 --out o13.json
  # In the store of tuned results it is passed over, and the run goes on.
  slug=$("$mdh" devices --slug "")
  mkdir -p store/"$slug"
  { printf '{"md_hom": "gemm", "config": '; nest '['; nest ']'; printf '}'; } >store/"$slug"/gemm-nested.json
  good store-nested-result run "${G[@]}" --tuned-results store
  # FIFOs nobody writes to: a message, not a wait without end.
  mkfifo fifo.mdh fifo.json fifo.npy
  bad spec-fifo "fifo.mdh" check fifo.mdh
  bad config-fifo "fifo.json" generate "${G[@]}" --config fifo.json
  bad input-fifo "fifo.npy" run "${G[@]}" --input A=fifo.npy

  # --- kernels of user code that crash or never return: a clear error from the watching process, not a crash of
  # mdh or a wait without end (the sanitizers' own SEGV handler would report the kernel's crash as mdh's)
  cat >crash.mdh <<'EOF'
md_hom crash
size I
input A : float[I]
output B : float[I]
view (i < I) : A[i] -> B[i]
scalar (a) { volatile float big[50000000]; big[i * 1000] = a; return big[i * 1000 + 1]; }
combine (++)
EOF
  sed -e 's/md_hom crash/md_hom forever/' -e 's/^scalar.*/scalar (a) { volatile int k = 0; while (k >= 0) { k = 1; } return a; }/' \
    crash.mdh >forever.mdh
  for name in crash forever; do
    cases=$((cases + 1))
    before=$(snapshot)
    start=$(date +%s)
    ASAN_OPTIONS="$ASAN_OPTIONS:handle_segv=0" timeout -s KILL 120 "$mdh" run $name.mdh --size I=64 --time-limit 5 \
      >$name.out 2>&1
    status=$?
    needle="most likely in a kernel"
    [ $name = forever ] && needle="stopped after 5 s (--time-limit)"
    check_outcome "run-kernel-$name" $status "$needle" $name.out "$before"
    (($(date +%s) - start <= 30)) || fail "run-kernel-$name" "took $(($(date +%s) - start)) s"
    rm -f $name.out
  done

  # --- standard output that cannot be written: an error, not exit 0 with the output lost
  for command in "check gemm.mdh" "generate ${G[*]}" "space ${G[*]}" "devices"; do
    cases=$((cases + 1))
    # shellcheck disable=SC2086
    timeout -s KILL 300 "$mdh" $command >/dev/full 2>stdout-full.out
    status=$?
    check_outcome "stdout-full-${command%% *}" "$status" "cannot write to standard output" stdout-full.out ""
    # shellcheck disable=SC2086
    timeout -s KILL 300 "$mdh" $command >&- 2>stdout-closed.out
    status=$?
    check_outcome "stdout-closed-${command%% *}" "$status" "cannot write to standard output" stdout-closed.out ""
    rm -f stdout-full.out stdout-closed.out
  done

  # --- sizes beyond the device or the host: refused before any data is made (a 17 GB input would take minutes)
  start=$(date +%s)
  bad size-beyond-memory "more than" run gemm.mdh --size I=65536,J=65536,K=65536
  (($(date +%s) - start <= 20)) || fail size-beyond-memory "refusing the sizes took $(($(date +%s) - start)) s"

  # --- options
  bad option-timeout-floor-nan "--timeout-floor" tune "${G[@]}" --timeout-floor nan --out o1.json
  bad option-timeout-floor-negative "--timeout-floor" tune "${G[@]}" --timeout-floor -5 --out o2.json
  bad option-budget-nan "--budget" tune "${G[@]}" --budget nan --out o3.json
  bad option-budget-inf "--budget" tune "${G[@]}" --budget inf --out o4.json
  bad option-cut-factor-nan "--cut-factor" tune "${G[@]}" --cut-factor nan --out o5.json
  bad option-compile-threads-negative "--compile-threads" tune "${G[@]}" --compile-threads -1 --out o6.json
  bad option-repeat-zero "--repeat" run "${G[@]}" --repeat 0
  bad option-tune-repeat-zero "--repeat must be at least 1" tune "${G[@]}" --repeat 0 --out o10.json
  bad option-tune-warmup-negative "--warmup must not be negative" tune "${G[@]}" --warmup -1 --out o11.json
  bad option-tune-finalists-negative "--finalists must be 0 or more" tune "${G[@]}" --finalists -1 --out o12.json
  bad option-evals-not-a-number "evals" tune "${G[@]}" --evals many --out o7.json
  bad option-evals-negative "--evals '-1': expected a count" tune "${G[@]}" --evals -1 --out o14.json
  bad option-evals-huge "--evals '18446744073709551615': expected a count" tune "${G[@]}" --evals 18446744073709551615 \
    --out o15.json
  bad option-abort-count-2-to-the-64 "count 18446744073709551616 is above" tune "${G[@]}" \
    --abort 'evaluations(18446744073709551616)' --out o16.json
  bad option-abort-deep-nesting "nested deeper than" tune "${G[@]}" \
    --abort "$(head -c 60000 /dev/zero | tr '\0' '(')valid(1)$(head -c 60000 /dev/zero | tr '\0' ')')" --out o17.json
  # No configuration evaluated: the summary says why, not "see the journal for the reasons" of an empty journal.
  bad tune-evals-zero "no configuration was evaluated" tune "${G[@]}" --evals 0 --out o18.json --journal j18.jsonl
  # Every candidate fails to compile (the reference, which defines the sizes first, compiles): the first compiler
  # error is said, not only "see the journal".
  sed -e 's/md_hom scaled/md_hom refused/' -e 's/^param alpha : float$/helper {\n#ifndef I\n#error the tunable kernel is refused\n#endif\n}/' \
    -e 's/alpha \* a/a/' scaled.mdh >refused.mdh
  bad tune-every-compile-fails "refused.mdh:5:2: error: the tunable kernel is refused" tune refused.mdh --size I=16 \
    --evals 2 --compile-threads 1 --out o24.json --journal j24.jsonl
  # A temporary folder that is missing or a file: a user error naming TMPDIR, not an internal one.
  TMPDIR="$work/no-such-folder" bad tmpdir-missing "TMPDIR='$work/no-such-folder' is not a folder" \
    tune "${G[@]}" --evals 1 --out o19.json --journal j19.jsonl
  : >tmpdir-file
  TMPDIR="$work/tmpdir-file" bad tmpdir-is-a-file "TMPDIR='$work/tmpdir-file' is not a folder" \
    tune "${G[@]}" --evals 1 --out o20.json --journal j20.jsonl
  bad option-resume-and-force "--resume" tune "${G[@]}" --resume --force --out o8.json

  # --- output paths
  bad output-generate-over-spec "gemm.mdh" generate "${G[@]}" -o gemm.mdh
  bad output-launch-over-spec "gemm.mdh" generate "${G[@]}" --launch ./gemm.mdh
  cp "$source_dir/examples/configs/gemm1024-simple.json" cfg.json
  bad output-generate-over-config "cfg.json" generate gemm.mdh --size I=1024,J=1024,K=1024 --config cfg.json -o cfg.json
  bad output-launch-over-kernel "k.cl" generate "${G[@]}" -o k.cl --launch k.cl
  bad output-tune-out-over-spec "gemm.mdh" tune "${G[@]}" --out gemm.mdh
  bad output-tune-journal-over-spec "gemm.mdh" tune "${G[@]}" --journal gemm.mdh --out o9.json
  bad output-tune-out-is-journal "same.json" tune "${G[@]}" --journal same.json --out same.json
  bad output-tune-journal-over-start "start configuration 'cfg.json'" tune "${G[@]}" --force --start cfg.json \
    --journal cfg.json --out o21.json
  bad output-tune-out-over-start "start configuration 'cfg.json'" tune "${G[@]}" --start cfg.json --out cfg.json \
    --journal j21.jsonl
  ln -s gemm.mdh link.json
  bad output-tune-out-links-to-spec "link.json" tune "${G[@]}" --out link.json
  bad output-tune-out-missing-folder "no-such-dir" tune "${G[@]}" --out no-such-dir/best.json
  bad output-tune-out-directory "dir.json" tune "${G[@]}" --out dir.json --journal j10.jsonl
  npy_file a.npy '<f4' '(8, 8)' 256
  good npy-valid run "${G[@]}" --input A=a.npy
  bad output-run-over-input "a.npy" run "${G[@]}" --input A=a.npy --output C=a.npy
  bad output-run-over-spec "gemm.mdh" run "${G[@]}" --output C=gemm.mdh
fi

if [ "$group" = journals ]; then
  # A journal of this very run (same spec, sizes, device, search), recorded by a short tune, then damaged.
  "$mdh" tune "${G[@]}" --evals 3 --compile-threads 0 --out good.json --journal good.jsonl >/dev/null 2>&1 ||
    fail journal-setup "the short tune that records a journal failed"
  rm -f good.json
  # tune_resume NAME JOURNAL [NEEDLE]: resuming JOURNAL fails naming NEEDLE (default: the journal)
  tune_resume() { bad "$1" "${3:-$2}" tune "${G[@]}" --evals 6 --compile-threads 0 --resume --journal "$2" --out "$1.json"; }
  mkdir dir.jsonl
  tune_resume journal-directory dir.jsonl
  ln -s /dev/zero zero.jsonl
  tune_resume journal-dev-zero zero.jsonl
  : >empty.jsonl
  tune_resume journal-empty empty.jsonl
  printf 'garbage\n' >garbage.jsonl
  tune_resume journal-garbage garbage.jsonl
  { head -n 1 good.jsonl; printf 'garbage\n'; tail -n +2 good.jsonl; } >middle.jsonl
  tune_resume journal-corrupt-middle middle.jsonl
  { head -n 1 good.jsonl; sed -n 2p good.jsonl | sed 's/"status":"[a-z_]*"/"status":"fine"/'; tail -n +3 good.jsonl; } >status.jsonl
  tune_resume journal-unknown-status status.jsonl
  sed '1s/"seed":[0-9]*/"seed":1e300/' good.jsonl >seed.jsonl
  tune_resume journal-float-seed seed.jsonl
  sed '1s/"spec_hash":"[0-9a-f]*"/"spec_hash":"0123456789abcdef"/' good.jsonl >hash.jsonl
  tune_resume journal-other-spec hash.jsonl
  sed '1s/"sizes":"[^"]*"/"sizes":"I=9,J=8,K=8"/' good.jsonl >sizes.jsonl
  tune_resume journal-other-sizes sizes.jsonl
  { head -n 1 good.jsonl; sed -n 3p good.jsonl; } >order.jsonl
  tune_resume journal-evaluations-out-of-order order.jsonl
  # Records that are complete lines with a bad field: an error naming the line wherever they stand, the file unchanged
  # (a complete last line was cut off as if torn). A negative or infinite cost became the run's best.
  ok_line=$(grep -n '"status":"ok"' good.jsonl | head -n 1 | cut -d: -f1)
  [ -n "$ok_line" ] || fail journal-setup "the short tune recorded no valid evaluation"
  damaged() { # damaged FILE SED: the journal's first valid record changed by SED, as the last line
    { head -n "$((ok_line - 1))" good.jsonl; sed -n "${ok_line}p" good.jsonl | sed "$2"; } >"$1"
  }
  damaged negative.jsonl 's/"cost":[^,]*/"cost":-1000.0/'
  tune_resume journal-negative-cost negative.jsonl "negative.jsonl' line $ok_line is corrupt: 'cost' is negative"
  damaged infinite.jsonl 's/"cost":[^,]*/"cost":1e400/'
  tune_resume journal-infinite-cost infinite.jsonl "infinite.jsonl' line $ok_line is corrupt"
  damaged stringcost.jsonl 's/"cost":\([^,]*\)/"cost":"\1"/'
  tune_resume journal-last-line-string-cost stringcost.jsonl \
    "stringcost.jsonl' line $ok_line is corrupt: 'cost' is not a number"
  damaged noconfig.jsonl 's/"config":{[^}]*},//'
  tune_resume journal-last-line-no-config noconfig.jsonl "noconfig.jsonl' line $ok_line is corrupt"
  damaged first-part.txt 's/"cost":[^,]*/"cost":-1/'
  { cat first-part.txt; tail -n +"$((ok_line + 1))" good.jsonl; } >middle-negative.jsonl
  rm -f first-part.txt
  tune_resume journal-middle-negative-cost middle-negative.jsonl \
    "middle-negative.jsonl' line $ok_line is corrupt: 'cost' is negative"
  # A record nested deeper than any reader should recurse: refused before it is parsed, naming its line.
  damaged nested.jsonl "s/\"config\":{/\"config\":{\"deep\":$(head -c 5000 /dev/zero | tr '\0' '[')$(head -c 5000 /dev/zero | tr '\0' ']'),/"
  tune_resume journal-nested-record nested.jsonl "nested.jsonl' line $ok_line is corrupt: nested deeper than 64 levels"
  # A header window of 10^15 asked ahead without end; a window of 0 would ask nothing.
  sed '1s/"window":[0-9]*/"window":1000000000000000/' good.jsonl >window.jsonl
  tune_resume journal-huge-window window.jsonl "window.jsonl' line 1 is corrupt: 'window' 1000000000000000"
  sed '1s/"window":[0-9]*/"window":0/' good.jsonl >window0.jsonl
  tune_resume journal-zero-window window0.jsonl "window0.jsonl' line 1 is corrupt: 'window' 0"
  # An existing journal is not replaced without --resume or --force (it was cut to its first lines before).
  bad journal-exists "good.jsonl" tune "${G[@]}" --evals 1 --journal good.jsonl --out o.json
fi

# --- faults
if [ "$group" = faults ]; then
  # A kernel that never returns: the reference (computed by each worker before its first evaluation) spins.
  cat >spin.mdh <<'EOF'
md_hom spin
size I
input A : float[I]
output B : float[I]
helper {
float spin(float a) { volatile int k = 0; while (k == 0) { } return a; }
}
view (i < I) : A[i] -> B[i]
scalar (a) = spin(a)
combine (++)
EOF
  S=(spin.mdh --size I=4 --timeout-floor 300)
  children_of() { # the child processes of $1, from /proc (no procps needed)
    local stat pid comm state ppid rest
    for stat in /proc/[0-9]*/stat; do
      read -r pid comm state ppid rest <"$stat" 2>/dev/null || continue
      [ "$ppid" = "$1" ] && echo "$pid"
    done
  }
  # wait_for_children PID: until the tuner has started its workers (at most 60 s)
  wait_for_children() {
    for _ in $(seq 600); do
      [ -n "$(children_of "$1")" ] && return 0
      sleep 0.1
    done
    return 1
  }
  alive() { for pid in "$@"; do kill -0 "$pid" 2>/dev/null && return 0; done; return 1; }
  wait_gone() { # wait_gone SECONDS PID...: whether all are gone within SECONDS
    local limit=$(($1 * 10))
    shift
    for _ in $(seq "$limit"); do alive "$@" || return 0; sleep 0.1; done
    return 1
  }

  # 1. kill -9 of the tuner while its worker hangs: the workers die with it (issue 15 item 6).
  cases=$((cases + 1))
  "$mdh" tune "${S[@]}" --out k9.json --journal k9.jsonl >k9.out 2>&1 &
  tuner=$!
  if wait_for_children $tuner; then
    sleep 1
    workers=$(children_of $tuner)
    kill -9 $tuner
    wait $tuner 2>/dev/null
    # shellcheck disable=SC2086
    wait_gone 5 $workers || fail kill-9-orphans "workers $workers still run 5 s after kill -9 of the tuner"
    # shellcheck disable=SC2086
    kill -9 $workers 2>/dev/null
  else
    fail kill-9-orphans "the tuner started no worker"
    kill -9 $tuner 2>/dev/null
  fi

  # 2. SIGTERM and SIGINT while a worker hangs: the run stops within 10 s with a valid journal and no worker left.
  # SIGHUP (a closed terminal) as the others: it killed the tuner and left its workers and temporary files.
  for signal in TERM INT HUP; do
    cases=$((cases + 1))
    "$mdh" tune "${S[@]}" --out sig.json --journal "sig-$signal.jsonl" >"sig-$signal.out" 2>&1 &
    tuner=$!
    if wait_for_children $tuner; then
      sleep 1
      workers=$(children_of $tuner)
      start=$(date +%s)
      kill -s "$signal" $tuner
      wait_gone 10 $tuner || fail "sig$signal-prompt" "the tuner still runs 10 s after SIG$signal"
      wait $tuner
      status=$?
      [ $status -le 2 ] || fail "sig$signal-status" "exit status $status after SIG$signal: $(head -c 1000 "sig-$signal.out")"
      # shellcheck disable=SC2086
      wait_gone 5 $workers || fail "sig$signal-workers" "workers $workers outlive the tuner"
      head -n 1 "sig-$signal.jsonl" | grep -q '"mdh_tuner_journal"' || fail "sig$signal-journal" "no journal header"
      [ -z "$(tail -c 1 "sig-$signal.jsonl")" ] || fail "sig$signal-journal" "the journal ends in a torn line"
      echo "SIG$signal: stopped in $(($(date +%s) - start)) s"
    else
      fail "sig$signal" "the tuner started no worker"
    fi
    kill -9 $tuner 2>/dev/null
  done

  # 3. Two tuners on one journal: the second fails (locked), with or without --force and --resume, changing nothing.
  cases=$((cases + 1))
  "$mdh" tune "${S[@]}" --out two.json --journal two.jsonl >two.out 2>&1 &
  tuner=$!
  if wait_for_children $tuner; then
    bad second-tuner-force "two.jsonl" tune "${S[@]}" --out two-b.json --journal two.jsonl --force
    bad second-tuner-resume "two.jsonl" tune "${S[@]}" --out two-b.json --journal two.jsonl --resume
    bad second-tuner-plain "two.jsonl" tune "${S[@]}" --out two-b.json --journal two.jsonl
  else
    fail two-tuners "the first tuner started no worker"
  fi
  kill -s TERM $tuner
  wait $tuner

  # 3b. Temporary folders that runs killed with SIGKILL left (their process is gone) are removed when a run starts;
  # those of a live process stay. A --binary-cache folder's neighbour PATH.request.json is the user's: it was
  # overwritten and deleted.
  cases=$((cases + 1))
  mkdir -p tmp
  sh -c 'exit 0' &
  dead=$!
  wait $dead
  mkdir -p tmp/mdh-kernels-$dead tmp/mdh-nvidia-compute-cache-$dead tmp/mdh-kernels-$$ tmp/mdh-kernels-x$dead
  : >tmp/mdh-reference-$dead
  : >tmp/mdh-reference-$dead.partial-1
  : >tmp/mdh-request-$dead.json
  printf 'the user'"'"'s file\n' >cache.request.json
  TMPDIR="$work/tmp" "$mdh" tune "${G[@]}" --evals 1 --compile-threads 0 --binary-cache cache --out stale.json \
    --journal stale.jsonl >stale.out 2>&1 || fail stale-temporaries "the tune failed: $(head -c 1000 stale.out)"
  left=$(cd tmp && ls -d mdh-*-$dead* 2>/dev/null)
  [ -z "$left" ] || fail stale-temporaries "the dead run's files are left: $left"
  [ -d tmp/mdh-kernels-$$ ] || fail stale-temporaries "the folder of a live process was removed"
  [ -d tmp/mdh-kernels-x$dead ] || fail stale-temporaries "a folder of another name was removed"
  [ "$(cat cache.request.json 2>/dev/null)" = "the user's file" ] ||
    fail binary-cache-neighbour "the user's cache.request.json was changed or removed"
  rm -r tmp/mdh-kernels-$$ tmp/mdh-kernels-x$dead
  [ -z "$(find tmp -mindepth 1)" ] || fail stale-temporaries "the run left files: $(find tmp -mindepth 1)"
  rm -rf tmp

  # 4. A full disk under the journal (a file-size limit): a clean error naming the journal, the temporary kernel
  # folder removed (issue 15 items 1, 12). The ignored SIGXFSZ makes writes fail with EFBIG instead of killing.
  cases=$((cases + 1))
  before=$(snapshot)
  (
    trap '' XFSZ
    ulimit -f 6
    exec "$mdh" tune "${G[@]}" --evals 40 --compile-threads 1 --journal full.jsonl --out full.json >full.out 2>&1
  ) &
  tuner=$!
  wait $tuner
  status=$?
  check_outcome full-disk $status "full.jsonl" full.out "$before"
  [ ! -e "${TMPDIR:-/tmp}/mdh-kernels-$tuner" ] || fail kernel-folder-leak "${TMPDIR:-/tmp}/mdh-kernels-$tuner is left"

  # 4b. A full disk under an output that exists: the previous file stays whole, no temporary file is left beside it.
  # (KB of the limit:command:options; the run's limit lets PoCL's kernel cache through, not its 4 MB output)
  for output in "6:generate:--size I=64,J=64,K=8 -o prev.cl" "1024:run:--size I=1024,J=1024,K=1 --output C=prev.npy"; do
    limit=${output%%:*} output=${output#*:}
    cases=$((cases + 1))
    printf 'the previous output\n' >prev.cl
    cp prev.cl prev.npy
    before=$(snapshot)
    # shellcheck disable=SC2086
    (
      trap '' XFSZ
      ulimit -f "$limit"
      exec "$mdh" ${output%%:*} gemm.mdh ${output#*:} >prev.out 2>&1
    )
    status=$?
    check_outcome "full-disk-${output%%:*}-output" $status "prev." prev.out "$before"
    ls -a | grep -q '\.mdh-.*\.tmp$' && fail "full-disk-${output%%:*}-output" "a temporary file is left: $(ls -a)"
    rm -f prev.out prev.cl prev.npy
  done

  # 5. A compile that never ends (a helper including /dev/stdin) stops with the time budget (issue 15 item 7).
  cases=$((cases + 1))
  cat >stdin.mdh <<'EOF'
md_hom stdin
size I
input A : float[I]
output B : float[I]
helper {
#include "/dev/stdin"
}
view (i < I) : A[i] -> B[i]
scalar (a) = a
combine (++)
EOF
  start=$(date +%s)
  timeout -s KILL 120 "$mdh" tune stdin.mdh --size I=4 --budget 10s --timeout-floor 5 --out stdin.json \
    --journal stdin.jsonl </dev/null >stdin.out 2>&1
  status=$?
  seconds=$(($(date +%s) - start))
  [ $seconds -le 25 ] || fail budget-compile "a 10 s budget took $seconds s"
  [ $status -le 2 ] || fail budget-compile "exit status $status: $(head -c 1000 stdin.out)"
  echo "budget 10 s with a hanging compile: $seconds s"

  # 6. A huge spec (4.7 MB of helper functions, each build taking minutes and gigabytes in the compiler) stops with
  # a 5 s budget: before the compiles moved to killable workers it ran 175 s and reached 2.8 GB.
  cases=$((cases + 1))
  {
    printf 'md_hom huge\nsize I\ninput A : float[I]\noutput B : float[I]\nhelper {\n'
    seq 0 99999 | awk '{ printf "float f%d(float a) { return a + %d.0f; }\n", $1, $1 }'
    printf '}\nview (i < I) : A[i] -> B[i]\nscalar (a) = f7(a)\ncombine (++)\n'
  } >huge.mdh
  start=$(date +%s)
  timeout -s KILL 300 "$mdh" tune huge.mdh --size I=1024 --budget 5s --out huge.json --journal huge.jsonl >huge.out 2>&1
  status=$?
  seconds=$(($(date +%s) - start))
  [ $seconds -le 20 ] || fail budget-huge-spec "a 5 s budget took $seconds s"
  [ $status -le 2 ] || fail budget-huge-spec "exit status $status: $(head -c 1000 huge.out)"
  echo "budget 5 s with a 4.7 MB spec: $seconds s"
fi

echo "$group: $cases cases, $failures failures"
[ $failures -eq 0 ]
