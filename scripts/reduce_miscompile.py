#!/usr/bin/env python3
"""Reduces an OpenCL C kernel that a driver's optimiser miscompiles to the fewest lines that still show it.

A candidate is kept when, on the same inputs as the original, it gives the original's right output when built with
`-cl-opt-disable` and a different output when built with the default options (both checked by compare_builds). This
keeps the reduction honest: a candidate that is wrong for a reason of its own (a removed initialisation, an
uninitialised read) is also wrong unoptimised, and is rejected.

With --crash TEXT the reduction keeps instead what makes the driver's compiler crash with TEXT in its output (an
assertion message): a candidate is kept when building it with the default options prints TEXT.

Usage: reduce_miscompile.py --compare-builds BIN --launch LAUNCH.json --kernel K.cl --out REDUCED.cl
                            [--device gpu] [--seconds 300] [--jobs 8] [--crash TEXT]
Line-based delta debugging (Zeller's ddmin), testing the complements of one granularity in parallel.
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--compare-builds", required=True)
    parser.add_argument("--launch", required=True)
    parser.add_argument("--kernel", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--device", default="gpu")
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--crash", help="keep what makes the default build print this text (a compiler crash)")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="reduce-")
    expected = os.path.join(work, "expected.bin")
    lines = open(args.kernel).read().split("\n")

    counter = [0]

    def crashes(candidate):
        counter[0] += 1
        path = os.path.join(work, "c%d_%d.cl" % (os.getpid(), counter[0]))
        with open(path, "w") as f:
            f.write("\n".join(candidate))
        try:
            run = subprocess.run([args.compare_builds, args.launch, "--device", args.device, "::" + path],
                                 capture_output=True, text=True, timeout=120)
            return args.crash in run.stdout + run.stderr
        except subprocess.TimeoutExpired:
            return False
        finally:
            os.remove(path)

    if not args.crash:
        # The right output: the original, unoptimised. The original must show the miscompile, or there is nothing to do.
        subprocess.run([args.compare_builds, args.launch, "--device", args.device, "--save", expected,
                        "-cl-opt-disable::" + args.kernel], check=True, capture_output=True)

    def miscompiled(candidate):
        counter[0] += 1
        path = os.path.join(work, "c%d_%d.cl" % (os.getpid(), counter[0]))
        with open(path, "w") as f:
            f.write("\n".join(candidate))
        try:
            out = subprocess.run([args.compare_builds, args.launch, "--device", args.device, "--expect", expected,
                                  "-cl-opt-disable::" + path, "::" + path], capture_output=True, text=True,
                                 timeout=60).stdout.splitlines()
        except subprocess.TimeoutExpired:
            return False
        finally:
            os.remove(path)
        return len(out) == 2 and out[0].endswith(": same") and ": differs in " in out[1]

    interesting = crashes if args.crash else miscompiled
    if not interesting(lines):
        sys.exit("reduce_miscompile: the original does not show the problem")
    deadline = time.time() + args.seconds
    tests = 1
    granularity = 2
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        while len(lines) >= 2 and time.time() < deadline:
            chunk = max(1, len(lines) // granularity)
            starts = list(range(0, len(lines), chunk))
            complements = [lines[:s] + lines[s + chunk:] for s in starts]
            found = None
            for batch in range(0, len(complements), args.jobs):
                if time.time() >= deadline:
                    break
                group = complements[batch:batch + args.jobs]
                results = list(pool.map(interesting, group))
                tests += len(group)
                hits = [c for c, ok in zip(group, results) if ok]
                if hits:
                    found = min(hits, key=len)
                    break
            if found is not None:
                lines = found
                granularity = max(granularity - 1, 2)
                with open(args.out, "w") as f:
                    f.write("\n".join(lines))
                print("reduce: %d lines (%d tests)" % (len(lines), tests), flush=True)
            elif chunk == 1:
                break
            else:
                granularity = min(granularity * 2, len(lines))
    with open(args.out, "w") as f:
        f.write("\n".join(lines))
    print("reduce: done, %d lines after %d tests%s" % (len(lines), tests,
                                                       "" if time.time() < deadline else " (time was up)"))


if __name__ == "__main__":
    main()
