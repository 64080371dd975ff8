#!/usr/bin/env python3
"""gpu4.sh's measure: GEMM 1024^3 on one `random` stream (seed 1) in three phases: A) one GPU alone on cores 0-15,
B) two independent one-GPU runs at the same time (b0: GPU 0, cores 0-15; b1: GPU 1, cores 16-31), C) `mpirun -np 2`
on both GPUs and all cores. For each run: evaluations over the common span (the shortest run's last elapsed), their
rate, and the compile times of those evaluations; then the ratios against A and the sampled CPU clock per phase.
Usage: analyse.py WORK_FOLDER [MHZ_FILE]"""
import json
import statistics
import sys

NAN = float("nan")


def records(path):
    rows = []
    for line in open(path):
        line = line.strip()
        if line:
            r = json.loads(line)
            if "evaluation" in r:
                rows.append(r)
    return sorted(rows, key=lambda r: r["evaluation"])


def quantile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else NAN


def stats(rows):
    c = [r["compile"] for r in rows if r.get("compile") is not None]
    costs = [r["cost"] for r in rows if r.get("status") == "ok" and r.get("cost") is not None]
    return (statistics.median(c) if c else NAN, statistics.mean(c) if c else NAN, quantile(c, 0.9), len(c),
            min(costs) * 1e3 if costs else NAN)


def main(folder, mhz_path=None):
    runs = {}
    for name in ("a", "b0", "b1", "c"):
        try:
            rows = records("%s/%s.journal" % (folder, name))
        except (OSError, ValueError) as e:
            print("%s: missing or unreadable: %s" % (name, e))
            continue
        if not rows:
            print("%s: no evaluation" % name)
            continue
        runs[name] = rows
    if not runs:
        return
    span = min(max(r["elapsed"] for r in rows) for rows in runs.values())
    print("common span: %.1f s (the shortest run's last elapsed; runs: %s)" %
          (span, ", ".join("%s %.1f s / %d evaluations" % (n, max(r["elapsed"] for r in rows), len(rows))
                           for n, rows in runs.items())))
    within = {n: [r for r in rows if r["elapsed"] <= span] for n, rows in runs.items()}
    if "b0" in within and "b1" in within:
        within["b0+b1"] = within["b0"] + within["b1"]
    print("%-6s %12s %8s %14s %12s %11s %9s %12s" %
          ("run", "evaluations", "per s", "compile median", "compile mean", "compile p90", "compiles", "best (ms)"))
    rate = {}
    med = {}
    for n in ("a", "b0", "b1", "b0+b1", "c"):
        if n not in within:
            continue
        rows = within[n]
        m, mean, p90, k, best = stats(rows)
        rate[n] = len(rows) / span
        med[n] = (m, mean)
        print("%-6s %12d %8.2f %13.3fs %11.3fs %10.3fs %9d %12.4f" % (n, len(rows), rate[n], m, mean, p90, k, best))
    if "a" in rate:
        for n in ("b0", "b1", "b0+b1", "c"):
            if n in rate:
                print("%s vs a: evaluations %.2fx, compile median %.2fx, compile mean %.2fx" %
                      (n, rate[n] / rate["a"], med[n][0] / med["a"][0], med[n][1] / med["a"][1]))
    if "a" in runs:
        for n in ("b0", "b1", "c"):
            if n in runs:
                k = min(len(runs["a"]), len(runs[n]))
                same = next((i for i in range(k) if runs["a"][i]["config"] != runs[n][i]["config"]), k)
                print("stream check: %s agrees with a on its first %d of %d common evaluations" % (n, same, k))
    if mhz_path:
        try:
            lines = [l.split() for l in open(mhz_path) if l.strip() and not l.startswith("#")]
        except OSError as e:
            print("mhz: %s" % e)
            return
        print("%-6s %8s %10s %10s %12s %12s %13s %13s" %
              ("phase", "samples", "MHz 0-15", "MHz 16-31", "busy% 0-15", "busy% 16-31", "steal% 0-15",
               "steal% 16-31"))
        for phase in ("idle", "A", "B", "C"):
            rows = [[float(x) for x in l[2:8]] for l in lines if l[0] == phase and len(l) >= 8]
            if rows:
                means = [statistics.mean(col) for col in zip(*rows)]
                print("%-6s %8d %10.0f %10.0f %12.1f %12.1f %13.1f %13.1f" % ((phase, len(rows)) + tuple(means)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
