#!/usr/bin/env python3
"""Where an NVIDIA compile's time goes (issue 13 item 3): for configurations spread over a tuning journal, the whole
OpenCL build (`mdh inspect`, one process per configuration) against ptxas alone on the PTX that build produced,
one at a time and then JOBS at once (the tuner's compile workers run side by side).

    compile_split.py JOURNAL SPEC SIZES OUTDIR [COUNT] [JOBS]
"""
import concurrent.futures, json, os, subprocess, sys, time, statistics

journal, spec, sizes, outdir = sys.argv[1:5]
count = int(sys.argv[5]) if len(sys.argv) > 5 else 24
jobs = int(sys.argv[6]) if len(sys.argv) > 6 else 16
mdh = os.environ.get("MDH", "mdh")
ptxas = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")
device = os.environ.get("DEVICE", "gpu")

rows = []
with open(journal) as f:
    for line in f:
        r = json.loads(line)
        if "config" in r and r.get("status") == "ok":
            rows.append(r)
picked = [rows[i * len(rows) // count] for i in range(count)] if len(rows) >= count else rows
os.makedirs(outdir, exist_ok=True)


def build(i, r, tag):
    d = os.path.join(outdir, f"{tag}{i}")
    cfg = os.path.join(outdir, f"cfg{i}.json")
    with open(cfg, "w") as f:
        json.dump(r["config"], f)
    t0 = time.time()
    p = subprocess.run([mdh, "inspect", spec, "--size", sizes, "--device", device, "--config", cfg, "-o", d, "--force"],
                       capture_output=True, text=True)
    build_s = time.time() - t0
    # The binary's file: gemm.bin on PoCL, PTX under another suffix on NVIDIA.
    written = sorted(n for n in os.listdir(d) if not n.endswith((".cl", ".json", ".log", ".cubin")))
    ptx = os.path.join(d, written[0]) if written else os.path.join(d, "missing")
    t0 = time.time()
    q = subprocess.run([ptxas, "-arch=sm_90", "-O3", ptx, "-o", os.path.join(d, "k.cubin")], capture_output=True, text=True)
    ptxas_s = time.time() - t0
    lines = open(ptx, "rb").read().count(b"\n") if os.path.exists(ptx) else 0
    src = os.path.join(d, os.path.basename(spec).replace(".mdh", ".cl"))
    src_lines = sum(1 for _ in open(src)) if os.path.exists(src) else 0
    return dict(i=i, evaluation=r["evaluation"], journal_compile=r.get("compile"), inspect_s=round(build_s, 3),
                ptxas_s=round(ptxas_s, 3), ptx_lines=lines, cl_lines=src_lines, inspect_rc=p.returncode,
                ptxas_rc=q.returncode, err=(p.stderr[-300:] + q.stderr[-300:]))

# Process start and platform set-up, without a real compile: the trivial default of a tiny size.
t0 = time.time()
subprocess.run([mdh, "inspect", spec, "--size", ",".join(kv.split("=")[0] + "=1" for kv in sizes.split(",")),
                "--device", device, "--config", "default", "-o", os.path.join(outdir, "tiny"), "--force"],
               capture_output=True)
print(f"tiny inspect (process, platform, a trivial build): {time.time() - t0:.3f} s")

serial = [build(i, r, "s") for i, r in enumerate(picked)]
t0 = time.time()
with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
    parallel = list(ex.map(lambda a: build(a[0], a[1], "p"), enumerate(picked)))
wall = time.time() - t0
print(f"{'eval':>6} {'journal':>8} {'inspect1':>8} {'ptxas1':>7} {'inspectN':>8} {'ptxasN':>7} {'ptx lines':>9} {'cl lines':>8}")
for s, p in zip(serial, parallel):
    print(f"{s['evaluation']:>6} {s['journal_compile'] or 0:>8.3f} {s['inspect_s']:>8.3f} {s['ptxas_s']:>7.3f} "
          f"{p['inspect_s']:>8.3f} {p['ptxas_s']:>7.3f} {s['ptx_lines']:>9} {s['cl_lines']:>8}"
          + ("" if s["inspect_rc"] == 0 and s["ptxas_rc"] == 0 else f"  rc {s['inspect_rc']}/{s['ptxas_rc']} {s['err']}"))
for name, rs in (("one at a time", serial), (f"{jobs} at once", parallel)):
    print(f"{name}: inspect median {statistics.median(r['inspect_s'] for r in rs):.3f} s, sum "
          f"{sum(r['inspect_s'] for r in rs):.1f} s; ptxas median {statistics.median(r['ptxas_s'] for r in rs):.3f} s, "
          f"sum {sum(r['ptxas_s'] for r in rs):.1f} s")
print(f"{jobs} at once: {len(parallel)} builds + ptxas in {wall:.1f} s wall")
json.dump(dict(serial=serial, parallel=parallel, wall=wall), open(os.path.join(outdir, "split.json"), "w"), indent=1)
