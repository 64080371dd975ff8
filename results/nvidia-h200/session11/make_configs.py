#!/usr/bin/env python3
"""Writes this session's hand-made GEMM configurations (config format 2) from the fast-tiles session's ones: the
same tiles with strided ownership (OWNERSHIP strided along i and j, private caches dropped: a strided private tile
is no box), plus larger register tiles that strided ownership makes worth trying."""
import json, pathlib

here = pathlib.Path(__file__).parent
src = here / '../fast-tiles/configs'


def flat(nested):
    c = nested['config']
    out = {'mdh_config': 2}
    for fam in ('NUM_WG', 'NUM_WI', 'LT_SIZE', 'PT_SIZE'):
        for d, v in c[fam].items():
            out[f'{fam}_{d}'] = v
    for layer, per in c['ORDER_OCL'].items():
        for d, v in per.items():
            out[f'ORDER_OCL_{layer}_{d}'] = v
    for layer in ('L', 'P'):
        for a, v in c['MEM_INP'][layer].items():
            out[f'MEM_INP_{layer}_{a}'] = v
        for a, v in c['BUF_ORDER'][layer].items():
            out[f'BUF_ORDER_{layer}_{a}'] = v
    for layer, v in c['LOOP_ORDER'].items():
        out[f'LOOP_ORDER_{layer}'] = v
    out['MEM_RES_P'] = c['MEM_RES']['P']
    out['MEM_RES_L'] = c['MEM_RES']['L']
    out['CMB_RES'] = c['CMB_RES']
    return out


def write(name, cfg):
    (here / 'configs' / f'{name}.json').write_text(json.dumps(cfg, indent=1, sort_keys=True) + '\n')


for size, base in [('1024', 'gemm1024-lt64-pt4x4x4'), ('1024', 'gemm1024-lt128x64-pt8x4x4-pc'),
                   ('4096', 'gemm4096-lt128x64-pt8x4x4-pc'), ('4096', 'gemm4096-lt128-pt8x8x4-pc')]:
    cfg = flat(json.loads((src / f'{base}.json').read_text()))
    write(base, cfg)
    strided = dict(cfg, OWNERSHIP_i='strided', OWNERSHIP_j='strided', MEM_INP_P_A='none', MEM_INP_P_B='none')
    write(base.replace('-pc', '') + '-strided', strided)
    # The same with one reduction step per private step (PT_SIZE_k 1): the register tile fed one k at a time.
    write(base.replace('-pc', '') + '-strided-k1',
          dict(strided, PT_SIZE_k=1))

# 64x64 local tiles with 8x8 work-items owning 8x8 elements each, strided (256 work-groups at 1024^3).
wi8 = flat(json.loads((src / 'gemm1024-lt64-pt4x4x4.json').read_text()))
wi8.update(NUM_WI_i=8, NUM_WI_j=8, PT_SIZE_i=8, PT_SIZE_j=8, OWNERSHIP_i='strided', OWNERSHIP_j='strided')
write('gemm1024-lt64-wi8x8-pt8x8x4-strided', wi8)
write('gemm1024-lt64-wi8x8-pt8x8x4-strided-k1', dict(wi8, PT_SIZE_k=1))

# Deeper reduction tiles (LT_SIZE_k 32) for the two best strided shapes.
base = flat(json.loads((src / 'gemm1024-lt64-pt4x4x4.json').read_text()))
write('gemm1024-lt64-lk32-pt4x4x4-strided', dict(base, LT_SIZE_k=32, OWNERSHIP_i='strided', OWNERSHIP_j='strided'))
big = flat(json.loads((src / 'gemm4096-lt128-pt8x8x4-pc.json').read_text()))
write('gemm4096-lt128-lk32-pt8x8x4-strided',
      dict(big, LT_SIZE_k=32, OWNERSHIP_i='strided', OWNERSHIP_j='strided', MEM_INP_P_A='none', MEM_INP_P_B='none'))
