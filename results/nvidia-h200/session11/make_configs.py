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
    size = 4096 if name.startswith('gemm4096') else 1024
    record = {'spec': 'apps/gemm.mdh', 'sizes': {'I': size, 'J': size, 'K': size},
              'note': 'hand-made GEMM configuration (issue 12, session 11: strided ownership; written by '
                      'make_configs.py; H200 measurements in run*/bench.txt)',
              'config': cfg}
    (here / 'configs' / f'{name}.json').write_text(json.dumps(record, indent=1, sort_keys=True) + '\n')


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

# Gaussian 4096^2 (5x5 stencil): the default (16x16 work-items, 2x2 each, no cache) reaches 38% of the copy
# bandwidth. Shapes to compare: the input's local tile cached, taller private tiles along i (the window's rows are
# shared between vertically neighbouring outputs), and 32 work-items along the contiguous j.
def gaussian(name, **values):
    base = {'mdh_config': 2, 'ORDER_OCL_G_i': 1, 'ORDER_OCL_G_j': 0, 'ORDER_OCL_L_i': 1, 'ORDER_OCL_L_j': 0}
    base.update(values)
    for d in 'ij':
        base[f'NUM_WG_{d}'] = 4096 // base[f'LT_SIZE_{d}']
    record = {'spec': 'apps/gaussian.mdh', 'sizes': {'I': 4096, 'J': 4096},
              'note': 'hand-made Gaussian configuration (issue 12, session 11; written by make_configs.py)',
              'config': base}
    (here / 'configs' / f'gaussian4096-{name}.json').write_text(json.dumps(record, indent=1, sort_keys=True) + '\n')


gaussian('lt32-wi16x16-pt2x2-local', LT_SIZE_i=32, LT_SIZE_j=32, NUM_WI_i=16, NUM_WI_j=16, PT_SIZE_i=2, PT_SIZE_j=2,
         MEM_INP_L_img='local')
gaussian('lt32x64-wi8x32-pt4x2-local-strided-j', LT_SIZE_i=32, LT_SIZE_j=64, NUM_WI_i=8, NUM_WI_j=32, PT_SIZE_i=4,
         PT_SIZE_j=2, MEM_INP_L_img='local', OWNERSHIP_j='strided')
gaussian('lt32x32-wi8x32-pt4x1', LT_SIZE_i=32, LT_SIZE_j=32, NUM_WI_i=8, NUM_WI_j=32, PT_SIZE_i=4, PT_SIZE_j=1)
gaussian('lt64x32-wi8x32-pt8x1', LT_SIZE_i=64, LT_SIZE_j=32, NUM_WI_i=8, NUM_WI_j=32, PT_SIZE_i=8, PT_SIZE_j=1)
gaussian('lt32x64-wi8x32-pt4x2-strided-j', LT_SIZE_i=32, LT_SIZE_j=64, NUM_WI_i=8, NUM_WI_j=32, PT_SIZE_i=4,
         PT_SIZE_j=2, OWNERSHIP_j='strided')
