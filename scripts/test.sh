#!/usr/bin/env bash
# Runs the CI test suite (everything except the `soak` label) on the default OpenCL device; then builds the CLI alone
# a second time with AddressSanitizer and UndefinedBehaviorSanitizer (build-asan/, the mdh target only) and runs the
# hostile-input suite (tests/hostile/) with it; then checks that the C++ sources follow .clang-format. All run; the
# exit status is non-zero if any fails.
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
status=0
failed=()
ctest --test-dir build --output-on-failure -LE soak -j "$jobs" --timeout 900 || { status=1; failed+=("CTest suite"); }

# -O1 keeps the sanitizer build quick to compile and the suite quick to run; no test programs are built.
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
mkdir -p build-asan
# The build's output goes to build-asan/build.log (GCC's instrumentation adds false -Wmaybe-uninitialized notes).
if cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=None -DMDH_BUILD_TESTS=OFF "${launcher[@]}" \
  -DCMAKE_CXX_FLAGS="-O1 $sanitize" -DCMAKE_EXE_LINKER_FLAGS="$sanitize" >build-asan/build.log 2>&1 &&
  cmake --build build-asan --target mdh -j "$jobs" >>build-asan/build.log 2>&1; then
  for group in inputs journals faults; do
    bash tests/hostile/run_hostile.sh build-asan/bin/mdh . "$group" || { status=1; failed+=("hostile $group (sanitizers)"); }
  done
else
  tail -n 50 build-asan/build.log
  echo "the sanitizer build of mdh failed (build-asan/build.log)"
  status=1
  failed+=("sanitizer build")
fi

bash scripts/format.sh --check || { status=1; failed+=("format"); }

# The summary last, where a failure cannot scroll away behind the later steps' output.
if ((status)); then
  echo
  echo "FAILED: ${failed[*]}"
  if [[ ${failed[0]} == "CTest suite" && -f build/Testing/Temporary/LastTestsFailed.log ]]; then
    echo "failed tests (ctest --test-dir build --rerun-failed --output-on-failure to see them again):"
    sed 's/^[0-9]*:/  /' build/Testing/Temporary/LastTestsFailed.log
  fi
else
  echo "all passed: the CTest suite, the hostile inputs under the sanitizers, the format check"
fi
exit $status
