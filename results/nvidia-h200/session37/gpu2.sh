#!/usr/bin/env bash
# Session 37, call 2 (nvidia-h200): where the committed DOT's last microseconds go. Hand-edited forms of its generated
# kernel (dot/*.cl), interleaved on one card by dot/kernel_ab_cl.cpp: the running sum in a register instead of res_p
# in local memory (reg); the end of the reduction without res_l, the reset of res_p and three barriers (tail); both.
# Then the committed configuration against PT_SIZE_k 4 (float4 loads of x) through peer_mdh, three rounds.
# Bundle: mdh, peer_mdh, device_peak, kernel_ab_cl.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
B=.device-bundle/bin
D=results/nvidia-h200/session37
nvidia-smi -L >"$OUT/gpu.txt"
{
  $B/device_peak --device gpu | grep -iE "copy"
  (cd $D/dot && timeout 300 ../../../../$B/kernel_ab_cl 7 dot-committed.cl dot-reg.cl dot-tail.cl dot-reg-tail.cl)
  for round in 1 2 3; do
    for f in results/nvidia-h200/dot-RW.json $D/configs/dot-pt4.json $D/configs/dot-pt4-unroll-steps.json; do
      $B/peer_mdh --config $f --routine dot --spec apps/dot.mdh --size K=16777216 --seed 1 --device gpu \
        --json "$OUT/r.json" --label RW --warmups 20 --min-runs 300 --max-runs 300 >/dev/null
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, %s: device %.2f us, call %.2f us, passed %s' % (sys.argv[2], sys.argv[3], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['validation']['passed']))" "$OUT/r.json" $round $(basename $f)
    done
  done
  $B/device_peak --device gpu | grep -iE "copy"
} 2>&1 | tee "$OUT/ab.txt"
