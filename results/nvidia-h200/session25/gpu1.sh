#!/usr/bin/env bash
# Session 25, call 1 (nvidia-h200): issue 13 item 3. The default technique's evaluations per second on GEMM 1024^3
# with the tuner's time breakdown, from the default (--no-transfer) and as a user runs it (stored starts), then
# where an NVIDIA compile's time goes (compile_split.py). Everything under $OUT.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
S=results/nvidia-h200/session25
log=$OUT/log.txt
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "cores: $(nproc)"; git log -1 --format=%h 2>/dev/null; } >"$log"
gemm=(apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --seed 1)
echo "== t1: default technique, 60 s, from the default (--no-transfer)" >>"$log"
mdh tune "${gemm[@]}" --budget 60s --no-transfer --out /tmp/t1.json --journal /tmp/t1.journal >/tmp/t1.log 2>&1
grep -vE '^evaluations [0-9]+ \(' /tmp/t1.log | tail -14 >>"$log"
echo "== t2: default technique, 60 s, with the stored starts (what a user gets)" >>"$log"
mdh tune "${gemm[@]}" --budget 60s --out /tmp/t2.json --journal /tmp/t2.journal >/tmp/t2.log 2>&1
grep -vE '^evaluations [0-9]+ \(' /tmp/t2.log | tail -14 >>"$log"
echo "== compile split (32 configurations of t1's journal)" >>"$log"
MDH=mdh timeout 200 python3 $S/compile_split.py /tmp/t1.journal apps/gemm.mdh I=1024,J=1024,K=1024 /tmp/split 32 16 >>"$log" 2>&1
cp /tmp/split/cfg0.json /tmp/split/s0/gemm.bin /tmp/split/s0/gemm.build.log /tmp 2>/dev/null
tar czf "$OUT/call1.tar.gz" -C /tmp t1.journal t2.journal t1.log t2.log t1.json t2.json split/split.json gemm.bin gemm.build.log 2>>"$log"
