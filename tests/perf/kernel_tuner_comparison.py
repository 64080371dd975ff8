#!/usr/bin/env python3
"""Benchmark only (never a dependency of mdh): Kernel Tuner's Bayesian optimisation on a recorded space.

Replays tests/data/recorded_space_*.jsonl (one {"config": {...}, "cost": x | null} per configuration of a space
measured exhaustively, or the journal of an exhaustive `mdh tune` run) through Kernel Tuner's simulation mode and prints, over 20 seeds, the median number of
evaluations until the best is within 5% of the recorded optimum: the same measure tuning_quality prints for mdh's
techniques ("evaluations to 5%"). Kernel Tuner comes from PyPI, in a virtual environment of its own:

  python3 -m venv /tmp/kt-venv && /tmp/kt-venv/bin/pip install kernel_tuner scikit-learn
  /tmp/kt-venv/bin/python tests/perf/kernel_tuner_comparison.py tests/data/recorded_space_gemm32_pocl.jsonl
"""
import json
import os
import statistics
import sys
import tempfile

import numpy as np
import kernel_tuner

SEEDS = 20
BUDGET = 500


def load(path):
    # A journal's header line is not a measurement; lists (permutations) become their JSON text, as in mdh's loader.
    records = [json.loads(line) for line in open(path) if line.strip()]
    records = [r for r in records if "config" in r]
    for r in records:
        r["config"] = {k: json.dumps(v, separators=(",", ":")) if isinstance(v, list) else v
                       for k, v in r["config"].items()}
    names = sorted(records[0]["config"])
    values = {name: sorted({r["config"][name] for r in records}, key=lambda v: (str(type(v)), v)) for name in names}
    # Kernel Tuner builds its space from the product of the value sets: parameters with one value are left out, and
    # a space whose product is far larger than the recording (a journal of a search, not of an exhaustive run) cannot
    # be replayed in reasonable time.
    names = [name for name in names if len(values[name]) > 1]
    values = {name: values[name] for name in names}
    product = 1
    for name in names:
        product *= len(values[name])
    if product > 10**6:
        sys.exit("%s: the product of the parameters' value sets is %d, too many for Kernel Tuner to enumerate"
                 % (path, product))
    costs = {}
    for r in records:
        ok = r.get("status", "ok") == "ok" and isinstance(r.get("cost"), (int, float))
        costs[tuple(r["config"][n] for n in names)] = r["cost"] if ok else None
    return names, values, costs


def cache_file(names, values, costs, folder):
    """A Kernel Tuner cache holding every recorded configuration (failed ones as runtime failures)."""
    entries = {}
    for key, cost in costs.items():
        entry = dict(zip(names, key))
        entry["time"] = cost * 1e3 if cost is not None else "RuntimeFailedConfig"  # milliseconds
        entry["times"] = [entry["time"]] if cost is not None else []
        entry["compile_time"] = entry["verification_time"] = entry["benchmark_time"] = 0
        entry["strategy_time"] = entry["framework_time"] = 0
        entry["timestamp"] = "2026-11-24 00:00:00.000000+00:00"
        entries[",".join(str(v) for v in key)] = entry
    data = {"device_name": "recorded", "kernel_name": "recorded", "problem_size": [1], "tune_params_keys": names,
            "tune_params": values, "objective": "time", "cache": entries}
    path = os.path.join(folder, "cache.json")
    with open(path, "w") as f:
        json.dump(data, f)
    return path


def evaluations_to_within(results, optimum, factor=1.05):
    best = float("inf")
    for k, r in enumerate(results, 1):
        t = r.get("time")
        if isinstance(t, (int, float)):
            best = min(best, t / 1e3)
        if best <= factor * optimum:
            return k
    return BUDGET + 1


def main(paths, strategy="bayes_opt"):
    for path in paths:
        names, values, costs = load(path)
        recorded = set(costs)
        optimum = min(c for c in costs.values() if c is not None)
        with tempfile.TemporaryDirectory() as folder:
            cache = cache_file(names, values, costs, folder)
            def is_recorded(p):
                return tuple(p[n] for n in names) in recorded

            counts = []
            for seed in range(1, SEEDS + 1):
                np.random.seed(seed)
                results, _ = kernel_tuner.tune_kernel(
                    "recorded", "__kernel void recorded() {}", (1,), [], values,
                    restrictions=is_recorded, cache=cache,
                    simulation_mode=True, strategy=strategy,
                    strategy_options={"max_fevals": min(BUDGET, len(recorded))}, quiet=True)
                counts.append(evaluations_to_within(results, optimum))
        counts.sort()
        print("%s: %d configurations; Kernel Tuner %s %s, evaluations to 5%% of the optimum: median %g (seeds: %s)"
              % (os.path.basename(path), len(recorded), kernel_tuner.__version__, strategy, statistics.median(counts),
                 " ".join(map(str, counts))))


if __name__ == "__main__":
    arguments = sys.argv[1:]
    strategy = "bayes_opt"
    if arguments[:1] == ["--strategy"]:
        strategy, arguments = arguments[1], arguments[2:]
    main(arguments or [os.path.join(os.path.dirname(__file__), "..", "data", "recorded_space_gemm32_pocl.jsonl")],
         strategy)
