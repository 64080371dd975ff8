#!/usr/bin/env bash
# Session 11, fourth device call: the tuner started from this session's best hand-made configurations
# (mdh tune --start): GEMM 1024^3 from the two strided GEMM configurations, Gaussian 4096^2 from five hand-made
# shapes (each start is one of the first evaluations, so the journal times them all). Peers: cuBLAS / cuDNN.
set -u
out=${OUT:-/tmp/gpu4}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
c=results/nvidia-h200/session11/configs
starts() { local a=(); for f in "$@"; do a+=(--start "$f"); done; echo "${a[@]}"; }
mdh tune apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --budget 100s \
  $(starts $c/gemm1024-lt128x64-pt8x4x4-strided.json $c/gemm1024-lt64-pt4x4x4-strided.json) \
  --journal "$out/gemm-PC.journal" --out "$out/gemm-PC.json" > "$out/gemm-PC.log" 2>&1
tail -2 "$out/gemm-PC.log"
mdh tune apps/gaussian.mdh --size I=4096,J=4096 --device gpu --budget 80s $(starts $c/gaussian4096-*.json) \
  --journal "$out/gaussian-PC.journal" --out "$out/gaussian-PC.json" > "$out/gaussian-PC.log" 2>&1
tail -2 "$out/gaussian-PC.log"
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
for name in ("gemm-PC", "gaussian-PC"):
    lines = [json.loads(l) for l in open("%s/%s.journal" % (out, name))]
    starts = lines[0]["metadata"].get("starts", [])
    print(name, "first evaluations (default, then the starts):")
    for r in lines[1:2 + len(starts)]:
        own = "".join(k[-1] for k, v in r["config"].items() if k.startswith("OWNERSHIP") and v == "strided")
        print("  %-6s cost %s  LT %s PT %s WI %s strided %s" % (
            r["status"], r.get("cost"), [r["config"].get("LT_SIZE_" + d) for d in "ijk"],
            [r["config"].get("PT_SIZE_" + d) for d in "ijk"], [r["config"].get("NUM_WI_" + d) for d in "ijk"],
            own or "-"))
PY
for s in "gemm|apps/gemm.mdh|I=1024,J=1024,K=1024|gemm-PC" "gaussian|apps/gaussian.mdh|I=4096,J=4096|gaussian-PC"; do
  IFS='|' read -r routine spec sizes name <<< "$s"
  mdh run "$spec" --size "$sizes" --device gpu --config "$out/$name.json" --repeat 50 --warmup 3 --verify 2>&1 |
    grep -E "^kernel time|^verify" | sed "s/^/$name tuned: /"
  peer_cuda --routine "$routine" --spec "$spec" --size "$sizes" --device gpu --json "$out/peer-$name.json" \
    --label "$name" --warmups 2 --min-runs 5 --max-runs 100 > /dev/null 2>&1
  python3 -c "import json; r=json.load(open('$out/peer-$name.json')); print('$name peer', r['peer'], r['device_time_ns']['median']/1e6)"
done
gzip -f "$out"/*.journal
