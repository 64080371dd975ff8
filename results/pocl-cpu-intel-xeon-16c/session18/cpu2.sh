#!/usr/bin/env bash
# Session 18, second call on nvidia-h200 (bundle .device-bundle-cpu, rebuilt: fast contraction only where local
# memory is global memory). GPU: the PTX of committed configurations from the previous binary (5a74519) and this
# one must be identical now; the GPU default before and after LOCAL_PAD 2 for transposed local caches, two rounds.
# Then the 16-core Xeon through PoCL (the device's PoCL, not the 2-core VM's 3.1): GEMM 1024^3 and PRL N=32768
# variants of the CPU default (configs/), to see why the default lost 2.6x to the tuned configuration in call 1.
set -u
out=${OUT:-/tmp/cpu2}
mkdir -p "$out"
b=$PWD/.device-bundle-cpu
for f in "$b"/lib/*.gz "$b"/bin/*.gz; do [ -e "${f%.gz}" ] || gzip -dk "$f"; done; chmod +x "$b"/bin/*
export NVIDIA_TF32_OVERRIDE=0
for c in gemm:PC:I=1024,J=1024,K=1024 mcc:RW:N=1,P=7,Q=7,K=512,C=512,R=3,S=3 dot:RW:K=16777216; do
  IFS=: read -r r l s <<<"$c"
  for m in mdh-5a74519 mdh; do
    $m inspect apps/$r.mdh --size "$s" --config results/nvidia-h200/$r-$l.json --device gpu -o "$out/ptx-$m-$r" >/dev/null 2>&1 ||
      echo "$m inspect $r failed"
  done
  cmp -s "$out/ptx-mdh-$r/$r.ptx" "$out/ptx-mdh-5a74519-$r/$r.ptx" && echo "$r PTX identical" || echo "$r PTX DIFFERS"
  cmp -s "$out/ptx-mdh-$r/$r.cl" "$out/ptx-mdh-5a74519-$r/$r.cl" && echo "$r source identical" || echo "$r source DIFFERS"
done
rm -rf "$out"/ptx-*
for k in 1 2; do
  for c in gemm:I=1024,J=1024,K=1024 gemm:I=4096,J=4096,K=4096 mcc:N=1,P=7,Q=7,K=512,C=512,R=3,S=3 \
    tc/abcdef-gdbc-efga:A=24,B=16,C=16,D=16,E=24,F=16,G=24 tc/abcdef-gdab-efgc:A=24,B=16,C=16,D=16,E=24,F=16,G=24 \
    tc/abcdef-geab-dfgc:A=24,B=16,C=16,D=24,E=16,F=16,G=24 tc/abcdef-gfab-degc:A=24,B=16,C=16,D=24,E=16,F=16,G=24; do
    for m in mdh-5a74519 mdh; do
      echo "default ${c%%:*} $m: $($m run apps/${c%%:*}.mdh --size "${c#*:}" --config default --device gpu \
        --repeat 50 $([ $k = 1 ] && echo --verify) 2>&1 | grep -E 'kernel time|PASS|FAIL' | tr '\n' ' ' | cut -c1-120)"
    done
  done
done
cfg=results/pocl-cpu-intel-xeon-16c/session18/configs
for k in 1 2; do
  for g in default tuned k4 k8 wi1 wi1-k4 wi1-k8 wi1-k16 wi2 wi4x4 wi1-j4; do
    echo "cpu gemm $g: $(timeout 60 mdh run apps/gemm.mdh --size I=1024,J=1024,K=1024 --config $cfg/g-$g.json --device cpu \
      --repeat 10 $([ $k = 1 ] && echo --verify) 2>&1 | grep -E 'kernel time|PASS|FAIL|rror' | tr '\n' ' ' | cut -c1-110)"
  done
done
echo "cpu gemm mdh default (this binary): $(mdh run apps/gemm.mdh --size I=1024,J=1024,K=1024 --config default --device cpu --repeat 10 2>&1 | grep 'kernel time')"
for p in default wi1 wi1-pt16 wi16-pt1; do
  echo "cpu prl $p: $(timeout 60 mdh run apps/prl.mdh --size N=32768,M=1024 --prl-data --config $cfg/p-$p.json --device cpu \
    --repeat 3 2>&1 | grep -E 'kernel time|rror' | cut -c1-110)"
done
