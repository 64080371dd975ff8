#!/usr/bin/env python3
"""Best time against tuning time from `mdh tune` journals (issue 13 item 5): the default configuration alone (the
first evaluation), the best after 1 minute and after 5 minutes, the evaluations, and the run's evaluations per
second; `--plot FILE.png` also draws the step curves (gnuplot). Time is the tuning time that each record carries
("elapsed", which a run continued through --resume carries on, so gaps between device calls do not count), else the
wall time since the first evaluation started; a run longer than 5 minutes also gets its best after 30 minutes."""
import json
import subprocess
import sys


def curve(path):
    records = [json.loads(line) for line in open(path)][1:]
    t0 = min(r["start"] for r in records)

    def at(r):
        return r["elapsed"] if "elapsed" in r else r["end"] - t0
    # The default configuration is the first evaluation (the journal's first record); others may end before it.
    default = records[0]
    best = default["cost"] if default["status"] == "ok" else None
    points = [(at(default), best * 1e3)] if best is not None else []
    for r in sorted(records[1:], key=at):
        if r["status"] == "ok" and (best is None or r["cost"] < best):
            best = r["cost"]
            points.append((max(at(r), at(default)), best * 1e3))
    end = max(at(r) for r in records)
    return points, len(records), end


def best_at(points, seconds):
    at = [b for t, b in points if t <= seconds]
    return at[-1] if at else None


args = sys.argv[1:]
plot = None
if "--plot" in args:
    plot = args[args.index("--plot") + 1]
    args = [a for a in args if a not in ("--plot", plot)]
print("| journal | default only | 1 min | 5 min | 30 min | evaluations | per second | last improvement |")
print("|---|---|---|---|---|---|---|---|")
series = []
for path in args:
    points, n, end = curve(path)
    fmt = lambda v: "%.4f ms" % v if v is not None else "-"
    print("| %s | %s | %s | %s | %s | %d | %.2f | %.0f s |" % (
        path.split("/")[-1], fmt(points[0][1]), fmt(best_at(points, 60)), fmt(best_at(points, 300)),
        fmt(best_at(points, 1800)) if end > 300 else "-", n, n / end, points[-1][0]))
    series.append((path.split("/")[-1], points, end))
if plot:
    script = ["set terminal pngcairo noenhanced size 900,500", "set output '%s'" % plot, "set xlabel 'tuning seconds'",
              "set ylabel 'best / default'", "set key bottom left", "set yrange [*:1.02]",
              "plot " + ", ".join("'-' with steps title '%s'" % name for name, _, _ in series)]
    for _, points, end in series:
        first = points[0][1]
        script += ["%g %g" % (t, b / first) for t, b in points] + ["%g %g" % (end, points[-1][1] / first), "e"]
    subprocess.run(["gnuplot"], input="\n".join(script) + "\n", text=True, check=True)
