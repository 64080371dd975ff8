#!/usr/bin/env bash
# The result plots (scripts/experiments.py print) on the synthetic results of tests/data/results-with-limits/: the
# "% of limit" columns and a second plot panel beside the speedups when benchmark.csv has the percent_of_limit column,
# one panel without it; peers that cannot run here as a note; every gnuplot terminal without enhanced text (which
# would turn the `_` of names into subscripts). Usage: plots_test.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
command -v gnuplot >/dev/null || { echo "gnuplot is not installed"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/mdh-plots-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAILED: $*"
  exit 1
}
png_width() { python3 -c "import struct,sys; d=open(sys.argv[1],'rb').read(24); print(struct.unpack('>I', d[16:20])[0])" "$1"; }

cp -r "$source_dir/tests/data/results-with-limits" "$work/with"
python3 "$source_dir/scripts/experiments.py" print --results "$work/with" >"$work/with.log" 2>&1 || fail "print: $(cat "$work/with.log")"
folder=$work/with/cpu-example
grep -q "^| gemm | RW | I=10,J=500,K=64 | fp32 | 0.3000 | 3.2% fp32 peak | – | – | openblas | 0.0150 | 0.05 | 64% fp32 peak |$" \
  "$folder/tables.md" || fail "no % of limit in the gemm row: $(cat "$folder/tables.md")"
grep -q "^Peers that cannot run on this machine (not failures of mdh): cublas (no usable CUDA driver" "$folder/tables.md" ||
  fail "no note on cublas"
grep -q "^| .*cublas" "$folder/tables.md" && fail "cublas as a table row"
two_panels=$(png_width "$folder/speedup.png")

mkdir -p "$work/without/cpu-example"
cut -d, -f1-22 "$source_dir/tests/data/results-with-limits/cpu-example/benchmark.csv" >"$work/without/cpu-example/benchmark.csv"
python3 "$source_dir/scripts/experiments.py" print --results "$work/without" >"$work/without.log" 2>&1 ||
  fail "print: $(cat "$work/without.log")"
grep -q "[0-9]% " "$work/without/cpu-example/tables.md" && fail "a % of limit without the column"
one_panel=$(png_width "$work/without/cpu-example/speedup.png")
((two_panels >= 2 * one_panel - 10)) || fail "speedup.png is $two_panels px wide with the column, $one_panel without"

# A measurement record that states its share of the limit puts it into its benchmark.csv row.
PYTHONDONTWRITEBYTECODE=1 python3 -c "
import sys
sys.path.insert(0, sys.argv[1])
import experiments
case = {'name': 'dot', 'label': 'x', 'size': 'K=8', 'precision': 'fp32'}
run_id = '20261202T000000Z-d-0000'
row = experiments.flat_record(run_id, 'd', case, 'mdh',
                              {'percent_of_limit': 42.04, 'limit': 'copy bandwidth', 'device_time_ns': {'median': 5}},
                              'ok')
assert (row['percent_of_limit'], row['limit']) == ('42.0', 'copy bandwidth'), row
assert 'percent_of_limit' not in experiments.flat_record(run_id, 'd', case, 'mdh', {'device_time_ns': {'median': 5}},
                                                         'ok')
" "$source_dir/scripts" || fail "flat_record does not carry percent_of_limit"

terminals=$(grep -c "set terminal" "$source_dir/scripts/experiments.py")
plain=$(grep -c "set terminal pngcairo [^\"']*noenhanced" "$source_dir/scripts/experiments.py")
((terminals > 0 && terminals == plain)) || fail "$((terminals - plain)) of $terminals gnuplot terminals use enhanced text"
echo "plots: $one_panel px with one panel, $two_panels px with the share of the limit beside the speedups"
