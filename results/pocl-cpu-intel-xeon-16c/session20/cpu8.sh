#!/usr/bin/env bash
# Session 20, call 8 on nvidia-h200's 16-core Xeon (PoCL 5.0), bundle .device-bundle-8 (.device-bundle-cpu with
# bin/mdh of this session, without OpenBLAS/CLBlast/Eigen, which this call does not run). PRL RW's committed
# configuration (an older session's 30-s run) ran 947 ms in call 5's bench against the default's 743: tuned again
# with `local` for 100 s from it (the default start is evaluated too), replacing it only where faster, then
# benchmarked with the threaded C++ baseline.
source "$(dirname "$0")/../../nvidia-h200/session20/common.sh"
b=$PWD/.device-bundle-8
for f in "$b"/lib/*.gz; do [ -e "${f%.gz}" ] || gzip -dk "$f"; done; chmod +x "$b"/bin/*
c=results/pocl-cpu-intel-xeon-16c
{
DEVICE=cpu tune prl-RW apps/prl.mdh N=32768,M=1024 100 --prl-data --start $c/prl-RW.json
replace prl-RW $c
stamp bench
MDH_BIN=$b/bin bash scripts/device_run.sh bench cpu experiments.xeon.json --seconds 150 --run-timeout 140 prl:RW 2>&1 |
  grep -vE '^==' | tail -12
stamp done
} 2>&1 | tee -a "$log"
tar czf "$out/tunes.tar.gz" -C "$out" t log.txt
tar czf "$out/results.tar.gz" $c/records $c/benchmark.json $c/benchmark.csv $c/prl-RW.json*
rm -rf "$out/t"
