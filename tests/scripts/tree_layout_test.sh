#!/usr/bin/env bash
# The product stays apart from its lab notebook: the store under tuned/ holds results and compressed journals only,
# results/ holds each device's current table and nothing else, no measuring program lives among them, and no file
# names a numbered run (measurements are named by date and purpose, docs/decisions.md).
# Usage: tree_layout_test.sh SOURCE_DIR
set -uo pipefail
cd "$1" || exit 1
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files=$(git ls-files)
else
  files=$(find . -path ./.git -prune -o -path './build*' -prune -o -type f -print | sed 's|^\./||')
fi
status=0
fail() {
  echo "FAILED: $1"
  sed 's/^/    /'
  status=1
}

grep -E '^tuned/' <<<"$files" | grep -vE '^tuned/README\.md$|^tuned/[^/]+/[^/]+\.json(\.journal\.gz)?$' |
  grep . && fail "files in tuned/ that are neither a result (.json) nor a compressed journal (.json.journal.gz)" </dev/null
grep -E '^results/' <<<"$files" |
  grep -vE '^results/(README\.md|portability\.md)$|^results/[^/]+/(tables\.md|benchmark\.(csv|json)|speedup\.png|tuning-[^/]+\.png)$|^results/[^/]+/records/[^/]+\.(json|log)$|^results/[^/]+/clblast/' |
  grep . && fail "files in results/ that are not part of a device's current table" </dev/null
grep -E '^(results|tuned)/.*\.(c|cc|cpp|cu|h|py|sh)$' <<<"$files" | grep . &&
  fail "programs among the results: a measurement worth keeping becomes a tool in the tree" </dev/null
named=$(grep -vE '^tests/scripts/tree_layout_test\.sh$' <<<"$files" | grep -E '\.(cpp|h|hpp|cl|py|sh|md|txt|json|cmake)$|CMakeLists' |
  tr '\n' '\0' | xargs -0 grep -nIiE '\bsessions? ?[0-9]+\b|/session[0-9]' 2>/dev/null | head -20)
[[ -n $named ]] && fail "lines that name numbered runs instead of a date and purpose:" <<<"$named"
exit $status
