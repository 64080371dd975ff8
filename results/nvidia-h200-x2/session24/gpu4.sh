#!/usr/bin/env bash
# Issue 16: is GEMM's slower compiling under `mpirun -np 2` (session 23 run2: 1.67x, compile median 0.88 s against
# 0.81 s) a cost of the host or of MPI? Three phases of S s each, one after another, on one candidate stream
# (`random`, seed 1), GEMM 1024^3:
#   A) GPU 0 alone, cores 0-15 (as gpu3.sh's one-GPU run);
#   B) two independent one-GPU runs at the same time: GPU 0 on cores 0-15, GPU 1 on cores 16-31 (no MPI);
#   C) `mpirun -np 2 --bind-to none` on both GPUs and all cores (as gpu3.sh's two-GPU run).
# During each phase a sampler appends every 2 s the mean `cpu MHz` of /proc/cpuinfo and the busy and steal shares
# of /proc/stat, for cores 0-15 and 16-31, to $OUT/mhz.txt. analyse.py compares the phases.
# Carry .openmpi, .device-bundle/env.sh, .device-bundle/bin/mdh and .device-bundle/lib/{libboost_program_options.so.1.74.0,
# libxgboost.so.0,libdmlc.so.0,libgomp.so.1} (the whole .device-bundle put the tree over 64 MiB; README.md);
# start with `source .device-bundle/env.sh && source .openmpi/env.sh`.
set -u
out=${OUT:-/tmp/x2}
work=/tmp/x2work
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rm -rf "$work"; mkdir -p "$out" "$work"
S=${S:-95} DEVICE=${DEVICE:-gpu}
export NVIDIA_TF32_OVERRIDE=0
gemm=(apps/gemm.mdh --size I=1024,J=1024,K=1024)
common=(--device "$DEVICE" --no-transfer --no-default-start --technique random --seed 1 --finalists 0
  --budget "${S}s")
{ nproc; lscpu; nvidia-smi -L; echo "== cpufreq"; ls /sys/devices/system/cpu/cpu0/cpufreq 2>&1; } \
  > "$out/machine.txt" 2>&1

# sample PHASE: every 2 s one line "phase unix_time mhz(0-15) mhz(16-31) busy%(0-15) busy%(16-31) steal%(0-15)
# steal%(16-31)"; busy and steal over the 2 s before, of all the group's time.
sample() {
  local phase=$1 prev cur
  prev=$(grep '^cpu[0-9]' /proc/stat)
  while :; do
    sleep 2
    cur=$(grep '^cpu[0-9]' /proc/stat)
    mhz=$(awk -F: '/^processor/ {p = $2 + 0} /^cpu MHz/ {g = (p < 16) ? 0 : 1; s[g] += $2; n[g]++}
      END {printf "%.0f %.0f", n[0] ? s[0] / n[0] : -1, n[1] ? s[1] / n[1] : -1}' /proc/cpuinfo)
    util=$(awk 'NR == FNR {for (i = 2; i <= NF; i++) a[$1, i] = $i; next}
      {c = substr($1, 4) + 0; g = (c < 16) ? 0 : 1; t = 0
       for (i = 2; i <= NF; i++) {d[i] = $i - a[$1, i]; t += d[i]}
       tot[g] += t; idle[g] += d[5] + d[6]; st[g] += d[9]}
      END {for (g = 0; g < 2; g++) if (tot[g] > 0) {b[g] = 100 * (tot[g] - idle[g] - st[g]) / tot[g]
             s[g] = 100 * st[g] / tot[g]} else {b[g] = -1; s[g] = -1}
           printf "%.1f %.1f %.1f %.1f", b[0], b[1], s[0], s[1]}' \
      <(echo "$prev") <(echo "$cur"))
    echo "$phase $(date +%s) $mhz $util" >> "$out/mhz.txt"
    prev=$cur
  done
}
echo "# phase unix_time mhz_0-15 mhz_16-31 busy%_0-15 busy%_16-31 steal%_0-15 steal%_16-31" > "$out/mhz.txt"

# idle baseline: 3 samples before anything runs
sample idle & spid=$!; sleep 7; kill "$spid"; wait "$spid" 2>/dev/null

# A: GPU 0 alone on cores 0-15
sample A & spid=$!
CUDA_VISIBLE_DEVICES=0 taskset -c 0-15 mdh tune "${gemm[@]}" "${common[@]}" \
  --journal "$work/a.journal" --out "$work/a.json" > "$work/a.log" 2>&1
kill "$spid"; wait "$spid" 2>/dev/null

# B: two independent one-GPU runs at the same time
sample B & spid=$!
CUDA_VISIBLE_DEVICES=0 taskset -c 0-15 mdh tune "${gemm[@]}" "${common[@]}" \
  --journal "$work/b0.journal" --out "$work/b0.json" > "$work/b0.log" 2>&1 & p0=$!
CUDA_VISIBLE_DEVICES=1 taskset -c 16-31 mdh tune "${gemm[@]}" "${common[@]}" \
  --journal "$work/b1.journal" --out "$work/b1.json" > "$work/b1.log" 2>&1 & p1=$!
wait "$p0"; wait "$p1"
kill "$spid"; wait "$spid" 2>/dev/null

# C: one run over both GPUs and all cores (as gpu3.sh)
sample C & spid=$!
CUDA_CACHE_PATH=$work/nv-c mpirun -np 2 --bind-to none -x CUDA_CACHE_PATH "$(command -v mdh)" tune \
  "${gemm[@]}" "${common[@]}" --journal "$work/c.journal" --out "$work/c.json" > "$work/c.log" 2>&1
kill "$spid"; wait "$spid" 2>/dev/null

for f in a b0 b1 c; do echo "== $f.log"; grep -E "note: MPI|keeps to cores|stopped|time:|compiles of|best|error|failed" "$work/$f.log"; done \
  > "$out/logs.txt"
python3 "$here/analyse.py" "$work" "$out/mhz.txt" | tee "$out/analysis.txt"
# At most 8 files come back: machine.txt, mhz.txt, logs.txt, analysis.txt and the 4 journals, compressed.
for f in a b0 b1 c; do [[ -f $work/$f.journal ]] && gzip -9 -c "$work/$f.journal" > "$out/$f.journal.gz"; done
exit 0
