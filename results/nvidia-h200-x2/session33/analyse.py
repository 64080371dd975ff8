#!/usr/bin/env python3
"""gpu1.sh's measure: GEMM 1024^3 on one `random` stream (seed 1), runs a (one GPU, cores 0-15), d (one GPU, all 32
cores) and c (mpirun -np 2, both GPUs, all cores). Per run: evaluations over the common span (the shortest run's last
elapsed), their rate, compile median and mean; that the streams agree; the ratios against a.
Usage: analyse.py WORK_FOLDER"""
import json
import statistics
import sys


def records(path):
    rows = [json.loads(l) for l in open(path) if l.strip()]
    return sorted([r for r in rows if "evaluation" in r], key=lambda r: r["evaluation"])


def main(folder):
    runs = {}
    for name in ("a", "d", "c"):
        try:
            rows = records("%s/%s.journal" % (folder, name))
        except (OSError, ValueError) as e:
            print("%s: missing or unreadable: %s" % (name, e))
            continue
        if rows:
            runs[name] = rows
    if not runs:
        return
    span = min(max(r["elapsed"] for r in rows) for rows in runs.values())
    print("common span: %.1f s" % span)
    rate = {}
    for name, rows in runs.items():
        within = [r for r in rows if r["elapsed"] <= span]
        c = [r["compile"] for r in within if r.get("compile") is not None]
        rate[name] = len(within) / span
        print("%s: %5d evaluations, %6.2f/s, compile median %.3f s, mean %.3f s" %
              (name, len(within), rate[name], statistics.median(c) if c else float("nan"),
               statistics.mean(c) if c else float("nan")))
    names = list(runs)
    n = min(len(runs[x]) for x in names)
    same = all(json.dumps(runs[x][i]["config"], sort_keys=True) == json.dumps(runs[names[0]][i]["config"], sort_keys=True)
               for x in names for i in range(n))
    print("streams agree on the first %d evaluations: %s" % (n, same))
    if "a" in rate:
        for name in rate:
            if name != "a":
                print("%s vs a: %.2fx" % (name, rate[name] / rate["a"]))
    if "c" in rate and "d" in rate:
        print("c vs d: %.2fx" % (rate["c"] / rate["d"]))


if __name__ == "__main__":
    main(sys.argv[1])
