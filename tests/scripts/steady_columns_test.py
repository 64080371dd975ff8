#!/usr/bin/env python3
"""The steady instrument in the experiment driver (scripts/experiments.py): benchmark.csv carries each record's
steady time and how it was taken, tables.md compares steady times (one call's events stay a diagnostic column), CPU
peers are named as such, every peer of the experiments files has a program, and OpenBLAS runs without
OPENBLAS_CORETYPE. Fake programs stand in for mdh and the peers (no device needed, about a second)."""
import csv
import glob
import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import experiments  # noqa: E402
import fake_programs  # noqa: E402

# A peer whose steady time is half its one-call event time; its device names the environment it saw, and a CUDA
# peer names the --peer it was given.
FAKE_PEER = """#!/usr/bin/env python3
import json, os, sys
a = sys.argv
peer = a[a.index("--peer") + 1] if "--peer" in a else "%(peer)s"
device = "%(device)s" + (" CORETYPE=" + os.environ["OPENBLAS_CORETYPE"] if "OPENBLAS_CORETYPE" in os.environ else "")
steady, events = %(steady)s, %(events)s
def stats(median):
    return {"median": median, "min": median, "max": median, "stddev": 0}
record = {"peer": peer, "device": device, "steady_time_ns": stats(steady), "device_time_ns": stats(events),
          "call_time_ns": stats(events), "runs": 5, "ci_met": True,
          "steady": {"calls_per_sample": 100, "samples": 7, "ci_met": True, "includes": "fake pair"},
          "validation": {"passed": True, "max_abs_error": 0, "max_rel_error": 0},
          "time_includes": {"steady": "fake pair", "device": "fake events", "call": "fake call"}}
json.dump(record, open(a[a.index("--json") + 1], "w"))
"""


def row(peer, steady, events, device="Fake GPU"):
    return {"routine": "gemm", "label": "PC", "sizes": "I=1", "peer": peer, "peer_device": device, "status": "ok",
            "steady_time_median_ns": steady, "device_time_median_ns": events}


class PeerPrograms(unittest.TestCase):
    def test_every_peer_of_every_experiments_file_has_a_program(self):
        for path in glob.glob(os.path.join(ROOT, "experiments*.json")):
            with open(path) as f:
                for routine in json.load(f)["routines"]:
                    for peer in routine.get("peers", []):
                        self.assertIn(peer, experiments.PEER_PROGRAMS, "%s: %s" % (os.path.basename(path), peer))

    def test_the_cuda_peers_are_one_program_told_which_peer(self):
        for peer in ("cublas", "cublaslt", "cudnn", "im2col_cublas", "cuda_stencil", "ttgt_lib", "prl_cuda"):
            self.assertEqual(experiments.PEER_PROGRAMS[peer], ("peer_cuda", ["--peer", peer]))


class Tables(unittest.TestCase):
    def test_speedups_compare_steady_times_and_cpu_peers_say_so(self):
        cases = experiments.table([row("mdh-default", "1000000", "5000000"), row("cublas", "2000000", "1000000"),
                                   row("prl_threads", "4000000", "4000000", "CPU, 16 cores (32 threads)"),
                                   dict(row("cublaslt", "", "900000"))])
        self.assertEqual(cases[0]["ours_ms"], "1.0000")
        self.assertEqual(cases[0]["peers"], [("cublas", "2.0000", "2.00"), ("prl_threads (CPU, 16 cores)", "4.0000",
                                                                            "4.00"),
                                             ("cublaslt", "N/A (no steady time: the program provides no steady_calls)",
                                              "N/A")])
        with tempfile.TemporaryDirectory() as results, tempfile.TemporaryDirectory() as tuned:
            text = experiments.tables_text(results, tuned, cases, {})
        self.assertIn("Median steady time in ms", text)

    def test_a_benchmark_csv_from_before_the_instrument_is_shown_in_its_own_clock(self):
        old = [{k: v for k, v in r.items() if not k.startswith("steady")} for r in
               (row("mdh-default", "", "1000000"), row("cublas", "", "3000000"))]
        self.assertEqual(experiments.headline_column(old), experiments.EVENT_COLUMN)
        self.assertEqual(experiments.table(old)[0]["peers"], [("cublas", "3.0000", "3.00")])


class Benchmark(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        root = self.tmp.name
        bin_dir = os.path.join(root, "bin")
        os.makedirs(bin_dir)
        programs = {"mdh": fake_programs.FAKE_MDH,
                    "peer_mdh": FAKE_PEER % {"peer": "mdh-default", "device": "Fake GPU", "steady": 1e6,
                                             "events": 2e6},
                    "peer_openblas": FAKE_PEER % {"peer": "openblas", "device": "CPU, 2 cores (2 OpenBLAS threads)",
                                                  "steady": 8e6, "events": 8e6},
                    "peer_cuda": FAKE_PEER % {"peer": "?", "device": "Fake GPU", "steady": 3e6, "events": 6e6}}
        fake_programs.write_programs(bin_dir, programs)
        self.experiments = os.path.join(root, "experiments.json")
        with open(self.experiments, "w") as f:
            json.dump({"routines": [{"name": "gemm", "spec": "apps/gemm.mdh", "peers": ["openblas", "cublaslt"],
                                     "sizes": [{"label": "PC", "size": "I=4,J=4,K=4"}]}]}, f)
        self.saved = (experiments.ROOT, os.environ.get("MDH_BIN"), os.environ.get("OPENBLAS_CORETYPE"))
        experiments.ROOT = root
        os.environ["MDH_BIN"] = bin_dir
        os.environ["OPENBLAS_CORETYPE"] = "Prescott"
        self.folder = os.path.join(root, "results", "fake-gpu")

    def tearDown(self):
        experiments.ROOT = self.saved[0]
        for name, value in (("MDH_BIN", self.saved[1]), ("OPENBLAS_CORETYPE", self.saved[2])):
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        self.tmp.cleanup()

    def test_rows_carry_the_steady_time_and_openblas_runs_without_its_coretype(self):
        options = fake_programs.benchmark_options(self.tmp.name, self.experiments)
        experiments.benchmark(options)
        with open(os.path.join(self.folder, "benchmark.csv")) as f:
            rows = {r["peer"]: r for r in csv.DictReader(f)}
        self.assertEqual(rows["openblas"]["peer_device"], "CPU, 2 cores (2 OpenBLAS threads)")
        self.assertEqual(os.environ["OPENBLAS_CORETYPE"], "Prescott")  # only the peer's command lost it
        ours = rows["mdh-default"]
        self.assertEqual((ours["steady_time_median_ns"], ours["device_time_median_ns"]), ("1000000.0", "2000000.0"))
        self.assertEqual((ours["steady_calls_per_sample"], ours["steady_samples"], ours["steady_ci_met"]),
                         ("100", "7", "True"))
        self.assertEqual(ours["steady_time_includes"], "fake pair")
        with open(os.path.join(self.folder, "records", "gemm-PC-cublaslt.json")) as f:
            self.assertEqual(json.load(f)["peer"], "cublaslt")  # peer_cuda was told --peer cublaslt
        options.command = "print"
        experiments.print_results(options)
        with open(os.path.join(self.folder, "tables.md")) as f:
            tables = f.read()
        self.assertIn("| openblas (CPU, 2 cores) | 8.0000 | 8.00 |", tables)
        self.assertIn("| cublaslt | 3.0000 | 3.00 |", tables)


if __name__ == "__main__":
    unittest.main()
