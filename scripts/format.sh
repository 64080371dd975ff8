#!/usr/bin/env bash
# clang-format over every tracked C++ source with the checked-in .clang-format.
#   scripts/format.sh           rewrites the files in place
#   scripts/format.sh --check   changes nothing; lists each deviation and exits 1 if there is one (scripts/test.sh)
# Left out: OpenCL C (.cl: generated kernels, golden files, reproducers) and everything under tests/repro/, which
# are evidence kept byte for byte, not sources we format.
set -euo pipefail
cd "$(dirname "$0")/.."

git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "format.sh: needs a git checkout (git ls-files)" >&2; exit 2; }
mapfile -t sources < <(git ls-files -- '*.cpp' '*.h' '*.hpp' '*.cu' ':!:tests/repro/**')

case ${1:-} in
  "") clang-format -i --style=file "${sources[@]}" ;;
  --check)
    # clang-format prints every deviation with its source line; the list of files is what a reader needs here.
    deviations=$(clang-format --dry-run --Werror --style=file "${sources[@]}" 2>&1) && status=0 || status=$?
    if ((status != 0)); then
      files=$(grep -oE '^[^: ]+:[0-9]+:[0-9]+: error' <<<"$deviations" | cut -d: -f1 | sort -u)
      [[ -n $files ]] || { echo "$deviations" >&2; exit "$status"; }  # not a deviation: clang-format itself failed
      echo "format: $(wc -l <<<"$files") of ${#sources[@]} sources differ from .clang-format:" >&2
      sed 's/^/  /' <<<"$files" >&2
      echo "format: run  bash scripts/format.sh  (or clang-format -i FILE) and commit the result" >&2
      exit 1
    fi
    echo "format: ${#sources[@]} sources follow .clang-format"
    ;;
  *) echo "usage: scripts/format.sh [--check]" >&2; exit 2 ;;
esac
