#!/usr/bin/env bash
# Session 20, shared by gpuN.sh: the part K of the 30-minute reference run of the contraction abcdef-gdab-efgc (issue
# 13 item 5), `local` (the default technique) seed 1, --no-transfer, from the default start, made of five device runs
# of 360 s continued through --resume (the budget counts the journal's elapsed time), and helpers for retuning.
set -u
out=${OUT:-/tmp/session20}
mkdir -p "$out/t"
export NVIDIA_TF32_OVERRIDE=0
log=$out/log.txt
dir=results/nvidia-h200/session20
stamp() { echo "## $(date -u +%T) $*"; }
tc30() {  # K: continue the journal in $dir to K*360 s of tuning
  local k=$1 resume=
  [ "$k" -gt 1 ] && resume=--resume
  [ -e "$dir/gdab-1800s.journal.gz" ] && gzip -dkf "$dir/gdab-1800s.journal.gz"
  stamp "gdab 30-minute run, part $k of 5 (to $((k * 360)) s)"
  mdh tune apps/tc/abcdef-gdab-efgc.mdh --size A=24,B=16,C=16,D=16,E=24,F=16,G=24 --device gpu --technique local \
    --seed 1 --evals 10000000 --budget $((k * 360))s --no-transfer --journal "$dir/gdab-1800s.journal" \
    --out "$dir/gdab-1800s.json" $resume 2>&1 | grep -vE '^ ' | tail -12
  wc -l "$dir/gdab-1800s.journal"
  gzip -9 -c "$dir/gdab-1800s.journal" > "$out/gdab-1800s.journal.gz"
  cp "$dir/gdab-1800s.json" "$out/"
}
tune() {  # name spec size seconds [extra...]: from the committed configuration, into $out/t
  local name=$1 spec=$2 size=$3 secs=$4; shift 4
  stamp "$name: $spec $size ${secs}s $*"
  "${MDH:-mdh}" tune "$spec" --size "$size" --device "${DEVICE:-gpu}" --seed 1 --evals 10000000 --budget "${secs}s" --no-transfer \
    --journal "$out/t/$name.journal" --out "$out/t/$name.json" "$@" 2>&1 | grep -vE '^ ' | tail -5
}
replace() {  # name results-folder: the new result replaces the committed one only where its kernel time is lower
  python3 - "$out/t/$1.json" "$2/$1.json" <<'PY' && cp -f "$out/t/$1.json" "$2/$1.json" &&
import json, sys
new, old = (json.load(open(p))["kernel_time_ns"] for p in sys.argv[1:])
print("%s: new %.0f ns, committed %.0f ns" % (sys.argv[2], new, old))
sys.exit(0 if new < old else 1)
PY
    cp -f "$out/t/$1.journal" "$2/$1.json.journal" && echo "$2/$1.json replaced"
}
