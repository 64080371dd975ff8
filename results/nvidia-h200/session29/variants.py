"""variants.py D: from D.default.json, D.sw.json (STORE_WIDTH 4, else 2, where the configuration has it and the
work-item's run of results along the store dimension divides by it), D.u.json (UNROLL_STEPS on) and D.swu.json."""
import json
import sys

d = sys.argv[1]
c = json.load(open(d + '.default.json'))['config']
variants = {}
if 'STORE_WIDTH' in c:
    # The store dimension is the output's unit-stride one: the innermost `++` dimension with a private tile (the
    # kernel refuses a width its run does not divide; mdh run then reports the error and the line says so).
    pts = [v for k, v in c.items() if k.startswith('PT_SIZE_')]
    for w in (4, 2):
        sw = dict(c, STORE_WIDTH=w)
        variants['sw'] = sw
        if any(p % w == 0 for p in pts):
            break
if 'UNROLL_STEPS' in c:
    variants['u'] = dict(c, UNROLL_STEPS='on')
    if 'sw' in variants:
        variants['swu'] = dict(variants['sw'], UNROLL_STEPS='on')
for name, v in variants.items():
    json.dump({'config': v}, open('%s.%s.json' % (d, name), 'w'))
# `default` as a variant file of its own, so the timing loop treats all alike.
json.dump({'config': c}, open(d + '.default.json', 'w'))
