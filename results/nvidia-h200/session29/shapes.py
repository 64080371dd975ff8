"""shapes.py D OUT: Jacobi 3D 512^3 work-item shapes made from D.default.json (the device's default): NUM_WI along
j and k, PT_SIZE along i, j, k, with the local tiles and work-group counts that follow, STORE_WIDTH the private tile
along k (at most 4) and UNROLL_STEPS on; name wJxK-pI.J.K."""
import json
import os
import sys

d, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
c = json.load(open(d + '.default.json'))['config']
extent = {'i': 512, 'j': 512, 'k': 512}
shapes = [  # (wi_j, wi_k, pt_i, pt_j, pt_k)
    (16, 16, 2, 2, 2), (8, 32, 2, 2, 2), (4, 64, 2, 2, 2), (2, 128, 2, 2, 2), (4, 128, 2, 2, 2),
    (8, 64, 2, 2, 2), (16, 64, 2, 2, 2), (2, 64, 2, 2, 2), (4, 64, 2, 2, 4), (2, 128, 2, 2, 4), (4, 64, 4, 2, 2),
    (4, 64, 2, 4, 2), (4, 64, 1, 2, 2), (8, 32, 2, 2, 4)]
for wj, wk, pi, pj, pk in shapes:
    v = dict(c)
    for dim, wi, pt in (('i', 1, pi), ('j', wj, pj), ('k', wk, pk)):
        v['NUM_WI_' + dim] = wi
        v['PT_SIZE_' + dim] = pt
        v['LT_SIZE_' + dim] = wi * pt
        v['NUM_WG_' + dim] = extent[dim] // (wi * pt)
    v['STORE_WIDTH'] = min(4, pk)
    v['UNROLL_STEPS'] = 'on'
    json.dump({'config': v}, open(os.path.join(out, 'w%dx%d-p%d.%d.%d.json' % (wj, wk, pi, pj, pk)), 'w'))
# The default's own shape without the two families, for the comparison within this list.
json.dump({'config': c}, open(os.path.join(out, 'default.json'), 'w'))
