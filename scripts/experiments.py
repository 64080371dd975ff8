#!/usr/bin/env python3
"""The experiment driver behind scripts/tune.sh, scripts/benchmark.sh and scripts/print_results.sh.

experiments.json names routines (spec file, size bindings with labels, peers, tuning budget); this script turns
them into `mdh tune` runs, peer-program runs (one measurement method for mdh and every peer: peers/peer_common.h)
and result tables. Standard library only, so it runs wherever python3 does (here and on the GPU machine).

Layout of results/<device-slug>/:
  <routine>-<label>.json            best configuration of `mdh tune` (+ .journal beside it)
  clblast/                          CLBlast's own tuner output (for the clblast_tuned peer)
  records/<routine>-<label>-<peer>.json   one measurement record per program run
  records/device_peak.json          the device's FP32 and copy limits, measured by device_peak in each benchmark run
  benchmark.csv, benchmark.json     all records of the device in one table, with metadata
  tables.md, speedup.png, tuning-*.png    made by `print`
"""
import argparse
import csv
import glob
import json
import os
import shutil
import subprocess
import sys
import time

import percent_of_limit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Peer name in experiments.json -> (program, extra arguments). clblast_tuned gets --tuned at run time.
PEER_PROGRAMS = {
    "openblas": "peer_openblas",
    "eigen": "peer_eigen",
    "clblast": "peer_clblast",
    "clblast_tuned": "peer_clblast",
    "cublas": "peer_cuda",
    "cudnn": "peer_cuda",
    "cublas_ttgt": "peer_cuda",
    "prl_threads": "peer_prl",
}
CSV_FIELDS = ["device", "routine", "label", "sizes", "peer", "status", "device_time_median_ns",
              "device_time_min_ns", "device_time_max_ns", "device_time_stddev_ns", "call_time_median_ns",
              "call_time_min_ns", "call_time_max_ns", "call_time_stddev_ns", "runs", "ci_met", "validated",
              "max_abs_error", "max_rel_error", "gflops", "device_time_includes", "call_time_includes"]
CSV_FIELDS += percent_of_limit.CSV_FIELDS


def program(name):
    """A program of ours: build/bin first, then PATH (the GPU bundle puts its bin/ there)."""
    for folder in (os.environ.get("MDH_BIN", ""), os.path.join(ROOT, "build", "bin")):
        if folder and os.access(os.path.join(folder, name), os.X_OK):
            return os.path.join(folder, name)
    return shutil.which(name)


def fail(message):
    print("error: " + message, file=sys.stderr)
    sys.exit(2)


def load_experiments(path):
    try:
        with open(path) as f:
            experiments = json.load(f)
    except (OSError, ValueError) as e:
        fail("%s: %s" % (path, e))
    defaults = experiments.get("defaults", {})
    cases = []
    for routine in experiments.get("routines", []):
        for size in routine["sizes"]:
            case = dict(defaults)
            case.update({k: v for k, v in routine.items() if k != "sizes"})
            case["label"], case["size"] = size["label"], size["size"]
            cases.append(case)
    return cases


def selected(cases, only):
    if not only:
        return cases
    keep = []
    for case in cases:
        for item in only:
            name, _, label = item.partition(":")
            if case["name"] == name and (not label or case["label"] == label):
                keep.append(case)
    if not keep:
        fail("--only %s matches no case of the experiments file" % ",".join(only))
    return keep


def mdh_output(args):
    mdh = program("mdh")
    if not mdh:
        fail("build/bin/mdh not found: run scripts/setup.sh first")
    result = subprocess.run([mdh] + args, capture_output=True, text=True)
    if result.returncode != 0:
        fail(result.stderr.strip() or "mdh %s failed" % " ".join(args))
    return result.stdout.strip()


def device_folder(device):
    return os.path.join(ROOT, "results", mdh_output(["devices", "--slug", device]))


def parse_seconds(text):
    text = str(text)
    scale = {"s": 1, "m": 60, "h": 3600}.get(text[-1:], None)
    return float(text[:-1]) * scale if scale else float(text)


TIMED_OUT = -1000  # run()'s status for a program stopped by its time limit


def run(command, log=None, timeout=None):
    print("+ " + " ".join(command), flush=True)
    try:
        return subprocess.run(command, stdout=log, stderr=subprocess.STDOUT if log else None,
                              timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        return TIMED_OUT


# ------------------------------------------------------------------------------------------------ tune

def tune(options):
    folder = device_folder(options.device)
    os.makedirs(folder, exist_ok=True)
    mdh = program("mdh")
    for case in selected(load_experiments(options.experiments), options.only):
        out = os.path.join(folder, "%s-%s.json" % (case["name"], case["label"]))
        journal = out + ".journal"
        if os.path.exists(out):
            print("%s %s: tuned already (%s)" % (case["name"], case["label"], os.path.relpath(out, ROOT)))
        else:
            budget = case.get("budget", {})
            command = [mdh, "tune", os.path.join(ROOT, case["spec"]), "--size", case["size"], "--device",
                       options.device, "--technique", case.get("technique", "auc_bandit"), "--seed",
                       str(case.get("seed", 1)), "--out", out, "--journal", journal]
            if "evals" in budget:
                command += ["--evals", str(max(1, int(budget["evals"] * options.budget_scale)))]
            if "duration" in budget:
                command += ["--budget", "%gs" % max(1.0, parse_seconds(budget["duration"]) * options.budget_scale)]
            if case.get("data") == "prl":
                command.append("--prl-data")
            if options.in_process:
                command.append("--in-process")
            if os.path.exists(journal):
                command.append("--resume")  # an interrupted run: continue it, evaluating nothing twice
            if run(command) != 0:
                print("warning: tuning %s %s failed; see %s" % (case["name"], case["label"], journal), file=sys.stderr)
        if "clblast_tuned" in case.get("peers", []) and not options.skip_peer_tuning:
            tune_clblast(folder, case, options)


def tune_clblast(folder, case, options):
    """CLBlast's own tuners, once per routine and size (their output is what the clblast_tuned peer applies)."""
    target = os.path.join(folder, "clblast", "%s-%s" % (case["name"], case["label"]))
    if os.path.exists(os.path.join(target, "done")) or not shutil.which("clblast_tuner_xgemm"):
        return
    os.makedirs(target, exist_ok=True)
    selector = mdh_output(["devices", "--selector", options.device])
    routine = "gemm" if case["name"].startswith("gemm") else case["name"]
    sizes = dict(item.split("=") for item in case["size"].split(","))
    script = os.path.join(ROOT, "peers", "tune_clblast.sh")
    if run(["bash", script, selector, target, routine, ",".join("%s=%s" % kv for kv in sizes.items())]) == 0:
        open(os.path.join(target, "done"), "w").close()


# ------------------------------------------------------------------------------------------------ benchmark

def peer_runs(case, folder, options):
    """(peer name, command) for mdh and every peer of the case; command None when the program is missing."""
    runs = []
    best = os.path.join(folder, "%s-%s.json" % (case["name"], case["label"]))
    mdh_peer = program("peer_mdh")
    if os.path.exists(best):
        runs.append(("mdh", [mdh_peer, "--config", best] if mdh_peer else None))
    else:
        runs.append(("mdh-default", [mdh_peer] if mdh_peer else None))
    if options.portability:
        # Every other device's tuned configuration, run here: the performance-portability table.
        for other in sorted(glob.glob(os.path.join(ROOT, "results", "*", os.path.basename(best)))):
            other_slug = os.path.basename(os.path.dirname(other))
            if os.path.dirname(other) != folder and mdh_peer:
                runs.append(("mdh-config-of-" + other_slug, [mdh_peer, "--config", other]))
    for peer in case.get("peers", []):
        name = PEER_PROGRAMS.get(peer)
        path = program(name) if name else None
        command = [path] if path else None
        if peer == "clblast_tuned":
            tuned = os.path.join(folder, "clblast", "%s-%s" % (case["name"], case["label"]))
            command = command + ["--tuned", tuned] if command and os.path.exists(os.path.join(tuned, "done")) else None
        runs.append((peer, command))
    return runs


def flat_record(device, case, peer, record, status):
    row = {"device": device, "routine": case["name"], "label": case["label"], "sizes": case["size"], "peer": peer,
           "status": status}
    if record:
        for quantity in ("device_time", "call_time"):
            stats = record.get(quantity + "_ns", {})
            for key in ("median", "min", "max", "stddev"):
                row["%s_%s_ns" % (quantity, key)] = stats.get(key, "")
        validation = record.get("validation", {})
        row.update({"runs": record.get("runs", ""), "ci_met": record.get("ci_met", ""),
                    "validated": validation.get("passed", ""), "max_abs_error": validation.get("max_abs_error", ""),
                    "max_rel_error": validation.get("max_rel_error", ""),
                    "device_time_includes": record.get("time_includes", {}).get("device", ""),
                    "call_time_includes": record.get("time_includes", {}).get("call", "")})
        flops, median = record.get("flops"), stats_median(record)
        if flops and median:
            row["gflops"] = "%.2f" % (float(flops) / float(median))
    return row


def unavailable_reason(record_path):
    """What a peer that exited with 3 (it cannot run on this machine) said, from its log."""
    with open(record_path + ".log") as log:
        for line in log:
            if ": not available here: " in line:
                return line.split(": not available here: ", 1)[1].strip()
    return "the peer gave no reason"


def stats_median(record):
    return record.get("device_time_ns", {}).get("median") if record else None


def benchmark(options):
    folder = device_folder(options.device)
    slug = os.path.basename(folder)
    records_folder = os.path.join(folder, "records")
    os.makedirs(records_folder, exist_ok=True)
    peak = percent_of_limit.measure_peak(program("device_peak"), options.device, records_folder, run,
                                         options.run_timeout)
    rows = []
    for case in selected(load_experiments(options.experiments), options.only):
        reps = case.get("repetitions", {})
        for peer, command in peer_runs(case, folder, options):
            record_path = os.path.join(records_folder, "%s-%s-%s.json" % (case["name"], case["label"], peer))
            if command is None:
                rows.append(flat_record(slug, case, peer, None, "not available here"))
                continue
            command = command + ["--routine", case["name"], "--spec", os.path.join(ROOT, case["spec"]), "--size",
                                 case["size"], "--seed", str(case.get("seed", 1)), "--device", options.device,
                                 "--json", record_path, "--label", case["label"],
                                 "--warmups", str(reps.get("warmups", 2)), "--min-runs", str(reps.get("min_runs", 5)),
                                 "--max-runs", str(reps.get("max_runs", 200))]
            if os.path.exists(record_path):
                os.remove(record_path)
            with open(record_path + ".log", "w") as log:
                code = run(command, log, options.run_timeout)
            record = None
            if os.path.exists(record_path):
                with open(record_path) as f:
                    record = json.load(f)
            status = {0: "ok", 1: "validation failed", 3: "not available here (%s)" % unavailable_reason(record_path),
                      TIMED_OUT: "stopped after %gs (--run-timeout)" % (options.run_timeout or 0)}.get(
                          code, "error (exit %d; see %s.log)" % (code, os.path.relpath(record_path, ROOT)))
            rows.append(dict(flat_record(slug, case, peer, record, status),
                             **percent_of_limit.limit_fields(record, peak)))
            print("  %-14s %s" % (peer, status if code else "%.4f ms" % (float(stats_median(record)) / 1e6)),
                  flush=True)
    # Rows of cases not run this time (another --only) stay as they were.
    ran = {(r["routine"], r["label"]) for r in rows}
    rows = [r for r in read_rows(folder) if (r["routine"], r["label"]) not in ran] + rows
    with open(os.path.join(folder, "benchmark.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    metadata = {
        "device": mdh_output(["devices"]),
        "device_slug": slug,
        "compiler": subprocess.run(["c++", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
        if shutil.which("c++") else "unknown",
        "mdh_commit": subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True,
                                     text=True).stdout.strip() or os.environ.get("MDH_COMMIT", "unknown"),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "data_type": "fp32 (PRL: 14-byte records, float weights)",
        "layouts": "row-major as the spec files declare; each record states the library's own layout",
        "method": "warm-ups, then runs until the 95% confidence interval of the median is within 2% or max_runs; "
                  "every result validated against mdh's double-precision reference before timing",
        "times": "device_time = sum of the device's kernel times of one call (OpenCL profiling events / CUDA "
                 "events); call_time = host wall time of one whole call until it has finished",
        "experiments": os.path.relpath(os.path.abspath(options.experiments), ROOT),
    }
    metadata.update(percent_of_limit.peak_metadata(peak))
    with open(os.path.join(folder, "benchmark.json"), "w") as f:
        json.dump(metadata, f, indent=2)
    print("wrote %s" % os.path.relpath(os.path.join(folder, "benchmark.csv"), ROOT))


# ------------------------------------------------------------------------------------------------ print

def read_rows(folder):
    path = os.path.join(folder, "benchmark.csv")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def fmt_ms(ns):
    return "%.4f" % (float(ns) / 1e6) if ns not in ("", None) else "N/A"


def table(rows):
    """Rows of (routine, label, sizes, mdh time, [(peer, time, speedup)]) for one device."""
    cases = {}
    for row in rows:
        cases.setdefault((row["routine"], row["label"], row["sizes"]), []).append(row)
    out = []
    for (routine, label, sizes), items in cases.items():
        ours = next((r for r in items if r["peer"] in ("mdh", "mdh-default")), None)
        ours_time = ours["device_time_median_ns"] if ours and ours["status"] == "ok" else ""
        peers = []
        for r in items:
            if r is ours or r["peer"].startswith("mdh-config-of-"):
                continue  # the portability runs have their own table (results/portability.md)
            time_ns = r["device_time_median_ns"] if r["status"] == "ok" else ""
            speedup = "%.2f" % (float(time_ns) / float(ours_time)) if time_ns and ours_time else "N/A"
            peers.append((r["peer"], fmt_ms(time_ns) if time_ns else "N/A (%s)" % r["status"], speedup))
        out.append((routine, label, sizes, (ours["peer"] if ours else "mdh"), fmt_ms(ours_time), peers))
    return out


def print_results(options):
    folders = [device_folder(options.device)] if options.device_given else sorted(
        d for d in glob.glob(os.path.join(ROOT, "results", "*")) if os.path.isdir(d))
    for folder in folders:
        rows = read_rows(folder)
        if not rows:
            continue
        slug = os.path.basename(folder)
        lines = ["## %s" % slug, "",
                 "Median device time in ms (all kernels of one call); speedup = peer time / mdh time "
                 "(> 1: mdh is faster). Whole-call times are in benchmark.csv. % of limit: the achieved GFLOP/s or "
                 "GB/s (the spec's flops and bytes) as a share of this device's FP32 peak or copy bandwidth, "
                 "measured by device_peak in the same run; the larger share, named FP32 or BW.", "",
                 "| routine | label | sizes | mdh | % of limit | peer | peer time | speedup | peer % of limit |",
                 "|---|---|---|---|---|---|---|---|---|"]
        limits = percent_of_limit.limit_cells(rows)
        for routine, label, sizes, ours_name, ours, peers in table(rows):
            ours_limit = limits.get((routine, label, ours_name), "N/A")
            if not peers:
                lines.append("| %s | %s | %s | %s | %s | – | – | – | – |" % (routine, label, sizes, ours, ours_limit))
            for k, (peer, time_ms, speedup) in enumerate(peers):
                lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    routine if k == 0 else "", label if k == 0 else "", sizes if k == 0 else "",
                    ours if k == 0 else "", ours_limit if k == 0 else "", peer, time_ms, speedup,
                    limits.get((routine, label, peer), "N/A")))
        text = "\n".join(lines) + "\n"
        print(text)
        with open(os.path.join(folder, "tables.md"), "w") as f:
            f.write(text)
        if shutil.which("gnuplot"):
            plot_speedups(folder, table(rows))
            plot_tuning_curves(folder)
    if not options.device_given:
        print_portability()


def print_portability():
    """Lift-style performance-portability table: each device's tuned configuration run on every device, as the
    share of that device's own tuned time (1.00: as fast as the configuration tuned there; N/A: not run there).
    Written to results/portability.md from the mdh-config-of-<slug> rows that `benchmark --portability` records."""
    runs = {}  # (routine, label) -> {(config_of, run_on): time_ns}
    for folder in sorted(d for d in glob.glob(os.path.join(ROOT, "results", "*")) if os.path.isdir(d)):
        run_on = os.path.basename(folder)
        for row in read_rows(folder):
            if row["status"] != "ok" or not row["device_time_median_ns"]:
                continue
            if row["peer"] == "mdh":
                config_of = run_on
            elif row["peer"].startswith("mdh-config-of-"):
                config_of = row["peer"][len("mdh-config-of-"):]
            else:
                continue
            runs.setdefault((row["routine"], row["label"]), {})[(config_of, run_on)] = float(
                row["device_time_median_ns"])
    cases = {case: times for case, times in runs.items() if any(c != r for c, r in times)}
    if not cases:
        return
    lines = ["## Performance portability", "",
             "Each row: the configuration tuned on one device; each column: the device it runs on. Value: that "
             "device's own tuned time / this configuration's time there (1.00 = as good as tuning there).", ""]
    for (routine, label), times in sorted(cases.items()):
        devices = sorted({d for pair in times for d in pair})
        lines += ["### %s %s" % (routine, label), "",
                  "| configuration of / run on | " + " | ".join(devices) + " |",
                  "|---|" + "---|" * len(devices)]
        for config_of in devices:
            cells = []
            for run_on in devices:
                own, this = times.get((run_on, run_on)), times.get((config_of, run_on))
                cells.append("%.2f" % (own / this) if own and this else "N/A")
            lines.append("| %s | %s |" % (config_of, " | ".join(cells)))
        lines.append("")
    text = "\n".join(lines) + "\n"
    print(text)
    with open(os.path.join(ROOT, "results", "portability.md"), "w") as f:
        f.write(text)


def plot_speedups(folder, rows):
    data = os.path.join(folder, "speedup.dat")
    entries = [(("%s %s vs %s" % (routine, label, peer)).replace(" ", "_"), speedup)
               for routine, label, _, _, _, peers in rows for peer, _, speedup in peers if speedup != "N/A"]
    if not entries:
        return
    with open(data, "w") as f:
        for name, speedup in entries:
            f.write("%s %s\n" % (name, speedup))
    script = ("set terminal png size %d,600; set output '%s'; set style fill solid; set boxwidth 0.7; "
              "set ylabel 'speedup of mdh (peer time / mdh time)'; set xtics rotate by -60 font ',8'; "
              "set logscale y 2; set grid ytics; unset key; "
              "plot '%s' using 0:2:xtic(1) with boxes, 1 with lines lc rgb 'red'"
              % (max(800, 28 * len(entries)), os.path.join(folder, "speedup.png"), data))
    subprocess.run(["gnuplot", "-e", script], check=False)
    os.remove(data)


def plot_tuning_curves(folder):
    for journal in sorted(glob.glob(os.path.join(folder, "*.json.journal"))):
        points, best, last = [], None, 0.0
        with open(journal) as f:
            for line in f.readlines()[1:]:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue  # a torn last line after a kill
                last = max(last, record.get("elapsed", 0.0))
                if record.get("status") == "ok" and (best is None or record["cost"] < best):
                    best = record["cost"]
                    points.append((record["elapsed"], best * 1e3))
        if not points:
            continue
        name = os.path.basename(journal)[:-len(".json.journal")]
        data = journal + ".dat"
        with open(data, "w") as f:
            # The step curve runs to the end of tuning, also when the first configuration stayed the best.
            for t, c in points + [(max(last, points[-1][0] + 1e-3), points[-1][1])]:
                f.write("%g %g\n" % (t, c))
        script = ("set terminal png size 640,400; set output '%s'; set xlabel 'tuning time (s)'; "
                  "set ylabel 'best kernel time (ms)'; set title '%s'; unset key; set grid; set yrange [0:*]; "
                  "plot '%s' using 1:2 with steps lw 2" % (os.path.join(folder, "tuning-%s.png" % name), name, data))
        subprocess.run(["gnuplot", "-e", script], check=False)
        os.remove(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["tune", "benchmark", "print"])
    parser.add_argument("--device", default=None, help="device selector (P:D, gpu, cpu, name); default: mdh's default")
    parser.add_argument("--experiments", default=os.path.join(ROOT, "experiments.json"))
    parser.add_argument("--only", action="append", default=[], help="ROUTINE or ROUTINE:LABEL (repeatable)")
    parser.add_argument("--budget-scale", type=float, default=1.0, help="tune: multiply every tuning budget by this")
    parser.add_argument("--in-process", action="store_true",
                        help="tune: evaluate in the tuning process (no worker processes; see tuner/README.md)")
    parser.add_argument("--skip-peer-tuning", action="store_true", help="tune: do not run CLBlast's own tuners")
    parser.add_argument("--portability", action="store_true",
                        help="benchmark: also run every other device's tuned configuration on this device")
    parser.add_argument("--run-timeout", type=float, default=None,
                        help="benchmark: stop one program run after this many seconds (recorded, never fatal)")
    options = parser.parse_args()
    options.device_given = options.device is not None
    options.device = options.device or ""
    {"tune": tune, "benchmark": benchmark, "print": print_results}[options.command](options)


if __name__ == "__main__":
    main()
