#!/usr/bin/env python3
"""gpu3.sh's measure: for each case, the 1-GPU and 2-GPU runs of one `random` candidate stream: evaluations over the
same span, whether the 2-GPU stream begins with the 1-GPU stream, and the compile times of both (median, p90)."""
import json
import statistics
import sys


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
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def main(folder):
    for case in ("gemm", "tc"):
        try:
            one = records("%s/%s-1gpu.journal" % (folder, case))
            two = records("%s/%s-2gpu.journal" % (folder, case))
        except OSError as e:
            print(case, "missing:", e)
            continue
        if not one or not two:
            print(case, "no evaluation")
            continue
        span = min(max(r["elapsed"] for r in one), max(r["elapsed"] for r in two))
        n1 = sum(1 for r in one if r["elapsed"] <= span)
        n2 = sum(1 for r in two if r["elapsed"] <= span)
        common = min(len(one), len(two))
        same = next((k for k in range(common) if one[k]["config"] != two[k]["config"]), common)
        print("%s: over the first %.0f s: 1 GPU %d evaluations (%.2f/s), 2 GPUs %d (%.2f/s): %.2fx" %
              (case, span, n1, n1 / span, n2, n2 / span, n2 / max(1, n1)))
        print("%s: the streams agree on their first %d of %d common evaluations" % (case, same, common))
        for name, rows in (("1 GPU", one), ("2 GPUs", two)):
            c = [r["compile"] for r in rows if r.get("compile") is not None]
            costs = [r["cost"] for r in rows if r.get("status") == "ok" and r.get("cost") is not None]
            print("%s: %s: compile median %.2f s, p90 %.2f s (%d recorded); best %.4f ms" %
                  (case, name, statistics.median(c) if c else float("nan"), quantile(c, 0.9), len(c),
                   min(costs) * 1e3 if costs else float("nan")))


if __name__ == "__main__":
    main(sys.argv[1])
