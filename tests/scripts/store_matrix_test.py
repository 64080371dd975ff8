#!/usr/bin/env python3
"""The store's proof matrix (scripts/store_matrix.py) without a device: a fake mdh writes `mdh bench` records whose
stored entry is faster, tied, slower or failed by the pair's sizes, and the test checks the table's sources, ratios
and verdicts, the exit status (1 where the store's pick is slower beyond the spread or a pair failed), that records
are reused on a second run, and the short reasons taken from the store's notes (about a second)."""
import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import fake_programs  # noqa: E402
import store_matrix  # noqa: E402

# mdh: `devices --slug` and `bench`. The bench record's times depend on K: K=1 the store took a result and it is
# faster, K=2 the store took none (the same times), K=3 the stored one is slower beyond both intervals, K=4 the
# stored one failed its verification (exit 1), K=5 the run failed without a record (exit 2). Each bench call
# appends a line to CALLS.
FAKE_MDH = r"""#!/usr/bin/env python3
import json, os, sys
a = sys.argv[1:]
if a[:2] == ["devices", "--slug"]:
    print("fake-device")
    sys.exit(0)
assert a[0] == "bench" and a[a.index("--config") + 1] == "stored", a
with open(os.environ["CALLS"], "a") as f:
    f.write(" ".join(a) + "\n")
k = int(a[a.index("--size") + 1].split("=")[1])
if k == 5:
    print("error: the device went away", file=sys.stderr)
    sys.exit(2)
def entry(label, median, low, high, passed=True, store=None):
    e = {"label": label, "timed": passed, "verification": {"passed": passed}}
    if passed:
        e["verification_after_timing"] = {"passed": True}
        e["steady_time_ns"] = {"median": median, "ci_low": low, "ci_high": high}
    if store is not None:
        e["store"] = store
    return e
taken = {"store": "tuned", "taken": "tuned/fake-device/dot-RW.json", "log2_distance": 0.32, "notes": []}
none = {"store": "tuned", "taken": None, "notes": [
    "not using tuned/fake-device/dot-RW.json (sizes K=16777216): tuned for sizes too far from K=2 "
    "(log2 distance 23.00, more than 1)",
    "none of the 1 tuned configurations of dot for fake-device is valid for K=2, near enough and of the same shape; "
    "using the default configuration"]}
stored = {1: entry("stored", 800, 780, 820, store=taken), 2: entry("stored", 1000, 950, 1060, store=none),
          3: entry("stored", 1300, 1250, 1350, store=taken), 4: entry("stored", 0, 0, 0, False, taken)}[k]
record = {"tool": "mdh bench", "spec": a[1], "sizes": {"K": k}, "rounds": 12,
          "device": {"name": "Fake CPU", "driver_version": "9.9"},
          "configurations": [stored, entry("default", 1000, 940, 1050)]}
json.dump(record, open(a[a.index("--json") + 1], "w"))
sys.exit(1 if k == 4 else 0)
"""


class StoreMatrix(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        bin_dir = os.path.join(self.dir, "bin")
        os.makedirs(bin_dir)
        fake_programs.write_programs(bin_dir, {"mdh": FAKE_MDH})
        self.calls = os.path.join(self.dir, "calls")
        os.environ["MDH_BIN"], os.environ["CALLS"] = bin_dir, self.calls
        self.pairs = os.path.join(self.dir, "pairs.json")
        with open(self.pairs, "w") as f:
            json.dump({"pairs": [{"spec": "apps/dot.mdh", "sizes": "K=%d" % k, "why": "case %d" % k}
                                 for k in range(1, 6)]}, f)
        self.out = os.path.join(self.dir, "out")

    def run_matrix(self, *extra):
        with redirect_stdout(io.StringIO()):
            return store_matrix.main(["--device", "cpu", "--pairs", self.pairs, "--out", self.out,
                                      "--rounds", "7"] + list(extra))

    def test_verdicts_sources_and_exit_status(self):
        self.assertEqual(self.run_matrix(), 1)
        with open(os.path.join(self.out, "store_matrix.json")) as f:
            rows = json.load(f)["rows"]
        self.assertEqual([r["verdict"] for r in rows], ["faster", "tie", "slower", "error", "error"])
        self.assertEqual(rows[0]["source"], "dot-RW.json (log2 distance 0.32)")
        self.assertAlmostEqual(rows[0]["ratio"], 0.8)
        self.assertEqual(rows[1]["source"], "default: dot-RW.json too far, log2 distance 23.00")
        self.assertAlmostEqual(rows[1]["ratio"], 1.0)
        self.assertAlmostEqual(rows[2]["ratio"], 1.3)
        self.assertEqual(rows[3]["note"], "stored failed its verification")
        self.assertEqual(rows[4]["note"], "no record")
        with open(os.path.join(self.out, "store_matrix.md")) as f:
            table = f.read()
        self.assertIn("| 1 | apps/dot.mdh | K=1 | dot-RW.json (log2 distance 0.32) | 0.0008 [0.00078, 0.00082] | "
                      "0.001 [0.00094, 0.00105] | 0.800 | faster |", table)
        self.assertIn("- device: Fake CPU (fake-device), driver 9.9", table)
        self.assertIn("5 pairs; the store took a stored configuration in 3; 1 ties, 1 faster, 1 slower, 2 errors; "
                      "highest ratio 1.300 (pair 3, slower). Rule kept: NO.", table)
        with open(self.calls) as f:
            calls = f.read().splitlines()
        self.assertEqual(len(calls), 5)
        self.assertIn("--config stored --config default --rounds 7 --json", calls[0])

    def test_records_are_reused_and_only_picks_pairs(self):
        self.assertEqual(self.run_matrix("--only", "1,2"), 0)
        self.assertEqual(self.run_matrix("--only", "1,2"), 0)
        with open(self.calls) as f:
            self.assertEqual(len(f.read().splitlines()), 2)
        with open(os.path.join(self.out, "store_matrix.md")) as f:
            self.assertIn("Rule kept: yes.", f.read())
        self.assertEqual(self.run_matrix("--only", "1", "--force"), 0)
        with open(self.calls) as f:
            self.assertEqual(len(f.read().splitlines()), 3)

    def test_reasons_from_the_stores_notes(self):
        def source(*notes):
            return store_matrix.store_source({"store": {"taken": None, "notes": list(notes)}})
        self.assertEqual(source("not using /s/x/gemm-PC.json (sizes I=1024,J=1024,K=1024): its tiles do not fit "
                                "I=1000,J=1024,K=1024 as they fit its own sizes (LT_SIZE_i 8 divided i's extent 1024 "
                                "and does not divide 1000)", "none of the 1 ..."),
                         "default: gemm-PC.json tiles: LT_SIZE_i 8 divided i's extent 1024 and does not divide 1000")
        self.assertEqual(source("not using /s/x/gemv-PC.json (sizes I=4096,K=4096): not valid for I=10,K=3000: "
                                "config: LT_SIZE_k: 4096 is outside its range [1, 3000]"),
                         "default: gemv-PC.json invalid here: LT_SIZE_k: 4096 is outside its range [1, 3000]")
        self.assertEqual(source("no tuned configurations for fake in /s; using the default configuration"),
                         "default: no tuned configurations for fake in /s")


if __name__ == "__main__":
    unittest.main()
