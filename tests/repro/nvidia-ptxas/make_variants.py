#!/usr/bin/env python3
"""Writes the kernels the README's tables were measured on, derived from the committed sources:
- variants/v_*.cl from tc_geab_dfgc_398.cl (source changes tried on configuration #398);
- shapes/<config>/guarded.cl and zerofill.cl from shapes/<config>/select.cl (the private-cache copy as mdh generates
  it now, `cache[i] = guard ? value : 0`): an `if` around each copy, and a zero-fill before that guarded copy.
Usage: make_variants.py (from any directory; writes next to this script)."""
import glob
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))


def variants_of_398():
    k = open(os.path.join(HERE, "tc_geab_dfgc_398.cl")).read()
    out = {}
    out["norestrict_res"] = k.replace("__global float* restrict res_p", "__global float* res_p").replace(
        "__global float* restrict res_l", "__global float* res_l")
    out["norestrict_all"] = k.replace(" restrict", "")
    lines, kept, skip = k.split("\n"), [], 0
    for line in lines:  # the zero-fill loops are 4 lines each
        if skip:
            skip -= 1
        elif line.strip().startswith("for (int z = 0;"):
            skip = 3
        else:
            kept.append(line)
    out["nozerofill"] = "\n".join(kept)
    first = "barrier(CLK_LOCAL_MEM_FENCE);\n                const int tile_nonempty"
    i = k.index(first)
    out["topbarrier_global"] = (k[:i] + "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);" +
                                k[i + len("barrier(CLK_LOCAL_MEM_FENCE);"):])
    out["unroll1"] = re.sub(r"^(\s*)(for \()", r"\1#pragma unroll 1\n\1\2", k, flags=re.M)
    out["volatile_res"] = k.replace("__global float* restrict res_p", "__global volatile float* res_p").replace(
        "__global float* restrict res_l", "__global volatile float* res_l")
    out["pcacheTA_private"] = k.replace("__local float cache_p_TA[CACHE_P_TA_SIZE * WG_SIZE];",
                                        "float cache_p_TA[CACHE_P_TA_SIZE * WG_SIZE];")
    out["volatile_pcacheTB"] = k.replace("  float cache_p_TB[CACHE_P_TB_SIZE];", "  volatile float cache_p_TB[CACHE_P_TB_SIZE];")
    out["volatile_pcacheTA"] = k.replace("__local float cache_p_TA[", "__local volatile float cache_p_TA[")
    os.makedirs(os.path.join(HERE, "variants"), exist_ok=True)
    for name, text in out.items():
        assert text != k, name
        open(os.path.join(HERE, "variants", "v_%s.cl" % name), "w").write(text)


def shapes():
    copy = re.compile(r"^(\s*)(cache_p_(\w+)\[[^\n]*?\]) = \(([^\n]*?)\) \? ([^\n]*) : zero_cache_p_\w+;$", re.M)
    for select in sorted(glob.glob(os.path.join(HERE, "shapes", "*", "select.cl"))):
        s = open(select).read()
        guarded = copy.sub(lambda m: "%sif (%s) {\n%s  %s = %s;\n%s}" % (m.group(1), m.group(4), m.group(1),
                                                                        m.group(2), m.group(5), m.group(1)), s)

        def zero_fill(m):
            indent, name = m.group(1), m.group(2)
            per_work_item = "__local float cache_p_%s[" % name in s
            index = "wi_lin*CACHE_P_%s_SIZE + z" % name if per_work_item else "z"
            return "%sfor (int z = 0; z < CACHE_P_%s_SIZE; ++z) {\n%s  cache_p_%s[%s] = 0;\n%s}\n%s" % (
                indent, name, indent, name, index, indent, m.group(0))

        zerofill = re.sub(r"^(\s*)const float zero_cache_p_(\w+) = \{0\};$", zero_fill, guarded, flags=re.M)
        folder = os.path.dirname(select)
        open(os.path.join(folder, "guarded.cl"), "w").write(guarded)
        open(os.path.join(folder, "zerofill.cl"), "w").write(zerofill)


if __name__ == "__main__":
    variants_of_398()
    shapes()
