#!/usr/bin/env bash
# Session 24, issue 13 item 1: tc-abcdef-gdab-efgc (A=24,B=16,C=16,D=16,E=24,F=16,G=24) on the H200: default
# 0.2355 ms, best known 0.1290 (results/nvidia-h200/tc-abcdef-gdab-efgc-RW.json, 30-minute run): 1.83x.
# Variants of the default, each moving it toward the best in a few families; all built, run and verified on PoCL
# (2-core VM) from the H200 default derived with h200_device_limits. About 16 runs of ~3-5 s each.
# Hypothesis: TB[e][f][g][c] is indexed by both work-item dimensions (e, f), so a work-group reuses each TB element
# only LT_a*LT_b*LT_d = 8 times (TA: LT_c*LT_e*LT_f = 768): the TB copies into local memory (global loads, stores,
# barriers) are ~1 per 8 FMAs. The best has a2 x b8 x d2 = 32 (and c1, so the result slots stay within registers).
# Needs `mdh` on PATH (source .device-bundle/env.sh) and runs from the repository root.
set -u
out=${OUT:-/tmp/gdab}
mkdir -p "$out/t"
export NVIDIA_TF32_OVERRIDE=0
spec=apps/tc/abcdef-gdab-efgc.mdh
size=A=24,B=16,C=16,D=16,E=24,F=16,G=24
best=results/nvidia-h200/tc-abcdef-gdab-efgc-RW.json
def=$out/t/gdab-default.json
# with SRC NAME KEY=VALUE...: SRC's config (or tuning result) with those values -> $out/t/NAME.json. As
# scripts/config_with.py, plus list values written as JSON (BUF_ORDER_P_TA=[1,2,3,0], LOOP_ORDER_L=["g","c",...]),
# which config_with.py would write as strings.
with() {
  local src=$1 name=$2
  shift 2
  python3 - "$src" "$out/t/$name.json" "$@" <<'PY'
import json, sys
document = json.load(open(sys.argv[1]))
config = document.get("config", document)
for assignment in sys.argv[3:]:
    name, _, value = assignment.partition("=")
    if value.startswith("["):
        config[name] = json.loads(value)
    elif value.lstrip("-").isdigit():
        config[name] = int(value)
    else:
        config[name] = value
json.dump(config, open(sys.argv[2], "w"))
PY
}
time_config() {  # time_config LABEL FILE
  echo "$1: $(mdh run $spec --size $size --config "$2" --device gpu --repeat 50 --warmup 5 --verify 2>&1 |
    grep -E 'kernel time|PASS|FAIL|error' | cut -c1-90 | tr '\n' ' ')"
}
{
echo "## $(date -u +%T) gdab variants"
mdh tune $spec --size $size --device gpu --evals 1 --no-transfer --finalists 0 --out "$def" 2>&1 | grep -E "^best|error"
# The rule's shape: c (read by TB, no work-items) down to 1, b (not read by TB; TA's unit-stride index) up to 8.
rule="LT_SIZE_c=1 PT_SIZE_c=1 NUM_WG_c=16 LT_SIZE_b=8 PT_SIZE_b=8 NUM_WG_b=2"
steps="LT_SIZE_c=1 PT_SIZE_c=1 NUM_WG_c=16 LT_SIZE_b=8 PT_SIZE_b=2 NUM_WG_b=2"  # b8 as 4 private steps of 2
tap='MEM_INP_P_TA=private BUF_ORDER_P_TA=[1,2,3,0] VECTOR_WIDTH_TA=4'
with "$def" v01-pad0 LOCAL_PAD_TB=0                                      # TB's transposed cache unpadded
with "$def" v02-c1 LT_SIZE_c=1 PT_SIZE_c=1 NUM_WG_c=16                    # fewer slots alone (TB reuse still 8)
with "$def" v03-b8 LT_SIZE_b=8 PT_SIZE_b=8 NUM_WG_b=2                     # TB reuse 32, 192 slots (c2)
with "$def" v04-rule $rule                                                # TB reuse 32, 96 slots
with "$def" v05-rule-steps $steps                                         # the same as 4 steps of 2 along b
with "$def" v06-rule-g2 $rule LT_SIZE_g=2 PT_SIZE_g=1                     # + the best's reduction tile
with "$def" v07-rule-g12 $rule LT_SIZE_g=12 PT_SIZE_g=4                   # = the default of branch gdab-default (its rule)
with "$def" v08-rule-e4 $rule NUM_WI_e=4                                  # + 64 work-items, 2 steps of 3 along e
with "$def" v09-rule-tap $rule $tap                                       # + TA in private memory, float4 copies
with "$def" v10-rule-pad0 $rule LOCAL_PAD_TB=0                            # + unpadded TB cache
with "$def" v11-bestshape $steps NUM_WI_e=4 LT_SIZE_g=2 PT_SIZE_g=1 LOCAL_PAD_TB=0 $tap  # best but its loop orders, swizzle, OCL, store
with "$best" v12-best-loops-id 'LOOP_ORDER_G=["a","b","c","d","e","f","g"]' 'LOOP_ORDER_L=["a","b","c","d","e","f","g"]' \
  'LOOP_ORDER_P=["a","b","c","d","e","f","g"]'                           # best with the default's loop orders
with "$best" v13-best-pad2 LOCAL_PAD_TB=2                                 # best with the default's pad
with "$best" v14-best-plain-ids WG_SWIZZLE_a=1 WG_SWIZZLE_c=1 ORDER_OCL_G_a=2 ORDER_OCL_G_b=2 ORDER_OCL_L_f=0 STORE_WIDTH=1
time_config default "$def"
time_config best "$best"
for f in "$out"/t/v*.json; do time_config "$(basename "$f" .json)" "$f"; done
time_config "default (again)" "$def"
# The rule also changes gdac-efgb and gdbc-efga (same sizes; TB indexed by e and f alone; their best known are their
# defaults after 74 and 180 evaluations): their defaults against the rule's, while time is left.
if (( SECONDS < ${OTHERS_BEFORE_S:-75} )); then
  for v in "gdac-efgb LT_SIZE_b=1 PT_SIZE_b=1 NUM_WG_b=16" "gdbc-efga LT_SIZE_a=1 PT_SIZE_a=1 NUM_WG_a=24"; do
    read -r n drop <<<"$v"
    mdh tune apps/tc/abcdef-$n.mdh --size $size --device gpu --evals 1 --no-transfer --finalists 0 \
      --out "$out/t/$n-default.json" 2>&1 | grep -E "error"
    with "$out/t/$n-default.json" "$n-rule" $drop LT_SIZE_c=8 PT_SIZE_c=8 NUM_WG_c=2 LT_SIZE_g=12 PT_SIZE_g=4
    spec=apps/tc/abcdef-$n.mdh
    time_config "$n default" "$out/t/$n-default.json"
    time_config "$n rule" "$out/t/$n-rule.json"
  done
fi
echo "## $(date -u +%T) done ($SECONDS s)"
} 2>&1 | tee "$out/log.txt"
