"""wg_cap.py SPEC D: from D.default.json (a device's default configuration of SPEC), D.cap2.json and D.cap4.json, in
which the work-groups number at most 2 and 4 per compute unit of the H200 (132): the `++` dimensions' NUM_WG, outermost
first, drop to smaller divisors of their tile counts, so that each work-group takes several tiles (reductions split
over work-groups keep theirs). Written for the next session's first calls (session 29's README: gdab's best known
configuration has 256 work-groups, its default 3,072); run in session 30 (../session30/README.md). Prints the variants it wrote."""
import json
import math
import re
import sys

COMPUTE_UNITS = 132
spec, d = sys.argv[1], sys.argv[2]
text = open(spec).read()
dims = re.findall(r"(\w+)\s*<", re.search(r"^view\s*\(([^)]*)\)", text, re.M).group(1))
combine = [op.strip() for op in re.search(r"^combine\s*\(([^)]*)\)", text, re.M).group(1).split(",")]
concat = [dim for dim, op in zip(dims, combine) if op == "++"]
c = json.load(open(d + ".default.json"))["config"]
total = math.prod(c.get("NUM_WG_" + dim, 1) for dim in dims)
for name, per_unit in (("cap2", 2), ("cap4", 4)):
    v = dict(c)
    for dim in concat:  # outermost first
        while math.prod(v.get("NUM_WG_" + x, 1) for x in dims) > per_unit * COMPUTE_UNITS:
            tiles, wg = c["NUM_WG_" + dim], v["NUM_WG_" + dim]
            smaller = [k for k in range(wg - 1, 0, -1) if tiles % k == 0]
            if not smaller:
                break
            v["NUM_WG_" + dim] = smaller[0]
    after = math.prod(v.get("NUM_WG_" + x, 1) for x in dims)
    if after < total:
        json.dump({"config": v}, open("%s.%s.json" % (d, name), "w"))
        print(name, total, "->", after)
