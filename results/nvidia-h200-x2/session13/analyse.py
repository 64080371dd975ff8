#!/usr/bin/env python3
"""Issue 16's measures from the journals of gpu1.sh: for each case, the 1-GPU run's result after its whole budget
(the target), when the 2-GPU run first reached it (and 1% / 2% above it), both runs' evaluations per second over
the 2-GPU run's span, and which rank measured what."""
import collections
import json
import sys


def records(path):
    header, rows = None, []
    for line in open(path):
        line = line.strip()
        if not line:
            continue
        r = json.loads(line)
        if "mdh_tuner_journal" in r:
            header = r
        elif "evaluation" in r:
            rows.append(r)
    return header, rows


def best_curve(rows):
    """(elapsed, best cost) at every improvement, in the order the run reported them."""
    curve, best = [], float("inf")
    for r in sorted(rows, key=lambda r: r["elapsed"]):
        if r.get("status") == "ok" and r.get("cost") is not None and r["cost"] < best:
            best = r["cost"]
            curve.append((r["elapsed"], best))
    return curve


def first_at_most(curve, limit):
    return next((t for t, c in curve if c <= limit), None)


def main(folder, base):
    for case in ("gemm", "tc"):
        try:
            _, one = records("%s/%s-1gpu.journal" % (folder, case))
            _, two = records("%s/%s-2gpu.journal" % (folder, case))
        except OSError as e:
            print(case, "missing:", e)
            continue
        c1, c2 = best_curve(one), best_curve(two)
        if not c1 or not c2:
            print(case, "no valid evaluation")
            continue
        span1 = max(r["elapsed"] for r in one)
        span2 = max(r["elapsed"] for r in two)
        target = c1[-1][1]
        t1 = first_at_most(c1, target)
        print("%s: 1 GPU: %d evaluations in %.0f s (%.2f/s), best %.4f ms first at %.1f s" %
              (case, len(one), span1, len(one) / span1, target * 1e3, t1))
        print("%s: 2 GPUs: %d evaluations in %.0f s (%.2f/s), best %.4f ms; by rank %s" %
              (case, len(two), span2, len(two) / span2, c2[-1][1] * 1e3,
               dict(collections.Counter(r.get("measured_on", {}).get("rank") for r in two))))
        one_early = sum(1 for r in one if r["elapsed"] <= span2)
        print("%s: over the first %.0f s: 1 GPU %d evaluations, 2 GPUs %d: %.2fx" %
              (case, span2, one_early, len(two), len(two) / max(1, one_early)))
        for slack in (1.0, 1.01, 1.02):
            t2 = first_at_most(c2, target * slack)
            reached = ("not within %.0f s" % span2 if t2 is None else
                       "%.1f s = %.2fx the 1-GPU run's %.1f s to its result, %.2fx its %.0f s budget" %
                       (t2, t2 / t1, t1, t2 / base, base))
            print("%s: 2 GPUs reach %.2fx the 1-GPU result (%.4f ms): %s" % (case, slack, target * slack * 1e3, reached))
        print("%s: 1-GPU curve %s" % (case, ", ".join("%.0fs %.4f" % (t, c * 1e3) for t, c in c1)))
        print("%s: 2-GPU curve %s" % (case, ", ".join("%.0fs %.4f" % (t, c * 1e3) for t, c in c2)))


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 300.0)
