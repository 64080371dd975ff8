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
  benchmark.csv, benchmark.json     all records of the device in one table (each row with its run_id), and the
                                    runs of the table (provenance.py)
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
import provenance
import result_tables
# The tables' functions, also under this module's name (its tests and callers use experiments.table etc.).
from result_tables import (EVENT_COLUMN, PERCENT_OF_LIMIT, STEADY_COLUMN, device_name, fmt_ms,  # noqa: F401
                           headline_column, read_journal_lines, read_rows, same_configuration, table, tables_text,
                           tuning_cells)

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
# input_type: the spec's input type as the program's record names it (fp32, fp16, bf16, ...); empty without a record
# and in rows from before the column, which were fp32.
CSV_FIELDS = ["run_id", "device", "routine", "label", "sizes", "precision", "input_type", "peer", "peer_device",
              "status",
              "steady_time_median_ns", "steady_time_min_ns", "steady_time_max_ns", "steady_time_stddev_ns",
              "steady_calls_per_sample", "steady_samples", "steady_ci_met", "device_time_median_ns",
              "device_time_min_ns", "device_time_max_ns", "device_time_stddev_ns", "call_time_median_ns",
              "call_time_min_ns", "call_time_max_ns", "call_time_stddev_ns", "runs", "ci_met", "validated",
              "max_abs_error", "max_rel_error", "gflops", "steady_time_includes", "device_time_includes",
              "call_time_includes"]
CSV_FIELDS += percent_of_limit.CSV_FIELDS


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


def flat_record(run_id, device, case, peer, record, status):
    row = {"run_id": run_id, "device": device, "routine": case["name"], "label": case["label"], "sizes": case["size"],
           "precision": case["precision"], "peer": peer, "status": status}
    if record:
        for quantity in ("steady_time", "device_time", "call_time"):
            stats = record.get(quantity + "_ns") or {}
            for key in ("median", "min", "max", "stddev"):
                row["%s_%s_ns" % (quantity, key)] = stats.get(key, "")
        steady = record.get("steady") or {}
        row.update({"peer_device": record.get("device", ""), "input_type": record.get("input_type", ""),
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


def kept_rows(options, folder, cases, run_id):
    """The rows of the device's table that a run of `cases` keeps; refuses rows of another run without --merge."""
    ran = {(case["name"], case["label"]) for case in cases}
    kept = [r for r in read_rows(folder) if (r["routine"], r["label"]) not in ran]
    if options.replace:  # this run's table alone: rows of other runs go, whatever their cases
        kept = [r for r in kept if provenance.row_run_id(r) == run_id]
    others = [other for other in provenance.run_ids(kept) if other != run_id]
    if others and not options.merge:
        fail("%s holds rows of %s that this run does not measure again (%s); benchmark those cases too, write to "
             "another --results folder, or pass --merge to keep them beside this run's rows, each naming its run"
             % (shown_path(os.path.join(folder, "benchmark.csv")), ", ".join(others),
                ", ".join(sorted({"%s:%s" % (r["routine"], r["label"]) for r in kept
                                  if provenance.row_run_id(r) in others}))))
    return kept


def check_table(options):
    """`benchmark`'s refusal alone, before anything runs (scripts/main.sh asks before it tunes)."""
    kept_rows(options, device_folder(options), selected(load_experiments(options.experiments), options.only),
              options.run_id)


def start_run(options, folder, cases, started):
    """This run's metadata, and the rows of earlier runs it keeps. Refuses, before anything runs, to keep rows of
    another run without --merge: a table is one run on one card unless its user asks for more."""
    slug = os.path.basename(folder)
    run_id = options.run_id or provenance.new_run_id(slug, started)
    if not provenance.RUN_ID_PATTERN.match(run_id):
        fail("--run-id %s: not a run id (`experiments.py run-id` prints a new one)" % run_id)
    ran = {(case["name"], case["label"]) for case in cases}
    kept = kept_rows(options, folder, cases, run_id)
    selector = mdh_output(["devices", "--selector", options.device])
    built_from = mdh_output(["--version"]).split()[-1]
    this_run = provenance.run_metadata(run_id, ROOT, mdh_output(["devices"]), selector, started, built_from)
    compiler = subprocess.run(["c++", "--version"], capture_output=True, text=True).stdout.split("\n")[0] if \
        shutil.which("c++") else "unknown"
    this_run.update({"compiler": compiler, "experiments": os.path.relpath(os.path.abspath(options.experiments), ROOT),
                     "cases": [], "peer_library_versions": {}})
    earlier = read_metadata(folder).get("runs", [])
    joined = next((r for r in earlier if r.get(provenance.RUN_ID_FIELD) == run_id), None)
    if joined:
        if not provenance.same_card(joined, this_run):
            fail("--run-id %s ran on %s; this call would add rows of %s to it" % (
                run_id, joined.get("device", {}).get("name"), this_run["device"].get("name")))
        this_run = provenance.joined_run(joined, this_run)
        this_run["cases"] = [c for c in this_run.get("cases", []) if (c["routine"], c["label"]) not in ran]
    this_run["cases"] += [provenance.case_settings(case) for case in cases]
    return this_run, kept, earlier


def print_run_id(options):
    """A new run id for the selected device, for a benchmark of several calls (--run-id in each)."""
    print(provenance.new_run_id(mdh_output(["devices", "--slug", options.device])))


def read_metadata(folder):
    try:
        with open(os.path.join(folder, "benchmark.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def benchmark(options):
    folder = device_folder(options)
    slug = os.path.basename(folder)
    records_folder = os.path.join(folder, "records")
    cases = selected(load_experiments(options.experiments), options.only)
    run_info, kept, earlier_runs = start_run(options, folder, cases, time.time())
    run_id = run_info[provenance.RUN_ID_FIELD]
    print("run %s" % run_id, flush=True)
    os.makedirs(records_folder, exist_ok=True)
    peak = percent_of_limit.measure_peak(program("device_peak"), options.device, records_folder, run,
                                         options.run_timeout)
    rows, records = [], []
    for k, case in enumerate(cases, 1):
        print("benchmark " + case_heading(k, cases, case), flush=True)
        reps = case.get("repetitions", {})
        for peer, command in peer_runs(case, folder, options):
            record_path = os.path.join(records_folder, "%s-%s-%s.json" % (case["name"], case["label"], peer))
            if command is None:
                why = "CLBlast's own tuners have not run here (scripts/tune.sh without --skip-peer-tuning)" if (
                    peer == "clblast_tuned" and program("peer_clblast")) else "its program is not built here"
                rows.append(flat_record(run_id, slug, case, peer, None, "not available here (%s)" % why))
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
                record[provenance.RUN_ID_FIELD] = run_id
                with open(record_path, "w") as f:
                    json.dump(record, f, indent=2, sort_keys=True)
                records.append((peer, record))
            status = {0: "ok", 1: "validation failed", 3: "not available here (%s)" % unavailable_reason(record_path),
                      TIMED_OUT: "stopped after %gs (--run-timeout)" % (options.run_timeout or 0)}.get(
                          code, "error (exit %d; see %s.log)" % (code, shown_path(record_path)))
            rows.append(dict(flat_record(run_id, slug, case, peer, record, status),
                             **percent_of_limit.limit_fields(record, peak)))
            median = stats_median(record)
            print("  %-14s %s" % (peer, status if code else "steady %.4f ms" % (float(median) / 1e6) if median else
                                  "ok (no steady time)"), flush=True)
    # Rows from before the precision column are fp32.
    rows = [dict(r, precision=r.get("precision") or "fp32") for r in kept] + rows
    with open(os.path.join(folder, "benchmark.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(dict(r, run_id=provenance.row_run_id(r)) for r in rows)
    prune_records(records_folder, rows)
    for peer, versions in provenance.peer_versions(records).items():
        known = run_info["peer_library_versions"].setdefault(peer, [])
        known += [v for v in versions if v not in known]
    run_info.update(percent_of_limit.peak_metadata(peak))
    run_info["end"] = provenance.utc(time.time())
    with open(os.path.join(folder, "benchmark.json"), "w") as f:
        json.dump(benchmark_metadata(slug, rows, run_info, earlier_runs), f, indent=2)
    print("wrote %s (run %s)" % (shown_path(os.path.join(folder, "benchmark.csv")), run_id))


def prune_records(records_folder, rows):
    """Removes the records (and their logs) of programs that no row of the table names: a table's folder keeps the
    records behind its rows only, not those of peers or cases that earlier runs measured."""
    kept = {"device_peak"} | {"%s-%s-%s" % (r["routine"], r["label"], r["peer"]) for r in rows}
    for path in glob.glob(os.path.join(records_folder, "*.json")):
        if os.path.basename(path)[:-len(".json")] not in kept:
            for stale in (path, path + ".log"):
                if os.path.exists(stale):
                    os.remove(stale)


def benchmark_metadata(slug, rows, run_info, earlier_runs):
    """benchmark.json: the runs whose rows the table holds, exactly those, and how every run measures."""
    ids = provenance.run_ids(rows)
    runs = [r for r in earlier_runs if r.get(provenance.RUN_ID_FIELD) in ids and
            r.get(provenance.RUN_ID_FIELD) != run_info[provenance.RUN_ID_FIELD]] + [run_info]
    metadata = {
        "device_slug": slug,
        "run_ids": ids,
        "merged": len(ids) > 1,
        "runs": sorted(runs, key=lambda r: ids.index(r[provenance.RUN_ID_FIELD])),
        "data_type": "fp32 (PRL: 14-byte records, float weights), or as each row's input_type says (fp16, bf16: "
                     "half and bfloat16 inputs, apps/gemm_half.mdh and apps/gemm_bfloat16.mdh)",
        "precision": "each row's precision column: fp32 throughout, or tf32 (float storage, products of TF32-rounded "
                     "inputs on the tensor cores, float accumulation; validated with the tolerance plus 2^-7); rows "
                     "of half or bfloat16 inputs (input_type fp16, bf16) multiply them exactly and accumulate in "
                     "float, in either precision (tf32: on the tensor cores)",
        "layouts": "row-major as the spec files declare; each record states the library's own layout",
        "method": "warm-ups, then runs until the 95% confidence interval of the median is within the case's "
                  "repetitions.ci (2% unless the experiments file says otherwise; each run's cases list them) or "
                  "max_runs; every result validated against mdh's double-precision reference before timing",
        "times": "steady_time (the headline) = time per call of N calls enqueued back to back between one pair of "
                 "device timestamps (CUDA events, OpenCL profiling of the first and last command, the host clock for "
                 "CPU libraries), N such that the pair spans >= 1 ms or >= 100 calls, repeated until the median's "
                 "95% interval is within the case's ci; device_time = one call's kernel time (OpenCL profiling "
                 "events / CUDA events), a diagnostic; call_time = host wall time of one whole call until it has "
                 "finished",
    }
    if provenance.LEGACY_RUN in ids:
        metadata["legacy"] = ("rows of run_id '%s' were written before the harness recorded runs and were kept with "
                              "--merge; nothing here describes them" % provenance.LEGACY_RUN)
    return metadata


# ------------------------------------------------------------------------------------------------ print


def print_results(options):
    folders = [device_folder(options)] if options.device_given else sorted(
        d for d in glob.glob(os.path.join(options.results, "*")) if os.path.isdir(d))
    for folder in folders:
        rows = read_rows(folder)
        if not rows:
            if options.device_given:
                print("no benchmark results in %s (run scripts/benchmark.sh first)" % shown_path(folder))
            continue
        cases = table(rows, folder)
        store = tuned_folder(options, folder)
        heading = provenance.runs_heading(rows, {r.get(provenance.RUN_ID_FIELD): r for r in
                                                 read_metadata(folder).get("runs", [])})
        text = tables_text(folder, store, cases, percent_of_limit.limit_cells(rows), headline_column(rows), heading)
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
                       ("benchmark.csv", "every program run, with its run_id: steady, device and call times "
                                         "(median, min, max, stddev), runs, validation, GFLOP/s"),
                       ("benchmark.json", "the run(s) of the table: card, build, command, times, settings"),
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


def speedup_bars(cases):
    """(label, speedup, colour) per bar of speedup.png: one per case and peer, two where the speedup cell is "A to B"
    (mdh's one configuration timed twice, beyond the noise: one bar for each of its timings)."""
    bars = []
    for c in cases:
        for peer, _, cell in c["peers"]:
            values = [float(v) for v in cell.split(" to ")] if cell != "N/A" else []
            for k, value in enumerate(values):
                which = (" (mdh's slower timing)", " (mdh's faster timing)")[k] if len(values) == 2 else ""
                bars.append(("%s %s vs %s%s" % (c["routine"], c["sizes"], peer, which), value,
                             GREEN if value >= 1 else RED))
    return bars


def plot_speedups(folder, cases):
    """speedup.png: one bar per (case, peer), labelled with the case's sizes, titled with the device; beside it the
    share of the device's limit per program when benchmark.csv has that column."""
    device = device_name(folder)
    speedups = speedup_bars(cases)
    # A share shown as "in cache" or "partly in cache" in the tables has no bar: its length would claim a share of
    # the memory's bandwidth that the cache served.
    shares = [(c, name, p, limit, cell) for c in cases for name, p, limit, cell in c["percent"]]
    in_cache = [s for s in shares if s[4] in (percent_of_limit.IN_CACHE, percent_of_limit.PARTLY_IN_CACHE)]
    percents = [("%s %s %s%s" % (c["routine"], c["sizes"], program_name, " (%s)" % limit if limit else ""), p,
                 GREEN if program_name.startswith("mdh") else BLUE) for c, program_name, p, limit, cell in shares
                if cell not in (percent_of_limit.IN_CACHE, percent_of_limit.PARTLY_IN_CACHE)]
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
                                "share of the device's limit (FP32 peak or copy bandwidth)" +
                                ("\n%d in cache or partly in cache, not shown" % len(in_cache) if in_cache else ""),
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


def final_timing_text(result_path):
    """"; final timing X ms" of a tuning result whose finalists were timed again as the benchmark times them (the
    figure its table compares), or "" where the result has none."""
    try:
        with open(result_path) as f:
            final = json.load(f).get("final_timing") or {}
        chosen = final["finalists"][final["chosen"]]["final_ns"]
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return ""
    return "; final timing %.4f ms" % (chosen / 1e6)


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
        title = "tuning %s (%s)\non %s: %d evaluations\n%s %.4f ms%s" % (
            name, sizes, metadata.get("device", device), len(lines) - 1, result_tables.SEARCH_BEST, points[-1][1],
            final_timing_text(os.path.join(store, name + ".json")))
        script = ("set terminal pngcairo size 800,450 noenhanced font 'sans,10'; set output %s; "
                  "set xlabel 'tuning time (s)'; set ylabel \"the search's best kernel time so far (ms)\"; set title %s; "
                  "unset key; set grid; %s set xrange [0:*]; "
                  "plot %s using 1:2 with steps lw 2 lc rgb '#2e8b57'"
                  % (gnuplot_string(os.path.join(folder, "tuning-%s.png" % name)), gnuplot_string(title),
                     y_axis([c for _, c in points]), gnuplot_string(data)))
        subprocess.run(["gnuplot", "-e", script], check=False)
        os.remove(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["tune", "benchmark", "print", "run-id", "check-table"])
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
    parser.add_argument("--run-id", default=None,
                        help="benchmark: the run these rows belong to (default: a new one); a later call with the "
                             "same id adds its cases to that run (`run-id` prints a new id)")
    parser.add_argument("--merge", action="store_true",
                        help="benchmark: keep the rows of other runs that this run does not measure again (the "
                             "table then names each row's run)")
    parser.add_argument("--replace", action="store_true",
                        help="benchmark: drop the rows of every other run, so that the table is this run's alone "
                             "(rows of this --run-id from earlier calls stay)")
    parser.add_argument("--run-timeout", type=float, default=None,
                        help="benchmark: stop one program run after this many seconds (recorded, never fatal)")
    options = parser.parse_args()
    options.device_given = options.device is not None
    options.results = os.path.abspath(options.results)
    options.tuned = os.path.abspath(options.tuned)
    options.device = options.device or ""
    {"tune": tune, "benchmark": benchmark, "print": print_results, "run-id": print_run_id,
     "check-table": check_table}[options.command](options)


if __name__ == "__main__":
    main()
