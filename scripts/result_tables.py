"""The tables of one device folder: benchmark.csv's rows grouped by case (mdh, its default, each peer with its
speedup), the tuning behind each row (its journal and result file), and tables.md's text. Which figure is which:
the table's times are the benchmark's steady times, this run's final timing of every program, and every speedup is
taken from them; a tuning run's own figures (the search's best, its first evaluation of the default) are shown
only where labelled as the search's. Standard library only, like experiments.py, which calls these functions.
"""
import csv
import glob
import gzip
import json
import os

import percent_of_limit
import provenance

# The share of the device's limit a program reached, in percent (FP32 peak for compute-bound cases, copy bandwidth
# for memory-bound ones, both measured in the same benchmark run by device_peak: percent_of_limit.py), and `limit`,
# naming which. tables.md shows it as a column, speedup.png beside the speedups (a roofline-style view).
PERCENT_OF_LIMIT = "percent_of_limit"


def read_journal_lines(path):
    """The lines of a journal, plain or compressed (PATH.gz); OSError when neither exists."""
    with (open(path) if os.path.exists(path) else gzip.open(path + ".gz", "rt")) as f:
        return f.readlines()


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


def disagree(first, second, column):
    """Whether two timings of one configuration differ beyond their noise: the ranges (min to max) of their samples
    do not overlap."""
    low, high = column.replace("median", "min"), column.replace("median", "max")
    try:
        return float(first[high]) < float(second[low]) or float(second[high]) < float(first[low])
    except (KeyError, ValueError):
        return False


def computed_in(items):
    """The precision cell of a case from its rows: fp32 or tf32 (before the column, fp32), or for half and bfloat16
    inputs "fp16 (fp32 acc.)" / "bf16 (fp32 acc.)": their products are exact in float and in TF32 alike, so such a row
    computes in one precision whichever it asked for, and the cell names the inputs instead. The inputs' type comes
    from the programs' records; a case where no program left one shows the precision it asked for."""
    inputs = next((r.get("input_type") for r in items if r.get("input_type")), "fp32")
    if inputs in percent_of_limit.TWO_BYTE_INPUTS:
        return "%s (fp32 acc.)" % inputs
    return items[0].get("precision") or "fp32"


def table(rows, folder=None):
    """One dict per case of one device: routine, label, sizes, precision, run (its run_id), ours (program name), ours_ms, peers
    [(peer, ms, speedup)] of the peers that ran, unavailable [(peer, reason)] of those that cannot run on this
    machine, and percent [(program, percent, limit, table cell)] where benchmark.csv has the percent_of_limit column. Times are
    the headline_column's, the benchmark's final timing of each program; speedups come from them alone. Where the
    tuned and the default row ran one configuration (records in `folder`) and their timings disagree beyond the
    noise, mdh's cell shows both and each speedup the range they give, rather than the luckier timing's."""
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
        case = {"routine": routine, "label": label, "sizes": sizes, "precision": computed_in(items),
                "ours": ours["peer"] if ours else "mdh", "run": provenance.row_run_id(ours or items[0]),
                "ours_ms": fmt_ms(ours_time) if ours_time else "N/A (%s)" % ours_why,
                "peers": [], "unavailable": [], "percent": []}
        ours_times = [float(ours_time)] if ours_time else []
        if default is not None:
            default_time, default_why = row_time(default, column)
            case["default_ms"] = fmt_ms(default_time) if default_time else "N/A (%s)" % default_why
            if (folder and ours_time and default_time and same_configuration(folder, routine, label) and
                    disagree(ours, default, column)):
                ours_times = sorted([float(ours_time), float(default_time)])
                case["ours_ms"] = "%s or %s (one configuration timed twice, beyond the noise)" % (
                    fmt_ms(ours_times[0]), fmt_ms(ours_times[1]))
        for r in items:
            if r.get(PERCENT_OF_LIMIT) and r["status"] == "ok" and not r["peer"].startswith("mdh-config-of-"):
                case["percent"].append((r["peer"], float(r[PERCENT_OF_LIMIT]), r.get("limit", ""),
                                        percent_of_limit.limit_cell(r)))
            if r is ours or r is default or r["peer"].startswith("mdh-config-of-"):
                continue  # the portability runs have their own table (RESULTS/portability.md)
            if r["status"].startswith("not available here"):
                reason = r["status"][len("not available here"):].strip()
                case["unavailable"].append((r["peer"], reason[1:-1] if reason.startswith("(") else reason))
                continue
            time_ns, why = row_time(r, column)
            speedup = "N/A"
            if time_ns and ours_times:
                speedup = " to ".join(sorted({"%.2f" % (float(time_ns) / t) for t in ours_times}, key=float))
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


# How tables and plots name a tuning run's own figures, apart from the benchmark's final timing.
SEARCH_BEST = "search's best"
SEARCH_MARK = "search"


def tuning_cells(folder, routine, label, ours):
    """The tuning behind a row, from the journal beside its tuned configuration (RESULTS/<device>/<routine>-<label>
    .json.journal, or .json.journal.gz for a run too long to keep uncompressed): ("E evaluations, S s", the default
    configuration's time in ms as the search measured it: the run's first evaluation where the journal says it
    started from the default, marked SEARCH_MARK), with "–" where there is none. The first cell ends with the
    search's best, labelled: the search times each candidate its own way, so its best is no final timing."""
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
            default = "%.4f (%s)" % (first["cost"] * 1e3, SEARCH_MARK) if first.get("status") == "ok" else \
                "N/A (%s)" % first["status"]
            if first.get("status") == "ok" and best_was_the_default_start(folder, routine, label, records, first):
                default = "%.4f (%s; same configuration)" % (first["cost"] * 1e3, SEARCH_MARK)
    tuning = "{:,} evaluation{}, {:.0f} s".format(len(records), "" if len(records) == 1 else "s", seconds)
    costs = [r["cost"] for r in records if r.get("status") == "ok" and r.get("cost") is not None]
    if costs:
        tuning += "; %s %.4f" % (SEARCH_BEST, min(costs) * 1e3)
    return tuning, default


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


def tables_text(folder, store, cases, limits, column=STEADY_COLUMN, heading=()):
    """tables.md of one device (tuning columns from the journals in `store`); `limits`: the "% of limit" cells
    by (routine, label, program); `column`: the time the cases hold (headline_column); `heading`: the lines naming
    the table's run(s) (provenance.runs_heading). A table of several runs gets a run column."""
    slug = os.path.basename(folder)
    name = device_name(folder)
    merged = len({case.get("run") for case in cases}) > 1
    lines = ["## %s" % (slug if name == slug else "%s (%s)" % (slug, name)), ""] + list(heading) + (
        [""] if heading else []) + [
             HEADLINE_TEXT[column] + ". mdh, default and peer time: the benchmark's final timing of each program; "
             "every speedup = peer time / mdh time (> 1: mdh is faster), from them alone; a peer marked "
             "(CPU, N cores) computed on the host CPU. One call's event time and whole-call time are in "
             "benchmark.csv. %% of limit: the achieved GFLOP/s or "
             "GB/s (the spec's flops and bytes) as a share of this device's FP32 peak or copy bandwidth, "
             "measured by device_peak in the same run; the larger share, named FP32 or BW; '%s' where a row "
             "exceeds the copy bandwidth (its input stayed in a cache between calls), '%s' for a bandwidth share "
             "whose working set is less than twice the device's global-memory cache. Tuning: the evaluations "
             "and seconds of the tuning run behind mdh's configuration (its journal), and the %s time as the "
             "search measured it (one candidate at a time, not a final timing); default: the default "
             "configuration's time in ms, measured in the same run, or where this run did not measure it, as the "
             "search did (marked (%s): the median of its 3 timed runs, in another call); 'same configuration' "
             "where the tuned configuration is the default one, the two times then differing by the run-to-run "
             "noise. Precision: fp32 throughout, or tf32 (products of TF32-rounded inputs on the tensor cores, float "
             "accumulation), mdh and every peer of the row alike; a tf32 row's %% of limit is its bandwidth share "
             "(device_peak measures no tensor-core peak). fp16 (fp32 acc.), bf16 (fp32 acc.): half or bfloat16 "
             "inputs, their products exact and summed in float by every program of the row (on the tensor cores in "
             "a row asked for tf32, label suffix -fp16 or -bf16; cuBLAS's always); judged by the bandwidth share "
             "too." % (percent_of_limit.IN_CACHE, percent_of_limit.PARTLY_IN_CACHE, SEARCH_BEST,
                                                          SEARCH_MARK),
             ""]
    run_header = ("| run " if merged else "", "|---" if merged else "")
    lines += ["%s| routine | label | sizes | precision | mdh | %% of limit | tuning | default | peer | peer time | "
              "speedup | peer %% of limit |" % run_header[0],
              "%s|---|---|---|---|---|---|---|---|---|---|---|---|" % run_header[1]]
    unavailable = {}
    for case in cases:
        ours_limit = limits.get((case["routine"], case["label"], case["ours"]), "N/A")
        tuning, default = tuning_cells(store, case["routine"], case["label"], case["ours"])
        default = case.get("default_ms", default)
        if "default_ms" in case and same_configuration(folder, case["routine"], case["label"]):
            default += " (same configuration)"
        first = ([case.get("run", provenance.LEGACY_RUN)] if merged else []) + [
            case["routine"], case["label"], case["sizes"], case["precision"], case["ours_ms"], ours_limit, tuning,
            default]
        if not case["peers"]:
            lines.append("| %s | – | – | – | – |" % " | ".join(first))
        for k, (peer, time_ms, speedup) in enumerate(case["peers"]):
            peer_limit = limits.get((case["routine"], case["label"], peer.split(" (")[0]), "N/A")
            lines.append("| %s | %s | %s | %s | %s |" % (" | ".join(first if k == 0 else [""] * len(first)), peer,
                                                         time_ms, speedup, peer_limit))
        for peer, reason in case["unavailable"]:
            unavailable.setdefault(peer, reason)
    if unavailable:
        lines += ["", "Peers that cannot run on this machine (not failures of mdh): " + "; ".join(
            "%s (%s)" % (peer, reason or "no reason recorded") for peer, reason in sorted(unavailable.items())) + "."]
    return "\n".join(lines) + "\n"
