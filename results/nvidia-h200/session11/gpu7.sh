#!/usr/bin/env bash
# Session 11, seventh device call: Gaussian's default before (mdh_base, main at fa1e2a7) and after the 2-D stencil
# rule of default_config (32 work-items along j, 8 along i owning 8 rows each), two rounds in opposite order.
set -u
for round in 1 2; do
  order="mdh_base mdh"; [[ $round == 2 ]] && order="mdh mdh_base"
  for sizes in I=4096,J=4096 I=224,J=224; do
    for bin in $order; do
      v=(); [[ $round == 1 ]] && v=(--verify)
      o=$(".device-bundle/bin/$bin" run apps/gaussian.mdh --size "$sizes" --device gpu --repeat 50 --warmup 3 "${v[@]}" 2>&1)
      printf '%s %-14s %-9s %s %s\n' "$round" "$sizes" "$bin" "$(echo "$o" | sed -n 's/^kernel time: median \([0-9.]*\) ms.*/\1/p')" \
        "$(echo "$o" | sed -n 's/^verify[^:]*: \([A-Z]*\).*/\1/p')"
    done
  done
done
