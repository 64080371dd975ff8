#!/usr/bin/env python3
"""Session 12's hand-made configurations (config format 2) for the first H200 call: what layout of the local
caches and which ownership let NVIDIA's compiler issue vector loads from local memory (GEMM 1024^3), and whether
local caches with a conflict-free layout lift the contractions (geab-dfgc, gdab-efgc) off the 6.8% of the copy
bandwidth the default reaches."""
import json, pathlib, subprocess

here = pathlib.Path(__file__).parent
root = here / '../../..'


def write(name, spec, sizes, cfg, note):
    record = {'spec': spec, 'sizes': sizes, 'note': 'hand-made configuration (session 12, make_configs.py): ' + note,
              'config': dict(cfg, mdh_config=2)}
    (here / 'configs' / f'{name}.json').write_text(json.dumps(record, indent=1, sort_keys=True) + '\n')


# GEMM 1024^3, from session 11's best (128x64 local tiles, 16x16 work-items, 8x4 elements, strided).
gemm = json.loads((root / 'results/nvidia-h200/session11/configs/gemm1024-lt128x64-pt8x4x4-strided.json').read_text())
base = gemm['config']
g = lambda name, note, **kv: write(name, 'apps/gemm.mdh', {'I': 1024, 'J': 1024, 'K': 1024}, dict(base, **kv), note)
g('gemm-strided', 'session 11 best')
g('gemm-strided-at', 'A cached k-major in local memory', BUF_ORDER_L_A=[1, 0])
g('gemm-block-at', 'block ownership, A k-major: a work-item reads 8 consecutive i and 4 consecutive j from local',
  OWNERSHIP_i='block', OWNERSHIP_j='block', BUF_ORDER_L_A=[1, 0])
g('gemm-block', 'block ownership, A i-major', OWNERSHIP_i='block', OWNERSHIP_j='block')
g('gemm-block-at-k8', 'block, A k-major, LT_SIZE_k 8', OWNERSHIP_i='block', OWNERSHIP_j='block',
  BUF_ORDER_L_A=[1, 0], LT_SIZE_k=8)
g('gemm-block-at-k32', 'block, A k-major, LT_SIZE_k 32', OWNERSHIP_i='block', OWNERSHIP_j='block',
  BUF_ORDER_L_A=[1, 0], LT_SIZE_k=32)
g('gemm-block-at-k1', 'block, A k-major, PT_SIZE_k 1', OWNERSHIP_i='block', OWNERSHIP_j='block',
  BUF_ORDER_L_A=[1, 0], PT_SIZE_k=1)
g('gemm-block-at-8x8', '128x128 tiles, 16x16 work-items with 8x8 elements (64 work-groups)', OWNERSHIP_i='block',
  OWNERSHIP_j='block', BUF_ORDER_L_A=[1, 0], LT_SIZE_j=128, NUM_WG_j=8, PT_SIZE_j=8)
g('gemm-block-at-wi16x8-8x8', '128x64 tiles, 16x8 work-items with 8x8 elements', OWNERSHIP_i='block',
  OWNERSHIP_j='block', BUF_ORDER_L_A=[1, 0], NUM_WI_j=8, PT_SIZE_j=8)
g('gemm-block-at-64', '64x64 tiles, 16x16 work-items with 4x4 elements (256 work-groups)', OWNERSHIP_i='block',
  OWNERSHIP_j='block', BUF_ORDER_L_A=[1, 0], LT_SIZE_i=64, NUM_WG_i=16, PT_SIZE_i=4)
g('gemm-strided-64', '64x64 tiles, 16x16 work-items with 4x4 elements, strided', LT_SIZE_i=64, NUM_WG_i=16,
  PT_SIZE_i=4)

# Contractions: the committed configurations (one work-item per (e, f), 2x2x2x2 elements of a, b, c, d) and the
# same with both inputs cached in local memory, f innermost in the TB copy (f is the work-items' fastest index).
def flat(nested):
    c, out = nested, {}
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
    out.update(MEM_RES_P=c['MEM_RES']['P'], MEM_RES_L=c['MEM_RES']['L'], CMB_RES=c['CMB_RES'])
    return out


tc_sizes = {'geab-dfgc': dict(A=24, B=16, C=16, D=24, E=16, F=16, G=24),
            'gdab-efgc': dict(A=24, B=16, C=16, D=16, E=24, F=16, G=24)}
for name, sizes in tc_sizes.items():
    # The configuration committed before this session (main at a487116), in the nested format 1.
    committed = flat(json.loads(subprocess.run(
        ['git', 'show', f'a487116:results/nvidia-h200/tc-abcdef-{name}-RW.json'], cwd=here, check=True,
        capture_output=True, text=True).stdout)['config'])
    t = lambda suffix, note, **kv: write(f'tc-{name}{suffix}', f'apps/tc/abcdef-{name}.mdh', sizes,
                                         dict(committed, **kv), note)
    t('', 'the committed tuned configuration')
    # TB[d][f][g][c] (geab) / TB[e][f][g][c] (gdab): f last in the local copy.
    # (Call 1 also ran gdab with both inputs local and 16 or 24 work-items along e: TB's tile then needs 48 KiB and
    # more, over the H200's local memory, so those configurations were refused and are not kept here.)
    if name == 'geab-dfgc':
        t('-local', 'both inputs in local memory, TB with f innermost', MEM_INP_L_TA='local', MEM_INP_L_TB='local',
          BUF_ORDER_L_TB=[0, 2, 3, 1])
    if name == 'gdab-efgc':  # E = 24: 16 work-items along e leave the second tile half empty; take 8.
        t('-local-e8', 'both inputs local, 8x16 work-items (e, f)', MEM_INP_L_TA='local', MEM_INP_L_TB='local',
          BUF_ORDER_L_TB=[0, 2, 3, 1], NUM_WI_e=8, LT_SIZE_e=8, NUM_WG_e=3)
