"""Provenance of benchmark runs: the run_id every row of benchmark.csv carries, what benchmark.json records about each
run (machine, card, build, command, times, instrument settings, peer libraries), and the heading tables.md gives its
runs. Written by the harness (experiments.py benchmark) only; a table of rows from earlier runs says so per row.
Standard library only, like experiments.py, which calls these functions.
"""
import os
import platform
import re
import secrets
import shlex
import shutil
import subprocess
import sys
import time

# The run of rows written before the harness recorded runs: nothing ties them to a benchmark.json, so nothing is
# claimed about them beyond their own columns.
LEGACY_RUN = "legacy, no run_id"
RUN_ID_FIELD = "run_id"
RUN_ID_PATTERN = re.compile(r"^\d{8}T\d{6}Z-[a-z0-9-]+-[0-9a-f]{4}$")


def new_run_id(device_slug, now=None):
    """"20261202T071717Z-nvidia-h200-3f9a": UTC start time, the device's results-folder name, 4 random hex digits
    (two runs started in the same second on the same kind of card still differ)."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now))
    return "%s-%s-%s" % (stamp, device_slug, secrets.token_hex(2))


def utc(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def row_run_id(row):
    """The run a benchmark.csv row belongs to; LEGACY_RUN for a row of a table written before runs were recorded."""
    return row.get(RUN_ID_FIELD) or LEGACY_RUN


def run_ids(rows):
    """The runs of a table's rows, in order of first appearance."""
    seen = []
    for row in rows:
        if row_run_id(row) not in seen:
            seen.append(row_run_id(row))
    return seen


# ------------------------------------------------------------------------------------------------ what a run records

def selected_device(devices_listing, selector):
    """The device `selector` (P:D) of `mdh devices`' listing: name, type, platform and its version, the device's
    OpenCL version, driver and compute units, as far as the listing states them."""
    device, platform_name, platform_version = {}, "", ""
    lines = devices_listing.splitlines()
    for k, line in enumerate(lines):
        heading = re.match(r"^Platform (\d+): (.*?) \((OpenCL [^ ]+)", line)
        if heading:
            platform_name, platform_version = heading.group(2), heading.group(3)
            continue
        entry = re.match(r"^\s+(\d+:\d+)\s+(.*?)\s+\[([A-Za-z]+)", line)
        if not entry or entry.group(1) != selector:
            continue
        device = {"name": entry.group(2), "selector": selector, "type": entry.group(3), "platform": platform_name,
                  "platform_version": platform_version}
        for detail in lines[k + 1:]:
            if not detail.startswith("       "):
                break
            for part in (p.strip() for p in detail.split(";")):
                if part.startswith("OpenCL ") and not part.startswith("OpenCL C"):
                    device["opencl_version"] = part
                elif part.startswith("driver "):
                    device["driver"] = part[len("driver "):]
                elif part.startswith("compute units "):
                    device["compute_units"] = int(part.split()[2].rstrip(","))
        break
    return device


def cpu_model():
    """The host CPU's model name (/proc/cpuinfo on Linux), else what Python knows."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def command_output(command):
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout.strip() if result.returncode == 0 else None


def source_state(root, built_from=None):
    """The commit the programs were built from (`built_from`, what `mdh --version` reports; else the checkout's) and
    whether tracked files other than the results and the store (what benchmark runs write) differ from it. A checkout
    at another commit than the programs' (a device copy with a stale or no git history) is recorded beside it and
    makes the local changes unknown; a device copy without git says what its bundle recorded (MDH_COMMIT)."""
    checkout = command_output(["git", "-C", root, "rev-parse", "HEAD"])
    commit = built_from or checkout or os.environ.get("MDH_COMMIT", "unknown")
    if not checkout:
        return {"commit": commit, "dirty": "unknown (no git checkout)"}
    if checkout != commit:
        return {"commit": commit, "checkout_commit": checkout,
                "dirty": "unknown (the programs were built from another commit than the checkout's)"}
    changed = command_output(["git", "-C", root, "status", "--porcelain", "--untracked-files=no", "--", ".",
                              ":(exclude)results", ":(exclude)tuned"])
    return {"commit": commit, "dirty": bool(changed) if changed is not None else "unknown"}


def nvidia_gpus():
    """Every NVIDIA GPU of the host as nvidia-smi lists it (UUID, clocks, power limit), or None without nvidia-smi.
    nvidia-smi does not follow CUDA_VISIBLE_DEVICES, so the card a row ran on is the one the record's device names."""
    if not shutil.which("nvidia-smi"):
        return None
    fields = ["index", "name", "uuid", "driver_version", "clocks.sm", "clocks.mem", "clocks.max.sm", "clocks.max.mem",
              "power.limit", "persistence_mode"]
    text = command_output(["nvidia-smi", "--query-gpu=" + ",".join(fields), "--format=csv,noheader"])
    if text is None:
        return None
    return [dict(zip(fields, (v.strip() for v in line.split(",")))) for line in text.splitlines() if line.strip()]


def run_metadata(run_id, root, devices_listing, selector, started, built_from=None):
    """What benchmark.json records about a run at its start: machine, card, build and the exact command.
    `built_from`: the commit the programs report (`mdh --version`), which names the run's source."""
    metadata = {
        RUN_ID_FIELD: run_id,
        "device": selected_device(devices_listing, selector),
        "host": {"cpu_model": cpu_model(), "cpu_cores": os.cpu_count(), "system": platform.platform()},
        "source": source_state(root, built_from),
        "commands": [shlex.join([sys.executable] + sys.argv)],
        "start": utc(started),
    }
    gpus = nvidia_gpus()
    if gpus is not None:
        metadata["nvidia_gpus"] = gpus
    return metadata


def case_settings(case):
    """The steady instrument's settings of one case as the harness passes them to every program of its rows."""
    reps = case.get("repetitions", {})
    return {"routine": case["name"], "label": case["label"], "sizes": case["size"],
            "precision": case.get("precision", "fp32"), "warmups": reps.get("warmups", 2),
            "min_runs": reps.get("min_runs", 5), "max_runs": reps.get("max_runs", 200), "ci": reps.get("ci", 0.02)}


def peer_versions(records):
    """{peer: [library versions]} of the measurement records of a run (each program states its own library)."""
    versions = {}
    for peer, record in records:
        version = (record or {}).get("library_version")
        if version and version not in versions.setdefault(peer, []):
            versions[peer].append(version)
    return versions


def same_card(earlier, now):
    """Whether two calls of one run measured the same card: the same device, and on NVIDIA hosts the same GPUs."""
    return (earlier.get("device", {}).get("name") == now.get("device", {}).get("name") and
            [g.get("uuid") for g in earlier.get("nvidia_gpus") or []] ==
            [g.get("uuid") for g in now.get("nvidia_gpus") or []])


def joined_run(earlier, now):
    """A run continued by another call (--run-id of an earlier call): its start, both calls' commands and cases."""
    run = dict(earlier)
    run["commands"] = earlier.get("commands", []) + now["commands"]
    run["source"] = earlier["source"] if earlier.get("source") == now["source"] else [earlier["source"],
                                                                                    now["source"]]
    return run


# ------------------------------------------------------------------------------------------------ tables.md


def run_line(run):
    """One run as tables.md names it: id, card, commit, dates."""
    device = run.get("device", {})
    card = device.get("name", "unknown device")
    uuids = [g.get("uuid") for g in run.get("nvidia_gpus") or [] if g.get("name") == card or len(
        run.get("nvidia_gpus")) == 1]
    if uuids:
        card += " " + ", ".join(uuids)
    source = run.get("source", {})
    if isinstance(source, dict):
        commit = "commit %s%s" % (str(source.get("commit", "unknown"))[:12],
                                  " with local changes" if source.get("dirty") is True else "")
    else:
        commit = "commits " + ", ".join(str(s.get("commit", "unknown"))[:12] for s in source)
    return "`%s` on %s, %s, %s to %s" % (run[RUN_ID_FIELD], card, commit, run.get("start", "?"), run.get("end", "?"))


def runs_heading(rows, runs):
    """The lines under a table's title naming its run(s) and card(s); `runs`: benchmark.json's runs by run_id."""
    ids = run_ids(rows)
    lines = []
    for run_id in ids:
        if run_id == LEGACY_RUN:
            lines.append("`%s`: rows written before the harness recorded runs; which card, commit and command "
                         "produced them is not recorded with them (benchmark.json describes them without a run_id)."
                         % LEGACY_RUN)
        elif run_id in runs:
            lines.append(run_line(runs[run_id]))
        else:
            lines.append("`%s`: not described by benchmark.json" % run_id)
    if len(ids) == 1:
        return ["Run: " + lines[0]]
    return (["Runs (a table merged from %d runs with `--merge`; each row names its run in the run column):" % len(ids)]
            + ["- " + line for line in lines])


def table_problems(rows, metadata):
    """Why a benchmark.csv and its benchmark.json do not describe each other ([] where they do): the json names
    exactly the runs of the rows, describes each (a legacy table says that it cannot), and a table of several runs
    says that it was merged."""
    problems = []
    ids = run_ids(rows)
    named = metadata.get("run_ids")
    if named != ids:
        problems.append("benchmark.json names runs %s, benchmark.csv's rows are of %s" % (named, ids))
    described = [run.get(RUN_ID_FIELD) for run in metadata.get("runs", [])]
    for run_id in ids:
        if run_id == LEGACY_RUN:
            if not metadata.get("legacy"):
                problems.append("rows of '%s' without benchmark.json's note on them ('legacy')" % LEGACY_RUN)
        elif described.count(run_id) != 1:
            problems.append("run %s is described %d times in benchmark.json" % (run_id, described.count(run_id)))
        elif not RUN_ID_PATTERN.match(run_id):
            problems.append("'%s' is not a run id" % run_id)
    if sorted(set(described) - set(ids)):
        problems.append("benchmark.json describes runs without rows: %s" % sorted(set(described) - set(ids)))
    # Legacy rows may come from several runs and cards: their table cannot say whether it was merged.
    if ids != [LEGACY_RUN] and metadata.get("merged") is not (len(ids) > 1):
        problems.append("benchmark.json's merged flag is %s for %d run(s)" % (metadata.get("merged"), len(ids)))
    return problems
