#!/usr/bin/env bash
# Every test CTest lists has a readable name: parameterised tests name their parameters (name generators, PrintTo)
# instead of GoogleTest's raw bytes ("# GetParam() = 120-byte object <B0-20 ...>"), and no list line is longer than
# 160 characters. Usage: test_names_test.sh BUILD_DIR
set -euo pipefail
list=$(ctest --test-dir "$1" -N)
status=0
if grep -E 'byte object <' <<<"$list"; then
  echo "FAILED: the tests above print a parameter as raw bytes; give its type a PrintTo or the suite a name generator"
  status=1
fi
if awk 'length($0) > 160' <<<"$list" | grep .; then
  echo "FAILED: the test list lines above are longer than 160 characters"
  status=1
fi
(($(grep -c 'Test *#' <<<"$list") > 100)) || { echo "FAILED: ctest -N listed too few tests:"; echo "$list"; exit 1; }
exit $status
