#!/usr/bin/env bash
# Session 20, calls 4 and 5 on nvidia-h200, carrying only .device-bundle-cpu (the same mdh, with OpenBLAS; both
# bundles together exceed the 64-MiB carry): `bash gpu4.sh K` runs part K (4 or 5) of gdab's 30-minute run on the
# H200, then on the machine's 16-core Xeon through PoCL (results/pocl-cpu-intel-xeon-16c/session20/README.md):
#   K=4: GEMV 4096^2, whose committed configuration (0.508 ms) is slower than the default (0.464), tuned again with
#        `local` for 45 s from it (a result replaces the committed one only where faster), then benchmarked with
#        OpenBLAS, Eigen and CLBlast;
#   K=5: PRL RW (N=32768, M=1024) benchmarked with the threaded C++ baseline (at most 20 timed runs per row now:
#        each takes about a second, and the rows did not finish within 90 s in session 18 nor 280 s in session 19).
source "$(dirname "$0")/common.sh"
k=${1:?part 4 or 5}
b=$PWD/.device-bundle-cpu
for f in "$b"/lib/*.gz; do [ -e "${f%.gz}" ] || gzip -dk "$f"; done; chmod +x "$b"/bin/*
c=results/pocl-cpu-intel-xeon-16c
{
tc30 "$k"
echo "cpu slug: $(mdh devices --slug cpu)"
if [ "$k" = 4 ]; then
  DEVICE=cpu tune gemv-PC apps/gemv.mdh I=4096,K=4096 45 --start $c/gemv-PC.json
  replace gemv-PC $c
  stamp bench
  MDH_BIN=$b/bin bash scripts/device_run.sh bench cpu experiments.xeon.json --seconds 150 --run-timeout 60 gemv:PC 2>&1 |
    grep -vE '^==' | tail -20
else
  stamp bench
  MDH_BIN=$b/bin bash scripts/device_run.sh bench cpu experiments.xeon.json --seconds 200 --run-timeout 190 prl:RW 2>&1 |
    grep -vE '^==' | tail -20
fi
stamp done
} 2>&1 | tee -a "$log"
tar czf "$out/tunes.tar.gz" -C "$out" t log.txt
tar czf "$out/results.tar.gz" $c/records $c/benchmark.json $c/benchmark.csv $c/gemv-PC.json*
rm -rf "$out/t"
