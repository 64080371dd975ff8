#!/usr/bin/env python3
"""The experiment driver behind scripts/tune.sh, scripts/benchmark.sh and scripts/print_results.sh.

experiments.json names routines (spec file, size bindings with labels, peers, tuning budget, precision); this
script turns them into `mdh tune` runs, peer-program runs (one measurement method for mdh and every peer:
peers/peer_common.h) and result tables. Standard library only, so it runs wherever python3 does (here and on the
GPU machine).

Tuned configurations go to TUNED/<device-slug>/, TUNED being --tuned (default tuned/, the store that `mdh run`
reads); tables go to RESULTS/<device-slug>/, RESULTS being --results (default results/, the committed tables). The
main job, scripts/main.sh, puts both in local-results/, which git ignores. Layout:
  TUNED/<device>/<routine>-<label>.json   best configuration of `mdh tune`, its journal beside it (.journal while
                                    the run may be resumed, compressed to .journal.gz once it has finished)
  clblast/                          CLBlast's own tuner output (for the clblast_tuned peer)
  records/<routine>-<label>-<peer>.json   one measurement record per program run
  records/device_peak.json          the device's FP32 and copy limits, measured by device_peak in each benchmark run
  benchmark.csv, benchmark.json     all records of the device in one table, with metadata
  tables.md, speedup.png, tuning-*.png    made by `print`
RESULTS/portability.md is made by `print` without --device, from the rows of `benchmark --portability`.
"""
import argparse
import csv
import glob
import gzip
import json
import os
import shlex
import shutil
import subprocess
import sys
import time

import percent_of_limit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Peer name in experiments.json -> (program, extra arguments). clblast_tuned gets --tuned at run time.
PEER_PROGRAMS = {
    "openblas": ("peer_openblas", []),
    "eigen": ("peer_eigen", []),
    "clblast": ("peer_clblast", []),
    "clblast_tuned": ("peer_clblast", []),
    "cublas": ("peer_cuda", ["--peer", "cublas"]),
    "cublaslt": ("peer_cuda", ["--peer", "cublaslt"]),
    "cudnn": ("peer_cuda", ["--peer", "cudnn"]),
    "im2col_cublas": ("peer_cuda", ["--peer", "im2col_cublas"]),
    "cuda_stencil": ("peer_cuda", ["--peer", "cuda_stencil"]),
    "ttgt_lib": ("peer_cuda", ["--peer", "ttgt_lib"]),
    "prl_cuda": ("peer_cuda", ["--peer", "prl_cuda"]),
    "prl_threads": ("peer_prl", []),
}
# The compute precisions a row may ask for ("precision" of a routine or of one of its sizes; fp32 where absent). A
# row in another precision passes `--precision P` to mdh and to every peer program, which refuse a precision they
# do not compute in; fp32 rows pass nothing, so their commands are as they were.
PRECISIONS = ("fp32", "tf32")
# Environment variables removed from a peer's command: OpenBLAS reads these when it loads, and an inherited
# OPENBLAS_CORETYPE pins kernels older than the CPU (peer_openblas also runs itself again without them).
PEER_ENVIRONMENT_REMOVED = {"openblas": ["OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"]}
# The headline time is steady_time (time per call of N calls back to back between one pair of device timestamps,
# peers/steady_measurement.h); device_time (one call's events) and call_time (one call's host wall time) stay as
# diagnostic columns.
CSV_FIELDS = ["device", "routine", "label", "sizes", "precision", "peer", "peer_device", "status",
              "steady_time_median_ns", "steady_time_min_ns", "steady_time_max_ns", "steady_time_stddev_ns",
              "steady_calls_per_sample", "steady_samples", "steady_ci_met", "device_time_median_ns",
              "device_time_min_ns", "device_time_max_ns", "device_time_stddev_ns", "call_time_median_ns",
              "call_time_min_ns", "call_time_max_ns", "call_time_stddev_ns", "runs", "ci_met", "validated",
              "max_abs_error", "max_rel_error", "gflops", "steady_time_includes", "device_time_includes",
              "call_time_includes"]
CSV_FIELDS += percent_of_limit.CSV_FIELDS
# The share of the device's limit a program reached, in percent (FP32 peak for compute-bound cases, copy bandwidth
# for memory-bound ones, both measured in the same benchmark run by device_peak: percent_of_limit.py), and `limit`,
# naming which. tables.md shows it as a column, speedup.png beside the speedups (a roofline-style view).
PERCENT_OF_LIMIT = "percent_of_limit"


def program(name):
    """A program of ours: build/bin first, then PATH (the GPU bundle puts its bin/ there)."""
    for folder in (os.environ.get("MDH_BIN", ""), os.path.join(ROOT, "build", "bin")):
        if folder and os.access(os.path.join(folder, name), os.X_OK):
            return os.path.join(folder, name)
    return shutil.which(name)


def shown_path(path):
    """A path as the user should read it: relative to the current folder when inside it, else absolute."""
    path = os.path.abspath(path)
    relative = os.path.relpath(path, os.getcwd())
    return path if relative.startswith("..") else relative


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
    seen = set()
    for routine in experiments.get("routines", []):
        for size in routine["sizes"]:
            case = dict(defaults)
            case.update({k: v for k, v in routine.items() if k != "sizes"})
            case["label"], case["size"] = size["label"], size["size"]
            case["precision"] = size.get("precision", case.get("precision", "fp32"))
            if case["precision"] not in PRECISIONS:
                fail("%s: %s %s: precision '%s' is not one of %s" % (path, case["name"], case["label"],
                                                                   case["precision"], ", ".join(PRECISIONS)))
            # A label names a row's tuned configuration and records (ROUTINE-LABEL...), so a row in another
            # precision needs a label of its own.
            if (case["name"], case["label"]) in seen:
                fail("%s: two rows are named %s %s; give each its own label (e.g. %s-%s)" % (
                    path, case["name"], case["label"], case["label"], case["precision"]))
            seen.add((case["name"], case["label"]))
            cases.append(case)
    return cases


def precision_args(case):
    """`--precision P` for a row in a precision other than fp32; nothing for fp32 rows."""
    return [] if case["precision"] == "fp32" else ["--precision", case["precision"]]


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


def device_folder(options):
    return os.path.join(options.results, mdh_output(["devices", "--slug", options.device]))


def tuned_folder(options, folder=None):
    """The store's folder of the device whose tables are in `folder` (default: the selected device's)."""
    slug = os.path.basename(folder) if folder else mdh_output(["devices", "--slug", options.device])
    return os.path.join(options.tuned, slug)


def read_journal_lines(path):
    """The lines of a journal, plain or compressed (PATH.gz); OSError when neither exists."""
    with (open(path) if os.path.exists(path) else gzip.open(path + ".gz", "rt")) as f:
        return f.readlines()


def device_args(device):
    """`--device D` for a program of ours; nothing for the default device, so commands never show `--device ''`."""
    return ["--device", device] if device else []


def case_heading(k, cases, case):
    precision = "" if case["precision"] == "fp32" else ", " + case["precision"]
    return "case %d of %d: %s %s (%s%s)" % (k, len(cases), case["name"], case["label"], case["size"], precision)


def parse_seconds(text):
    text = str(text)
    scale = {"s": 1, "m": 60, "h": 3600}.get(text[-1:], None)
    return float(text[:-1]) * scale if scale else float(text)


TIMED_OUT = -1000  # run()'s status for a program stopped by its time limit


def run(command, log=None, timeout=None, env=None):
    print("+ " + shlex.join(command), flush=True)
    try:
        return subprocess.run(command, stdout=log, stderr=subprocess.STDOUT if log else None,
                              timeout=timeout, env=env).returncode
    except subprocess.TimeoutExpired:
        return TIMED_OUT


# ------------------------------------------------------------------------------------------------ tune

def tune(options):
    folder = device_folder(options)
    store = tuned_folder(options)
    os.makedirs(store, exist_ok=True)
    mdh = program("mdh")
    cases = selected(load_experiments(options.experiments), options.only)
    for k, case in enumerate(cases, 1):
        out = os.path.join(store, "%s-%s.json" % (case["name"], case["label"]))
        journal = out + ".journal"
        print("tune " + case_heading(k, cases, case), flush=True)
        if os.path.exists(out):
            print("  tuned already (%s)" % shown_path(out))
        else:
            budget = case.get("budget", {})
            command = [mdh, "tune", os.path.join(ROOT, case["spec"]), "--size", case["size"]] + device_args(
                options.device) + (["--technique", case["technique"]] if "technique" in case else []) + [
                    "--seed", str(case.get("seed", 1)), "--out", out, "--journal", journal] + precision_args(case)
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
            elif options.compress_journals and os.path.exists(journal):
                compress_journal(journal)
        if "clblast_tuned" in case.get("peers", []) and not options.skip_peer_tuning:
            tune_clblast(folder, case, options)


def compress_journal(journal):
    """A finished run's journal, kept as JOURNAL.gz: the store holds results and compressed journals only."""
    with open(journal, "rb") as plain, gzip.GzipFile(journal + ".gz", "wb", mtime=0) as packed:
        shutil.copyfileobj(plain, packed)
    os.remove(journal)


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
    """(peer name, command) for mdh and every peer of the case; command None when the program is missing. mdh is
    the tuned configuration where there is one, and the default configuration ("mdh-default") always: beside a
    tuned one it is the table's default column, measured in the same run."""
    runs = []
    best = os.path.join(tuned_folder(options, folder), "%s-%s.json" % (case["name"], case["label"]))
    mdh_peer = program("peer_mdh")
    if os.path.exists(best):
        runs.append(("mdh", [mdh_peer, "--config", best] if mdh_peer else None))
    runs.append(("mdh-default", [mdh_peer] if mdh_peer else None))
    if options.portability:
        # Every other device's tuned configuration, run here: the performance-portability table.
        for other in sorted(glob.glob(os.path.join(options.tuned, "*", os.path.basename(best)))):
            other_slug = os.path.basename(os.path.dirname(other))
            if os.path.dirname(other) != os.path.dirname(best) and mdh_peer:
                runs.append(("mdh-config-of-" + other_slug, [mdh_peer, "--config", other]))
    for peer in case.get("peers", []):
        if peer not in PEER_PROGRAMS:
            fail("experiments: unknown peer '%s' (known: %s)" % (peer, ", ".join(sorted(PEER_PROGRAMS))))
        name, arguments = PEER_PROGRAMS[peer]
        path = program(name)
        command = [path] + arguments if path else None
        if peer == "clblast_tuned":
            tuned = os.path.join(folder, "clblast", "%s-%s" % (case["name"], case["label"]))
            command = command + ["--tuned", tuned] if command and os.path.exists(os.path.join(tuned, "done")) else None
        runs.append((peer, command))
    return runs


def flat_record(device, case, peer, record, status):
    row = {"device": device, "routine": case["name"], "label": case["label"], "sizes": case["size"],
           "precision": case["precision"], "peer": peer, "status": status}
    if record:
        for quantity in ("steady_time", "device_time", "call_time"):
            stats = record.get(quantity + "_ns") or {}
            for key in ("median", "min", "max", "stddev"):
                row["%s_%s_ns" % (quantity, key)] = stats.get(key, "")
        steady = record.get("steady") or {}
        row.update({"peer_device": record.get("device", ""),
                    "steady_calls_per_sample": steady.get("calls_per_sample", ""),
                    "steady_samples": steady.get("samples", ""), "steady_ci_met": steady.get("ci_met", ""),
                    "steady_time_includes": record.get("time_includes", {}).get("steady", "")})
        validation = record.get("validation", {})
        row.update({"runs": record.get("runs", ""), "ci_met": record.get("ci_met", ""),
                    "validated": validation.get("passed", ""), "max_abs_error": validation.get("max_abs_error", ""),
                    "max_rel_error": validation.get("max_rel_error", ""),
                    "device_time_includes": record.get("time_includes", {}).get("device", ""),
                    "call_time_includes": record.get("time_includes", {}).get("call", "")})
        # The share of the device's limit, where the measurement states it (see PERCENT_OF_LIMIT).
        if record.get(PERCENT_OF_LIMIT) is not None:
            row[PERCENT_OF_LIMIT] = "%.1f" % float(record[PERCENT_OF_LIMIT])
            row["limit"] = record.get("limit", "")
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
    """The headline time of a record: the steady instrument's median (None where the program has none)."""
    return (record.get("steady_time_ns") or {}).get("median") if record else None


def benchmark(options):
    folder = device_folder(options)
    slug = os.path.basename(folder)
    records_folder = os.path.join(folder, "records")
    os.makedirs(records_folder, exist_ok=True)
    peak = percent_of_limit.measure_peak(program("device_peak"), options.device, records_folder, run,
                                         options.run_timeout)
    rows = []
    cases = selected(load_experiments(options.experiments), options.only)
    for k, case in enumerate(cases, 1):
        print("benchmark " + case_heading(k, cases, case), flush=True)
        reps = case.get("repetitions", {})
        for peer, command in peer_runs(case, folder, options):
            record_path = os.path.join(records_folder, "%s-%s-%s.json" % (case["name"], case["label"], peer))
            if command is None:
                why = "CLBlast's own tuners have not run here (scripts/tune.sh without --skip-peer-tuning)" if (
                    peer == "clblast_tuned" and program("peer_clblast")) else "its program is not built here"
                rows.append(flat_record(slug, case, peer, None, "not available here (%s)" % why))
                continue
            command = command + ["--routine", case["name"], "--spec", os.path.join(ROOT, case["spec"]), "--size",
                                 case["size"], "--seed", str(case.get("seed", 1))] + device_args(options.device) + [
                                 "--json", record_path, "--label", case["label"],
                                 "--warmups", str(reps.get("warmups", 2)), "--min-runs", str(reps.get("min_runs", 5)),
                                 "--max-runs", str(reps.get("max_runs", 200)), "--ci", str(reps.get("ci", 0.02))] + \
                precision_args(case)
            if os.path.exists(record_path):
                os.remove(record_path)
            env = None
            if peer in PEER_ENVIRONMENT_REMOVED:
                env = {k: v for k, v in os.environ.items() if k not in PEER_ENVIRONMENT_REMOVED[peer]}
            with open(record_path + ".log", "w") as log:
                code = run(command, log, options.run_timeout, env)
            record = None
            if os.path.exists(record_path):
                with open(record_path) as f:
                    record = json.load(f)
            status = {0: "ok", 1: "validation failed", 3: "not available here (%s)" % unavailable_reason(record_path),
                      TIMED_OUT: "stopped after %gs (--run-timeout)" % (options.run_timeout or 0)}.get(
                          code, "error (exit %d; see %s.log)" % (code, shown_path(record_path)))
            rows.append(dict(flat_record(slug, case, peer, record, status),
                             **percent_of_limit.limit_fields(record, peak)))
            median = stats_median(record)
            print("  %-14s %s" % (peer, status if code else "%.4f ms" % (float(median) / 1e6) if median else
                                  "ok (no steady time)"), flush=True)
    # Rows of cases not run this time (another --only) stay as they were.
    ran = {(r["routine"], r["label"]) for r in rows}
    rows = [dict(r, precision=r.get("precision") or "fp32") for r in read_rows(folder)
            if (r["routine"], r["label"]) not in ran] + rows  # rows from before the precision column: fp32
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
        "precision": "each row's precision column: fp32 throughout, or tf32 (float storage, products of TF32-rounded "
                     "inputs on the tensor cores, float accumulation; validated with the tolerance plus 2^-7)",
        "layouts": "row-major as the spec files declare; each record states the library's own layout",
        "method": "warm-ups, then runs until the 95% confidence interval of the median is within the case's "
                  "repetitions.ci (2% unless the experiments file says otherwise; each record's ci_target) or "
                  "max_runs; every result validated against mdh's double-precision reference before timing",
        "times": "steady_time (the headline) = time per call of N calls enqueued back to back between one pair of "
                 "device timestamps (CUDA events, OpenCL profiling of the first and last command, the host clock for "
                 "CPU libraries), N such that the pair spans >= 1 ms or >= 100 calls, repeated until the median's "
                 "95% interval is within the case's ci; device_time = one call's kernel time (OpenCL profiling "
                 "events / CUDA events), a diagnostic; call_time = host wall time of one whole call until it has "
                 "finished",
        "experiments": os.path.relpath(os.path.abspath(options.experiments), ROOT),
    }
    metadata.update(percent_of_limit.peak_metadata(peak))
    with open(os.path.join(folder, "benchmark.json"), "w") as f:
        json.dump(metadata, f, indent=2)
    print("wrote %s" % shown_path(os.path.join(folder, "benchmark.csv")))


# ------------------------------------------------------------------------------------------------ print


def read_rows(folder):
    path = os.path.join(folder, "benchmark.csv")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def fmt_ms(ns):
    return "%.4f" % (float(ns) / 1e6) if ns not in ("", None) else "N/A"


STEADY_COLUMN, EVENT_COLUMN = "steady_time_median_ns", "device_time_median_ns"


def headline_column(rows):
    """The time column tables compare: the steady instrument's; one call's events only for a benchmark.csv written
    before the instrument existed (its header has no steady column), so that one table never mixes the two."""
    return STEADY_COLUMN if not rows or STEADY_COLUMN in rows[0] else EVENT_COLUMN


def row_time(row, column):
    """(time in ns or "", why not) of a row in the headline column."""
    if row["status"] != "ok":
        return "", row["status"]
    if not row.get(column):
        return "", "no steady time: the program provides no steady_calls"
    return row[column], ""


def peer_label(row):
    """A peer's name in the tables, with "CPU, N cores" where it computed on the host CPU (peer_common.h's
    host_cpu_name), so that a CPU program is never read as a peer of the GPU's kind."""
    device = row.get("peer_device") or ""
    return "%s (%s)" % (row["peer"], device.split(" (")[0]) if device.startswith("CPU, ") else row["peer"]


def table(rows):
    """One dict per case of one device: routine, label, sizes, precision, ours (program name), ours_ms, peers [(peer,
    ms, speedup)] of the peers that ran, unavailable [(peer, reason)] of those that cannot run on this machine, and
    percent [(program, percent, limit)] where benchmark.csv has the percent_of_limit column. Times are the
    headline_column's."""
    column = headline_column(rows)
    cases = {}
    for row in rows:
        cases.setdefault((row["routine"], row["label"], row["sizes"]), []).append(row)
    out = []
    for (routine, label, sizes), items in cases.items():
        # The tuned configuration where there is one; the default configuration's row beside it is its column.
        ours = next((r for r in items if r["peer"] == "mdh"), None) or next(
            (r for r in items if r["peer"] == "mdh-default"), None)
        default = next((r for r in items if r["peer"] == "mdh-default"), None) if ours and ours["peer"] == "mdh" \
            else None
        ours_time, ours_why = row_time(ours, column) if ours else ("", "not run")
        # A benchmark.csv from before the precision column holds fp32 rows only.
        case = {"routine": routine, "label": label, "sizes": sizes, "precision": items[0].get("precision") or "fp32",
                "ours": ours["peer"] if ours else "mdh",
                "ours_ms": fmt_ms(ours_time) if ours_time else "N/A (%s)" % ours_why,
                "peers": [], "unavailable": [], "percent": []}
        if default is not None:
            default_time, default_why = row_time(default, column)
            case["default_ms"] = fmt_ms(default_time) if default_time else "N/A (%s)" % default_why
        for r in items:
            if r.get(PERCENT_OF_LIMIT) and r["status"] == "ok" and not r["peer"].startswith("mdh-config-of-"):
                case["percent"].append((r["peer"], float(r[PERCENT_OF_LIMIT]), r.get("limit", "")))
            if r is ours or r is default or r["peer"].startswith("mdh-config-of-"):
                continue  # the portability runs have their own table (RESULTS/portability.md)
            if r["status"].startswith("not available here"):
                reason = r["status"][len("not available here"):].strip()
                case["unavailable"].append((r["peer"], reason[1:-1] if reason.startswith("(") else reason))
                continue
            time_ns, why = row_time(r, column)
            speedup = "%.2f" % (float(time_ns) / float(ours_time)) if time_ns and ours_time else "N/A"
            case["peers"].append((peer_label(r), fmt_ms(time_ns) if time_ns else "N/A (%s)" % why, speedup))
        out.append(case)
    return out


def device_name(folder):
    """The device's name as mdh's own measurement records give it, else the folder's slug."""
    for path in sorted(glob.glob(os.path.join(folder, "records", "*-mdh*.json"))):
        try:
            with open(path) as f:
                name = json.load(f).get("device")
        except (OSError, ValueError):
            continue
        if name:
            return name
    return os.path.basename(folder)


def best_was_the_default_start(folder, routine, label, records, first):
    """Whether the committed configuration of a run that started from the default is that default: its final timing
    chose the default's finalist, or, for a run without one, no evaluation beat the first (journals of older versions
    write configurations in another form, so the configurations themselves are not compared)."""
    try:
        with open(os.path.join(folder, "%s-%s.json" % (routine, label))) as f:
            result = json.load(f)
        final = result.get("final_timing")
    except (OSError, ValueError, AttributeError):
        return False
    if final:
        finalists = final.get("finalists", [])
        chosen = final.get("chosen")
        return isinstance(chosen, int) and 0 <= chosen < len(finalists) and finalists[chosen].get("role") == "default"
    costs = [r["cost"] for r in records if r.get("status") == "ok" and r.get("cost") is not None]
    # And the committed result is this journal's: its time is the first evaluation's.
    kernel_ns = result.get("kernel_time_ns")
    same_run = isinstance(kernel_ns, (int, float)) and abs(kernel_ns - first["cost"] * 1e9) <= 1e-6 * kernel_ns
    return bool(costs) and min(costs) == first["cost"] and same_run


def tuning_cells(folder, routine, label, ours):
    """The tuning behind a row, from the journal beside its tuned configuration (RESULTS/<device>/<routine>-<label>
    .json.journal, or .json.journal.gz for a run too long to keep uncompressed): ("E evaluations, S s", the default
    configuration's time in ms as the tuner measured it: the run's first evaluation where the journal says it
    started from the default, marked "(tuning)"), with "–" where there is none."""
    if ours == "mdh-default":
        return "none (default configuration)", "–"
    path = os.path.join(folder, "%s-%s.json.journal" % (routine, label))
    try:
        lines = read_journal_lines(path)
    except OSError:
        return "–", "–"
    try:
        header = json.loads(lines[0]) if lines else {}
    except ValueError:
        header = {}
    records = []
    for line in lines[1:]:
        try:
            records.append(json.loads(line))
        except ValueError:
            continue  # a torn last line after a kill
    if not records:
        return "0 evaluations", "–"
    seconds = max(r.get("elapsed", 0.0) for r in records)
    default = "N/A (not started from it)"
    if header.get("metadata", {}).get("default_start"):
        first = next((r for r in records if r.get("evaluation") == 1), None)
        if first is not None:
            default = "%.4f (tuning)" % (first["cost"] * 1e3) if first.get("status") == "ok" else \
                "N/A (%s)" % first["status"]
            if first.get("status") == "ok" and best_was_the_default_start(folder, routine, label, records, first):
                default = "%.4f (tuning; same configuration)" % (first["cost"] * 1e3)
    return "{:,} evaluation{}, {:.0f} s".format(len(records), "" if len(records) == 1 else "s", seconds), default


def same_configuration(folder, routine, label):
    """Whether the tuned row and the default row of a case ran one and the same configuration (their records'
    config_values): a tuning run whose best was its default start commits the default, and the two medians then
    differ by the run-to-run noise alone, which the table must not present as a tuned configuration slower than the
    default."""
    values = []
    for peer in ("mdh", "mdh-default"):
        try:
            with open(os.path.join(folder, "records", "%s-%s-%s.json" % (routine, label, peer))) as f:
                values.append(json.load(f).get("notes", {}).get("config_values"))
        except (OSError, ValueError, AttributeError):
            return False
    return values[0] is not None and values[0] == values[1]


HEADLINE_TEXT = {
    STEADY_COLUMN: "Median steady time in ms: the time per call of N calls enqueued back to back between one pair of "
                   "device timestamps (CUDA events, OpenCL profiling of the first and last command, the host clock "
                   "for CPU libraries; peers/README.md), for mdh and every peer alike",
    EVENT_COLUMN: "Median device time in ms of one call (its profiling events; this benchmark.csv predates the steady "
                  "instrument)",
}


def tables_text(folder, store, cases, limits, column=STEADY_COLUMN):
    """tables.md of one device (tuning columns from the journals in `store`); `limits`: the "% of limit" cells
    by (routine, label, program); `column`: the time the cases hold (headline_column)."""
    slug = os.path.basename(folder)
    name = device_name(folder)
    lines = ["## %s" % (slug if name == slug else "%s (%s)" % (slug, name)), "",
             HEADLINE_TEXT[column] + "; speedup = peer time / mdh time (> 1: mdh is faster); a peer marked "
             "(CPU, N cores) computed on the host CPU. One call's event time and whole-call time are in "
             "benchmark.csv. % of limit: the achieved GFLOP/s or "
             "GB/s (the spec's flops and bytes) as a share of this device's FP32 peak or copy bandwidth, "
             "measured by device_peak in the same run; the larger share, named FP32 or BW. Tuning: the evaluations "
             "and seconds of the tuning run behind mdh's configuration (its journal); default: the default "
             "configuration's time in ms, measured in the same run, or where this run did not measure it, as the "
             "tuning run did (marked (tuning): the median of its 3 timed runs, in another call); 'same configuration' where "
             "the tuned configuration is the default one, the two times then differing by the run-to-run noise. "
             "Precision: fp32 throughout, or tf32 (products of TF32-rounded inputs on the tensor cores, float "
             "accumulation), mdh and every peer of the row alike; a tf32 row's % of limit is its bandwidth share "
             "(device_peak measures no tensor-core peak).", "",
             "| routine | label | sizes | precision | mdh | % of limit | tuning | default | peer | peer time | "
             "speedup | peer % of limit |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    unavailable = {}
    for case in cases:
        ours_limit = limits.get((case["routine"], case["label"], case["ours"]), "N/A")
        tuning, default = tuning_cells(store, case["routine"], case["label"], case["ours"])
        default = case.get("default_ms", default)
        if "default_ms" in case and same_configuration(folder, case["routine"], case["label"]):
            default += " (same configuration)"
        first = [case["routine"], case["label"], case["sizes"], case["precision"], case["ours_ms"], ours_limit, tuning,
                 default]
        if not case["peers"]:
            lines.append("| %s | – | – | – | – |" % " | ".join(first))
        for k, (peer, time_ms, speedup) in enumerate(case["peers"]):
            lines.append("| %s | %s | %s | %s | %s |" % (" | ".join(first if k == 0 else [""] * len(first)), peer,
                                                         time_ms,
                                                         speedup, limits.get((case["routine"], case["label"],
                                                                              peer.split(" (")[0]),
                                                                             "N/A")))
        for peer, reason in case["unavailable"]:
            unavailable.setdefault(peer, reason)
    if unavailable:
        lines += ["", "Peers that cannot run on this machine (not failures of mdh): " + "; ".join(
            "%s (%s)" % (peer, reason or "no reason recorded") for peer, reason in sorted(unavailable.items())) + "."]
    return "\n".join(lines) + "\n"


def print_results(options):
    folders = [device_folder(options)] if options.device_given else sorted(
        d for d in glob.glob(os.path.join(options.results, "*")) if os.path.isdir(d))
    for folder in folders:
        rows = read_rows(folder)
        if not rows:
            if options.device_given:
                print("no benchmark results in %s (run scripts/benchmark.sh first)" % shown_path(folder))
            continue
        cases = table(rows)
        store = tuned_folder(options, folder)
        text = tables_text(folder, store, cases, percent_of_limit.limit_cells(rows), headline_column(rows))
        print(text)
        with open(os.path.join(folder, "tables.md"), "w") as f:
            f.write(text)
        if shutil.which("gnuplot"):
            plot_speedups(folder, cases)
            plot_tuning_curves(folder, store)
        else:
            print("(no plots: gnuplot is not installed)")
        if options.device_given:
            print_file_list(folder, store)
    if not options.device_given:
        print_portability(options.results)


def print_file_list(folder, store):
    """What the device's folders hold (tables in `folder`, tuned configurations in `store`), for someone who has just
    run the main job."""
    def rel(where, name):
        return shown_path(os.path.join(where, name))

    def count(where, pattern):
        return len(glob.glob(os.path.join(where, pattern)))

    entries = []
    for name, what in (("tables.md", "the tables above"),
                       ("benchmark.csv", "every program run: device and call times (median, min, max, stddev), "
                                         "runs, validation, GFLOP/s"),
                       ("benchmark.json", "how they were measured: device, compiler, commit, date, method"),
                       ("speedup.png", "speedup of mdh over each peer, per case")):
        if os.path.exists(os.path.join(folder, name)):
            entries.append((rel(folder, name), what))
    configs = [p for p in glob.glob(os.path.join(store, "*.json")) if not p.endswith("benchmark.json")]
    for where, pattern, n, what in (
            (folder, "tuning-*.png", count(folder, "tuning-*.png"), "best kernel time over tuning time, one plot per case"),
            (store, "*-*.json", len(configs), "the best configuration of each case (mdh run SPEC --size ... --config FILE)"),
            (store, "*.json.journal", count(store, "*.json.journal"), "every evaluation of an unfinished tuning run (mdh tune --resume)"),
            (store, "*.json.journal.gz", count(store, "*.json.journal.gz"), "every evaluation of each finished tuning run"),
            (folder, "records/*.json", count(folder, "records/*.json"), "one measurement record per program run, its log beside it")):
        if n:
            entries.append((rel(where, pattern), "%s (%d)" % (what, n)))
    width = max(len(path) for path, _ in entries) if entries else 0
    heading = rel(folder, ".") if os.path.abspath(folder) == os.path.abspath(store) else "%s, %s" % (rel(folder, "."), rel(store, "."))
    print("\n".join(["The files of this device (%s):" % heading] +
                    ["  %-*s  %s" % (width, path, what) for path, what in entries]))


def print_portability(results):
    """Lift-style performance-portability table: each device's tuned configuration run on every device, as the
    share of that device's own tuned time (1.00: as fast as the configuration tuned there; N/A: not run there).
    Written to RESULTS/portability.md from the mdh-config-of-<slug> rows that `benchmark --portability` records."""
    runs = {}  # (routine, label) -> {(config_of, run_on): time_ns}
    for folder in sorted(d for d in glob.glob(os.path.join(results, "*")) if os.path.isdir(d)):
        run_on = os.path.basename(folder)
        rows = read_rows(folder)
        column = headline_column(rows)
        for row in rows:
            if row["status"] != "ok" or not row.get(column):
                continue
            if row["peer"] == "mdh":
                config_of = run_on
            elif row["peer"].startswith("mdh-config-of-"):
                config_of = row["peer"][len("mdh-config-of-"):]
            else:
                continue
            runs.setdefault((row["routine"], row["label"]), {})[(config_of, run_on)] = float(
                row[column])
    cases = {case: times for case, times in runs.items() if any(c != r for c, r in times)}
    lines = ["## Performance portability", "",
             "Each row: the configuration tuned on one device; each column: the device it runs on. Value: that "
             "device's own tuned time / this configuration's time there (1.00 = as good as tuning there).", ""]
    if not cases:
        # Said, rather than leaving an older table of configurations that may no longer be committed.
        lines.append("No device's benchmark.csv holds a portability run (`benchmark --portability`, rows "
                     "mdh-config-of-<device>) of the configurations committed today.")
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
    with open(os.path.join(results, "portability.md"), "w") as f:
        f.write(text)


def gnuplot_string(text):
    """A double-quoted gnuplot string (where \\n is a line break)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


GREEN, RED, BLUE = 0x2E8B57, 0xC0392B, 0x4A6FA5  # bar colours: mdh ahead or mdh itself, mdh behind, a peer


def bar_panel(entries, data, title, xlabel, logscale, value_format):
    """gnuplot commands for one panel of horizontal bars: entries are (label, value, colour), one bar each, the
    first at the top. Bars start at 1 on a log scale (speedups: left of 1 = slower), at 0 on a linear one."""
    with open(data, "w") as f:
        for k, (label, value, colour) in enumerate(entries):
            f.write('%d %g "%s" %d\n' % (len(entries) - 1 - k, value, label.replace('"', "'"), colour))
    values = [v for _, v, _ in entries]
    base = 1 if logscale else 0
    if logscale:
        low, high = min(values + [1.0]) / 1.6, max(values + [1.0]) * 3.5  # room for the value labels
        axis = ("set logscale x 2; set xrange [%g:%g]; set format x '%%.3g'; "
                "set arrow 1 from 1, graph 0 to 1, graph 1 nohead lc rgb 'black' lw 1.5; " % (low, high))
    else:
        axis = "unset logscale x; unset arrow 1; set xrange [0:%g]; " % (max(values + [100.0]) * 1.15)
    return ("set title %s; set xlabel %s; %s set yrange [-0.7:%g]; set grid xtics; unset key; "
            "set style fill solid 0.75 border -1; set ytics scale 0; "
            "plot %s using (%g):1:(%g):2:($1-0.35):($1+0.35):4:ytic(3) with boxxyerror lc rgb variable, "
            "%s using ($2 > %g ? $2 : %g):1:(sprintf(' %s', $2)) with labels left font ',9'"
            % (gnuplot_string(title), gnuplot_string(xlabel), axis, len(entries) - 0.3, gnuplot_string(data), base,
               base, gnuplot_string(data), base, base, value_format))


def plot_speedups(folder, cases):
    """speedup.png: one bar per (case, peer), labelled with the case's sizes, titled with the device; beside it the
    share of the device's limit per program when benchmark.csv has that column."""
    device = device_name(folder)
    speedups = [("%s %s vs %s" % (c["routine"], c["sizes"], peer), float(s), GREEN if float(s) >= 1 else RED)
                for c in cases for peer, _, s in c["peers"] if s != "N/A"]
    percents = [("%s %s %s%s" % (c["routine"], c["sizes"], program_name, " (%s)" % limit if limit else ""), p,
                 GREEN if program_name.startswith("mdh") else BLUE) for c in cases for program_name, p, limit in c["percent"]]
    output = os.path.join(folder, "speedup.png")
    if not speedups and not percents:
        if os.path.exists(output):
            os.remove(output)  # a plot of earlier rows would describe results no longer in the tables
        return
    rows = max(len(speedups), len(percents))
    label_chars = max(len(label) for label, _, _ in speedups + percents)
    panel_width = max(900, 7 * label_chars + 520)
    panels = [p for p in (speedups, percents) if p]
    script = ["set terminal pngcairo size %d,%d noenhanced font 'sans,10'" % (panel_width * len(panels),
                                                                              (150 if len(panels) > 1 else 110) + 26 * rows),
              "set output %s" % gnuplot_string(output), "set encoding utf8"]
    if len(panels) > 1:
        script.append("set multiplot layout 1,2 title %s font ',12'" % gnuplot_string(
            "mdh and its peers on %s" % device))
    data_files = []
    if speedups:
        data = os.path.join(folder, "speedup.dat")
        data_files.append(data)
        script.append(bar_panel(speedups, data, ("" if len(panels) > 1 else "mdh and its peers on %s\n" % device) +
                                "speedup of mdh = peer time / mdh time (right of 1: mdh is faster)",
                                "speedup of mdh (log scale)", True, "%.2f"))
    if percents:
        data = os.path.join(folder, "percent.dat")
        data_files.append(data)
        script.append(bar_panel(percents, data, ("" if len(panels) > 1 else "mdh and its peers on %s\n" % device) +
                                "share of the device's limit (FP32 peak or copy bandwidth)",
                                "% of limit", False, "%.1f%%"))
    if len(panels) > 1:
        script.append("unset multiplot")
    subprocess.run(["gnuplot"], input="\n".join(script) + "\n", text=True, check=False)
    for data in data_files:
        os.remove(data)


def y_axis(values):
    """Log scale where the values span a decade or more (tuning often starts far above its end), else linear from 0."""
    low, high = min(values), max(values)
    if high >= 10 * low:
        return "set logscale y; set format y '%%g'; set mytics 10; set yrange [%g:%g];" % (low / 1.5, high * 1.5)
    return "set yrange [0:%g];" % (high * 1.15)


def plot_tuning_curves(folder, store):
    device = device_name(folder)
    journals = sorted(set(p[:-len(".gz")] if p.endswith(".gz") else p
                          for p in glob.glob(os.path.join(store, "*.json.journal")) +
                          glob.glob(os.path.join(store, "*.json.journal.gz"))))
    for journal in journals:
        points, best, last, sizes = [], None, 0.0, ""
        lines = read_journal_lines(journal)
        try:
            metadata = json.loads(lines[0]).get("metadata", {}) if lines else {}
        except ValueError:
            metadata = {}
        sizes = metadata.get("sizes", "")
        if not isinstance(sizes, str):
            sizes = ",".join("%s=%s" % item for item in sizes.items())
        for line in lines[1:]:
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
        data = os.path.join(folder, name + ".tuning.dat")
        with open(data, "w") as f:
            # The step curve runs to the end of tuning, also when the first configuration stayed the best.
            for t, c in points + [(max(last, points[-1][0] + 1e-3), points[-1][1])]:
                f.write("%g %g\n" % (t, c))
        title = "tuning %s (%s)\non %s: %d evaluations, best %.4f ms" % (
            name, sizes, metadata.get("device", device), len(lines) - 1, points[-1][1])
        script = ("set terminal pngcairo size 800,450 noenhanced font 'sans,10'; set output %s; "
                  "set xlabel 'tuning time (s)'; set ylabel 'best kernel time so far (ms)'; set title %s; "
                  "unset key; set grid; %s set xrange [0:*]; "
                  "plot %s using 1:2 with steps lw 2 lc rgb '#2e8b57'"
                  % (gnuplot_string(os.path.join(folder, "tuning-%s.png" % name)), gnuplot_string(title),
                     y_axis([c for _, c in points]), gnuplot_string(data)))
        subprocess.run(["gnuplot", "-e", script], check=False)
        os.remove(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["tune", "benchmark", "print"])
    parser.add_argument("--device", default=None, help="device selector (P:D, gpu, cpu, name); default: mdh's default")
    parser.add_argument("--experiments", default=os.path.join(ROOT, "experiments.json"))
    parser.add_argument("--results", default=os.path.join(ROOT, "results"),
                        help="folder of the device folders (default: results/, the committed results)")
    parser.add_argument("--tuned", default=os.path.join(ROOT, "tuned"),
                        help="folder of the device folders of tuned configurations (default: tuned/, the store)")
    parser.add_argument("--keep-journals", dest="compress_journals", action="store_false",
                        help="tune: leave finished journals uncompressed (default: JOURNAL.gz once the run finished)")
    parser.add_argument("--only", action="append", default=[], help="ROUTINE or ROUTINE:LABEL (repeatable)")
    parser.add_argument("--budget-scale", type=float, default=1.0, help="tune: multiply every tuning budget by this")
    parser.add_argument("--in-process", action="store_true",
                        help="tune: evaluate in the tuning process (no worker processes; see docs/tuner-design.md)")
    parser.add_argument("--skip-peer-tuning", action="store_true", help="tune: do not run CLBlast's own tuners")
    parser.add_argument("--portability", action="store_true",
                        help="benchmark: also run every other device's tuned configuration on this device")
    parser.add_argument("--run-timeout", type=float, default=None,
                        help="benchmark: stop one program run after this many seconds (recorded, never fatal)")
    options = parser.parse_args()
    options.device_given = options.device is not None
    options.results = os.path.abspath(options.results)
    options.tuned = os.path.abspath(options.tuned)
    options.device = options.device or ""
    {"tune": tune, "benchmark": benchmark, "print": print_results}[options.command](options)


if __name__ == "__main__":
    main()
