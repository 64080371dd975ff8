#!/usr/bin/env bash
# Session 3, second device-machine call (about 9 minutes): everything that tunes, at once —
#  - mdh on the H200: the cases of experiments.gpu.json not tuned yet (worker processes, budgets in the file);
#  - CLBlast's own tuners on the H200 for the clblast_tuned peer (20 s per tuner: a short budget, said so);
#  - mdh on the 16-core Xeon through PoCL: experiments.xeon.json (GEMM, GEMV, DOT at RW and PC);
#  - meanwhile, reruns of the four contraction configurations that gave wrong results on the H200 in the soak
#    (tmp/gpufail), with variants, to find the cause.
# Results worth keeping are packed into $OUT/tune7.tar.gz.
set -u
export MDH_BIN=$PWD/.device-bundle/bin
gpu=$(mdh devices --slug gpu); cpu=$(mdh devices --slug cpu); echo "devices: $gpu $cpu"
soak=.device-bundle/bin/mdh_codegen_soak_tests
(
  for rep in 1 2; do for c in gdab_efgc:176 gdac_efgb:178 gdbc_efga:339 gfab_degc:337; do
    for opt in "" "-cl-opt-disable"; do
      r=$(MDH_SOAK=1 MDH_TEST_DEVICE_TYPE=gpu MDH_TUNABLE_SHARD=${c##*:}/1000 MDH_SOAK_BUILD_OPTIONS="$opt" timeout 120 \
          $soak --gtest_filter="*/tc_abcdef_${c%%:*}" 2>&1 | grep -E "expected|PASSED  \]|FAILED  \]" | head -2 | tr '\n' ' ')
      echo "soak config ${c} options '$opt' rep $rep: $r"
    done
  done; done
  bash tmp/gpufail/run.sh gpu
) > /tmp/gpufail.log 2>&1 &
fail=$!
(timeout 480 python3 scripts/experiments.py tune --device gpu --experiments experiments.gpu.json --skip-peer-tuning 2>&1 |
   grep -E "^(best|stopped|warning)|tuned already|error" > /tmp/tune-gpu.log) &
tg=$!
(
  sel=$(mdh devices --selector gpu)
  for c in dot:RW:K=16777216 gemv:RW:I=1000,K=2048 gemv:PC:I=4096,K=4096 gemm:RW:I=10,J=500,K=64 gemm:PC:I=1024,J=1024,K=1024; do
    IFS=: read -r r l s <<<"$c"; d=results/$gpu/clblast/$r-$l; mkdir -p $d
    CLBLAST_TUNER_TIMEOUT=20 bash peers/tune_clblast.sh $sel $d $r $s > /dev/null 2>&1 && touch $d/done
    echo "clblast $r-$l: $(ls $d | tr '\n' ' ')"
  done
) > /tmp/clblast.log 2>&1 &
tc=$!
(timeout 500 python3 scripts/experiments.py tune --device cpu --experiments experiments.xeon.json 2>&1 |
   grep -E "^(best|stopped|warning)|tuned already|error" > /tmp/tune-cpu.log) &
tx=$!
wait $tg $tc $tx $fail
for f in /tmp/tune-gpu.log /tmp/clblast.log /tmp/tune-cpu.log /tmp/gpufail.log; do echo "== $f"; cat $f; done
for s in $gpu $cpu; do
  for j in results/$s/*.json; do [[ $j == *.journal ]] || python3 -c "import json,sys; d=json.load(open('$j')); print('$j', d['kernel_time_ns']/1e6, 'ms', d['evaluations'], 'evals', round(d['tuning_seconds']), 's')" 2>/dev/null; done
done
tar czf $OUT/tune7.tar.gz results/$gpu results/$cpu /tmp/gpufail.log results/$gpu/clblast
