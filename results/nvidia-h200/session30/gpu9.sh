#!/usr/bin/env bash
# Session 30, call 9 (nvidia-h200): is call 8's loop order a rule? For GEMM 1024^3, MCC and the 9 contractions: the
# GPU default (loop-order/NAME-default.json, from codegen's default_config with the H200's limits), the default with
# LOOP_ORDER_P = the `++` dimensions innermost-first, then the reductions (NAME-R.json), and that with at most 4
# work-groups per compute unit (NAME-Rcap4.json, session 29's wg_cap.py), each timed alone (mdh run), round 2 only
# while time is left.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
nvidia-smi -L >"$OUT/gpu.txt"
h=results/nvidia-h200/session30/loop-order start=$(date +%s)
for round in 1 2; do
  (( round == 2 && $(date +%s) - start > 75 )) && break
  while read -r n spec size; do
    line="round $round $n"
    for v in default R Rcap4; do
      [[ -f $h/$n-$v.json ]] && line="$line $v=$(mdh run $spec --size $size --config $h/$n-$v.json --device gpu \
        --repeat 50 --warmup 3 2>&1 | sed -n 's/^kernel time: median \([0-9.]*\) ms.*/\1/p')"
    done
    echo "$line" | tee -a "$OUT/loop-order.txt"
  done <$h/cases.txt
done
