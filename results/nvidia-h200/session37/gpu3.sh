#!/usr/bin/env bash
# Session 37, call 3 (nvidia-h200): generator 4 on DOT 2^24. (a) dot/kernel_ab_cl, 7 interleaved rounds: the committed
# kernel of generator 3, generator 4's (no reset and fewer barriers at the end), generator 4's with MEM_RES_P private
# (the running sum in registers, copied to local memory for the combine), and call 2's hand-edited reg-tail; (b)
# `mdh tune` of DOT for 120 s from the stored results (MEM_RES_P private with shared reductions is new in the space);
# (c) three rounds of 300 runs through peer_mdh: committed, MEM_RES_P private, tuned; (d) the GPU soak's first part.
# Bundle: mdh, peer_mdh, device_peak, kernel_ab_cl, mdh_codegen_soak_tests.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
B=.device-bundle/bin
D=results/nvidia-h200/session37
nvidia-smi -L >"$OUT/gpu.txt"
{
  $B/device_peak --device gpu | grep -iE "copy"
  (cd $D/dot && timeout 200 ../../../../$B/kernel_ab_cl 7 dot-committed.cl dot-gen4.cl dot-gen4-res-private.cl dot-reg-tail.cl)
} 2>&1 | tee "$OUT/ab.txt"
$B/mdh tune apps/dot.mdh --size K=16777216 --device gpu --seed 1 --evals 10000000 --budget 120s \
  --out "$OUT/dot-RW.json" >"$OUT/tune.log" 2>&1
tail -5 "$OUT/tune.log"
python3 - "$OUT/dot-RW.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("tuned:", {k: v for k, v in d["config"].items() if k in ("MEM_RES_P", "CMB_WI", "WG_OWNERSHIP_k", "NUM_WG_k", "NUM_WI_k", "LT_SIZE_k", "PT_SIZE_k", "WG_COMBINE")})
print("evaluations", d["evaluations"], "valid", d["valid_evaluations"], "seconds", round(d["tuning_seconds"], 1))
PY
{
  for round in 1 2 3; do
    for f in results/nvidia-h200/dot-RW.json $D/configs/dot-res-private.json "$OUT/dot-RW.json"; do
      $B/peer_mdh --config $f --routine dot --spec apps/dot.mdh --size K=16777216 --seed 1 --device gpu \
        --json "$OUT/r.json" --label RW --warmups 20 --min-runs 300 --max-runs 300 >/dev/null
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, %s: device %.2f us, call %.2f us, passed %s' % (sys.argv[2], sys.argv[3], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['validation']['passed']))" "$OUT/r.json" $round $f
    done
  done
  $B/device_peak --device gpu | grep -iE "copy"
} 2>&1 | tee -a "$OUT/ab.txt"
scripts/device_run.sh soak --seconds 230 --cpu-jobs 0 --gpu-jobs 16 --shards 8 \
  --filter '/(dot|gemv|gemm|gemm_nt|gaussian|jacobi3d|max1d|minplus|strided|matrix_chain)$' --out "$OUT/soak.tar.gz" 2>&1 | tail -30
