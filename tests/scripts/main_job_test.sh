#!/usr/bin/env bash
# The main job (scripts/main.sh) at test size, as a user runs it (default results folder) in a copy of this checkout
# (a clone with the working tree's changes committed): it says which case of how many it is at, prints this device's
# tables only, ends with the paths of its files, makes the plots, and leaves the checkout exactly as it found it (no
# tracked file rewritten, nothing left that git does not ignore). Usage: main_job_test.sh SOURCE_DIR BIN_DIR
set -euo pipefail
source_dir=$1 bin_dir=$2
if ! git -C "$source_dir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "not a git checkout: nothing to compare the tree against"
  exit 77 # CTest: skipped
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/mdh-main-job-test.XXXXXX")
trap '[[ -n ${MDH_KEEP_MAIN_JOB_TEST:-} ]] || rm -rf "$work"' EXIT
fail() {
  echo "FAILED: $*"
  echo "--- main job output:"
  cat "$work/log"
  exit 1
}
touch "$work/log"

# The copy: the committed tree plus the working tree's changes, committed there, so that it starts clean.
checkout=$work/checkout
git clone -q --shared "$source_dir" "$checkout"
(cd "$source_dir" && git ls-files -z --modified --others --exclude-standard) | while IFS= read -r -d '' f; do
  mkdir -p "$checkout/$(dirname "$f")"
  cp -p "$source_dir/$f" "$checkout/$f"
done
(cd "$source_dir" && git ls-files -z --deleted) | while IFS= read -r -d '' f; do rm -f "$checkout/$f"; done
git -C "$checkout" add -A
git -C "$checkout" -c user.name=test -c user.email=test@example.invalid commit -qm "working tree" --allow-empty
[[ -z $(git -C "$checkout" status --porcelain --untracked-files=all) ]] || fail "the copy does not start clean"

(cd "$checkout" && MDH_BIN=$bin_dir bash scripts/main.sh --experiments tests/data/experiments.main-job-test.json) \
  >"$work/log" 2>&1 || fail "scripts/main.sh exited with $?"
changes=$(git -C "$checkout" status --porcelain --untracked-files=all)
[[ -z $changes ]] || fail "the main job changed the checkout: $changes"

slug=$("$bin_dir/mdh" devices --slug "")
folder=local-results/$slug
for line in "tune case 1 of 2: dot test (K=65536)" "tune case 2 of 2: gemv test (I=64,K=128)" \
  "benchmark case 2 of 2: gemv test (I=64,K=128)" "## $slug" "The files of this device ($folder):"; do
  grep -qF -- "$line" "$work/log" || fail "no line '$line'"
done
# Only this device's tables: no other device folder's heading (results/ holds several).
[[ $(grep -c '^## ' "$work/log") == 1 ]] || fail "tables of more than one device printed"
grep -q -- "--device ''\|--device  " "$work/log" && fail "a command with an empty --device"
# A peer that cannot run here is a note under the table, not a row that reads like a failure.
grep -q '^| .*cublas' "$work/log" && fail "cublas printed as a table row"
grep -q '^Peers that cannot run on this machine (not failures of mdh): cublas' "$work/log" ||
  fail "no note on the peer that cannot run here"
# The job ends with the file list, and every path in it exists.
tail -n 12 "$work/log" | grep -q "The files of this device" || fail "the output does not end with the file list"
for f in tables.md benchmark.csv benchmark.json speedup.png tuning-dot-test.png tuning-gemv-test.png dot-test.json \
  dot-test.json.journal; do
  [[ -s $checkout/$folder/$f ]] || fail "$folder/$f missing or empty"
  grep -qF "$folder/$f" "$work/log" || [[ $f == tuning-* || $f == *-test.json* ]] || fail "$f not listed"
done
# Nothing committed was written: no device folder under results/ or tuned/ gained a file.
[[ -z $(git -C "$checkout" ls-files --others results tuned) ]] || fail "files written under results/ or tuned/"
echo "main job at test size: checkout unchanged, this device's tables only, file list at the end"
