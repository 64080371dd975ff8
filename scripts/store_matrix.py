#!/usr/bin/env python3
"""The tuned store's proof matrix: for each (spec, sizes) pair of a pairs file, `mdh bench --config stored --config
default` on one device (what `mdh run` without --config takes from the store, timed interleaved against the default),
and one table of what the store took, both steady times, their ratio and a verdict from the 95% intervals.

The rule the store keeps (pipeline/tuned_store.h): its pick is never slower than the default beyond the spread, i.e.
never a pair whose intervals are apart with the stored one above. Exit status 1 where a pair breaks it or could not be
measured, 2 on a usage error. Records and logs go to OUT/records/ (a record already there for the same pair is reused,
so an interrupted run resumes; --force measures again), the table to OUT/store_matrix.md and OUT/store_matrix.json.

Usage: store_matrix.py --device SEL [--pairs FILE] [--rounds N] [--out DIR] [--tuned-results DIR] [--only K,..]
       [--force]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

from experiments import program  # $MDH_BIN, then build/bin, then PATH

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_PAIRS = os.path.join(ROOT, "scripts", "store_matrix_pairs.json")


def fail(message):
    print("error: " + message, file=sys.stderr)
    sys.exit(2)


def load_pairs(path):
    try:
        with open(path) as f:
            pairs = json.load(f)["pairs"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail("%s: not a pairs file (%s)" % (path, e))
    for k, pair in enumerate(pairs, 1):
        if not isinstance(pair, dict) or not isinstance(pair.get("spec"), str) or not isinstance(pair.get("sizes"), str):
            fail("%s: pair %d needs a \"spec\" and \"sizes\" string" % (path, k))
        if not isinstance(pair.get("args", []), list):
            fail("%s: pair %d: \"args\" must be a list of strings" % (path, k))
    return pairs


def record_name(k, pair):
    app = os.path.splitext(os.path.basename(pair["spec"]))[0]
    sizes = re.sub(r"[^A-Za-z0-9=,]", "", pair["sizes"]).replace("=", "").replace(",", "-")
    return "%02d-%s-%s" % (k, app, sizes)


def entry(record, label):
    for e in record.get("configurations", []):
        if e.get("label") == label:
            return e
    return None


def store_source(stored):
    """What the store took, or the default and why (from the lookup's note on the nearest result passed over)."""
    store = stored.get("store", {})
    if store.get("taken"):
        return "%s (log2 distance %.2f)" % (os.path.basename(store["taken"]), store.get("log2_distance", 0))
    notes = store.get("notes", [])
    nearest = next((n for n in notes if n.startswith("not using ") and " (sizes " in n), None)
    if nearest is None:
        return "default: " + (notes[-1].split(";")[0] if notes else "no lookup notes")
    path, _, why = nearest[len("not using "):].partition(" (sizes ")
    why = why.partition("): ")[2]
    why = re.sub(r"^not valid for [^:]*: (config: )?", "invalid here: ", why)
    why = re.sub(r"^its tiles do not fit .*? as they fit its own sizes \((.*)\)$", r"tiles: \1", why)
    why = re.sub(r"^tuned for sizes too far from \S+ \((log2 distance [0-9.]+).*", r"too far, \1", why)
    return "default: %s %s" % (os.path.basename(path), why)


def verdict(stored, default):
    """(ratio stored/default, 'tie' | 'faster' | 'slower'), from the steady medians and their 95% intervals."""
    s, d = stored["steady_time_ns"], default["steady_time_ns"]
    ratio = s["median"] / d["median"] if d["median"] > 0 else float("nan")
    if s["ci_low"] > d["ci_high"]:
        return ratio, "slower"
    if s["ci_high"] < d["ci_low"]:
        return ratio, "faster"
    return ratio, "tie"


def row(k, pair, record):
    """One line of the table from a bench record (None: the run gave no record)."""
    out = {"pair": k, "spec": pair["spec"], "sizes": pair["sizes"], "why": pair.get("why", "")}
    stored = entry(record, "stored") if record else None
    default = entry(record, "default") if record else None
    if stored is None or default is None:
        out.update(source="", verdict="error", note="no record")
        return out
    out["source"] = store_source(stored)
    out["taken"] = stored.get("store", {}).get("taken")
    out["rounds"] = record.get("rounds")
    for name, e in (("stored", stored), ("default", default)):
        if not e.get("timed"):
            out.update(verdict="error", note="%s failed its verification" % name)
            return out
        if not e.get("verification_after_timing", {}).get("passed", False):
            out.update(verdict="error", note="%s failed its verification after timing" % name)
            return out
        out[name + "_ns"] = {k: e["steady_time_ns"][k] for k in ("median", "ci_low", "ci_high")}
    out["ratio"], out["verdict"] = verdict(stored, default)
    return out


def measure(mdh, k, pair, options, records):
    """Runs mdh bench for one pair (or reuses its record), returning the record or None."""
    name = record_name(k, pair)
    path, log = os.path.join(records, name + ".json"), os.path.join(records, name + ".log")
    if os.path.exists(path) and not options.force:
        try:
            with open(path) as f:
                record = json.load(f)
            asked = {name: int(value) for name, value in (b.split("=") for b in pair["sizes"].split(","))}
            if record.get("spec") == pair["spec"] and record.get("sizes") == asked:
                return record
        except ValueError:
            pass  # unreadable or another pair's: measured again
    command = [mdh, "bench", pair["spec"], "--size", pair["sizes"], "--device", options.device, "--config", "stored",
               "--config", "default", "--rounds", str(options.rounds), "--json", path, "--force"]
    command += pair.get("args", [])
    if options.tuned_results:
        command += ["--tuned-results", options.tuned_results]
    with open(log, "w") as f:
        f.write("$ " + " ".join(command) + "\n")
        f.flush()
        status = subprocess.run(command, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT).returncode
    if status not in (0, 1) or not os.path.exists(path):  # 1: a verification failed, the record says which
        return None
    with open(path) as f:
        return json.load(f)


def load_text():
    one, five, fifteen = os.getloadavg()
    return "%.2f, %.2f, %.2f" % (one, five, fifteen)


def time_ms(ns):
    return "%.4g" % (ns["median"] / 1e6)


def interval_ms(ns):
    return "[%.4g, %.4g]" % (ns["ci_low"] / 1e6, ns["ci_high"] / 1e6)


def table_text(rows, header):
    lines = ["# The tuned store's pick against the default configuration", ""]
    lines += ["- %s: %s" % (key, value) for key, value in header.items()]
    lines += ["", "| # | spec | sizes | stored source | stored ms [95%] | default ms [95%] | ratio | verdict |",
              "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["verdict"] == "error":
            lines.append("| %d | %s | %s | %s | | | | error: %s |" % (r["pair"], r["spec"], r["sizes"], r["source"],
                                                                   r["note"]))
            continue
        lines.append("| %d | %s | %s | %s | %s %s | %s %s | %.3f | %s |" % (
            r["pair"], r["spec"], r["sizes"], r["source"], time_ms(r["stored_ns"]), interval_ms(r["stored_ns"]),
            time_ms(r["default_ns"]), interval_ms(r["default_ns"]), r["ratio"], r["verdict"]))
    lines += ["", summary_text(rows)]
    return "\n".join(lines) + "\n"


def summary_text(rows):
    count = {v: sum(1 for r in rows if r["verdict"] == v) for v in ("tie", "faster", "slower", "error")}
    taken = sum(1 for r in rows if r.get("taken"))
    measured = [r for r in rows if r["verdict"] != "error"]
    worst = max(measured, key=lambda r: r["ratio"]) if measured else None
    text = "%d pairs; the store took a stored configuration in %d; %d ties, %d faster, %d slower, %d errors" % (
        len(rows), taken, count["tie"], count["faster"], count["slower"], count["error"])
    if worst:
        text += "; highest ratio %.3f (pair %d, %s)" % (worst["ratio"], worst["pair"], worst["verdict"])
    kept = count["slower"] == 0 and count["error"] == 0
    return text + ". Rule kept: " + ("yes" if kept else "NO") + "."


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", required=True, help="device selector, as mdh takes it (P:D, gpu, cpu, a name)")
    parser.add_argument("--pairs", default=DEFAULT_PAIRS, help="the pairs file (default: %(default)s)")
    parser.add_argument("--rounds", type=int, default=12, help="mdh bench --rounds (default: %(default)s)")
    parser.add_argument("--out", help="output folder (default: local-results/<device-slug>/store-matrix)")
    parser.add_argument("--tuned-results", help="the store (default: mdh's: $MDH_TUNED_RESULTS, else tuned/)")
    parser.add_argument("--only", help="pair numbers to run, e.g. 1,5,30 (default: all)")
    parser.add_argument("--force", action="store_true", help="measure again where a record exists")
    options = parser.parse_args(argv)
    if options.rounds < 1:
        fail("--rounds must be at least 1")
    mdh = program("mdh")
    if not mdh:
        fail("no mdh program (build it, or set MDH_BIN)")
    pairs = load_pairs(options.pairs)
    only = None
    if options.only:
        try:
            only = {int(k) for k in options.only.split(",")}
        except ValueError:
            fail("--only '%s': expected pair numbers, e.g. 1,5,30" % options.only)
        if not only <= set(range(1, len(pairs) + 1)):
            fail("--only: the pairs file has pairs 1 to %d" % len(pairs))
    slug = subprocess.run([mdh, "devices", "--slug", options.device], capture_output=True, text=True)
    if slug.returncode != 0:
        fail("mdh devices --slug %s: %s" % (options.device, slug.stderr.strip()))
    slug = slug.stdout.strip()
    out = options.out or os.path.join(ROOT, "local-results", slug, "store-matrix")
    records = os.path.join(out, "records")
    os.makedirs(records, exist_ok=True)

    load_before, started = load_text(), time.time()
    rows, device = [], {}
    for k, pair in enumerate(pairs, 1):
        if only and k not in only:
            continue
        print("pair %d of %d: %s %s" % (k, len(pairs), pair["spec"], pair["sizes"]), flush=True)
        record = measure(mdh, k, pair, options, records)
        device = (record or {}).get("device", device)
        rows.append(row(k, pair, record))
        r = rows[-1]
        print("  %s: %s" % (r["verdict"], r["source"] if r["verdict"] != "error" else r["note"]), flush=True)
    header = {"device": "%s (%s), driver %s" % (device.get("name", "?"), slug, device.get("driver_version", "?")),
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)),
              "command": "scripts/store_matrix.py --device %s --rounds %d" % (options.device, options.rounds),
              "load average (1, 5, 15 min) before and after": "%s; %s" % (load_before, load_text()),
              "minutes": "%.1f" % ((time.time() - started) / 60),
              "verdict": "stored against default by their 95% intervals of the steady median: tie where they "
                         "overlap; ratio = stored / default"}
    text = table_text(rows, header)
    with open(os.path.join(out, "store_matrix.md"), "w") as f:
        f.write(text)
    with open(os.path.join(out, "store_matrix.json"), "w") as f:
        json.dump({"header": header, "rows": rows}, f, indent=2)
        f.write("\n")
    print(text)
    return 0 if all(r["verdict"] in ("tie", "faster") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
