#!/usr/bin/env python3
"""Session 34 (issue 12): writes DOT 2^24 kernels for dot_ab_cl into ab/: mdh's generated kernels for the
configurations c0 (committed), c1 (PT_SIZE_k 4), c3, c7 and c8 (dot/*.json) in NVIDIA's form (red.global.add.f32, membar.gl: what the
generator emits under NVIDIA's driver), and copies with one thing changed:
  reg   each work-item's sum in a register during the tiles, stored into res_p once before the tree
  end   the group's result taken from res_p after the tree: no res_l step, no reset of res_p, two barriers fewer
  both  reg and end.
Run from the repository root after building mdh: python3 results/nvidia-h200/session34/variants.py"""
import os, re, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, 'ab')
os.makedirs(out, exist_ok=True)

def generate(config):
    return subprocess.run(['build/bin/mdh', 'generate', 'apps/dot.mdh', '--size', 'K=16777216', '--config', config],
                          check=True, capture_output=True, text=True).stdout

def nvidia(src):
    cas = src[src.index('inline void mdh_accumulate'):]
    cas = cas[:cas.index('\n}\n') + 3]
    red = ('inline void mdh_accumulate(volatile __global float* p, float v)\n{\n'
           '  asm volatile("red.global.add.f32 [%0], %1;" :: "l"(p), "f"(v) : "memory");\n}\n')
    src = src.replace(cas, red)
    n = src.count('mem_fence(CLK_GLOBAL_MEM_FENCE);')
    assert n == 2, n
    return src.replace('mem_fence(CLK_GLOBAL_MEM_FENCE);', 'asm volatile("membar.gl;" ::: "memory");')

HOT = 'res_p[(slot)*WG_SIZE + wi_lin] = mdh_combine_0(res_p[(slot)*WG_SIZE + wi_lin], '
TREE = '  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n  // Tree combine'

def reg(src):
    assert HOT in src and src.count(TREE) == 1
    src = src.replace(HOT, 'sum_p = mdh_combine_0(sum_p, ')
    src = src.replace(TREE, '  res_p[(0)*WG_SIZE + wi_lin] = sum_p;\n' + TREE)
    decl = '  // Start the partial results'
    return src.replace(decl, '  float sum_p = mdh_identity_0();\n' + decl, 1)

def end(src):
    keep = '  // The leader keeps the group'
    a = src.index(keep)
    b = src.index('  // Results of this local tile')
    src = src[:a] + src[b:]
    return src.replace('mdh_accumulate(&accumulators[0], res_l[(0)*CONCAT_WI + wi_c_lin]);',
                       'mdh_accumulate(&accumulators[0], res_p[(0)*WG_SIZE + wi_lin]);')

for name in ['c0-committed', 'c1-pt4', 'c3-pt16-run4-nocache', 'c7-pt4-ylocal-private', 'c8-pt4-ylocal-private-512x256']:
    base = nvidia(generate(os.path.join(here, 'dot', name + '.json')))
    for tag, src in [('', base), ('-reg', reg(base)), ('-end', end(base)), ('-both', end(reg(base)))]:
        with open(os.path.join(out, name + tag + '.cl'), 'w') as f:
            f.write(src)
print('\n'.join(sorted(os.listdir(out))))
