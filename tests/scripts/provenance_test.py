#!/usr/bin/env python3
"""Provenance of benchmark runs (scripts/provenance.py through experiments.py benchmark and print): every row
carries its run's run_id, benchmark.json names exactly the runs of the rows and describes each, a table of several
runs is refused unless --merge and then names each row's run, a run continued by a later call (--run-id) stays one
run, and the committed tables are consistent (legacy ones say so). Fake programs stand in for mdh and the peers (no
device needed, about a second)."""
import calendar
import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import experiments  # noqa: E402
import fake_programs  # noqa: E402
import provenance  # noqa: E402

FAKE_PEER = """#!/usr/bin/env python3
import json, sys
a = sys.argv
stats = {"median": 1e6, "min": 1e6, "max": 1e6, "stddev": 0}
record = {"peer": "%(peer)s", "device": "Fake GPU", "library_version": "%(version)s", "steady_time_ns": stats,
          "device_time_ns": stats, "call_time_ns": stats, "runs": 5, "ci_met": True,
          "validation": {"passed": True, "max_abs_error": 0, "max_rel_error": 0}}
json.dump(record, open(a[a.index("--json") + 1], "w"))
"""

# `mdh devices` on the 16-core Xeon host with one H200 (from a committed benchmark.json written by hand).
LISTING = """Platform 0: Portable Computing Language (OpenCL 3.0 PoCL 5.0+debian  Linux, None+Asserts, RELOC)
  0:0  cpu-skylake-avx512-Intel(R) Xeon(R) Processor  [CPU]
       vendor GenuineIntel; OpenCL 3.0 PoCL HSTR: cpu-x86_64-pc-linux-gnu-skylake-avx512; driver 5.0+debian
       compute units 16, max clock 2100 MHz
Platform 1: NVIDIA CUDA (OpenCL 3.0 CUDA 13.0.98)
  1:0  NVIDIA H200  [GPU, default]
       vendor NVIDIA Corporation; OpenCL 3.0 CUDA; driver 580.159.04; OpenCL C 1.2
       compute units 132, max clock 1980 MHz
default: 1:0"""


class RunIds(unittest.TestCase):
    def test_a_run_id_is_its_start_its_device_and_a_random_suffix(self):
        first = provenance.new_run_id("nvidia-h200", now=calendar.timegm((2026, 12, 2, 0, 0, 0)))
        self.assertRegex(first, r"^20261202T000000Z-nvidia-h200-[0-9a-f]{4}$")
        self.assertRegex(first, provenance.RUN_ID_PATTERN)
        self.assertGreater(len({provenance.new_run_id("x", now=0) for _ in range(20)}), 1)

    def test_the_selected_device_of_the_listing(self):
        self.assertEqual(provenance.selected_device(LISTING, "1:0"),
                         {"name": "NVIDIA H200", "selector": "1:0", "type": "GPU", "platform": "NVIDIA CUDA",
                          "platform_version": "OpenCL 3.0", "opencl_version": "OpenCL 3.0 CUDA",
                          "driver": "580.159.04", "compute_units": 132})
        self.assertEqual(provenance.selected_device(LISTING, "0:0")["driver"], "5.0+debian")
        self.assertEqual(provenance.selected_device(LISTING, "2:0"), {})


class SourceState(unittest.TestCase):
    def test_changes_to_the_results_and_the_store_do_not_make_a_checkout_dirty(self):
        with tempfile.TemporaryDirectory() as root:
            def git(*args):
                subprocess.run(["git", "-C", root, "-c", "user.name=t", "-c", "user.email=t@t.invalid"] + list(args),
                               check=True, capture_output=True)
            git("init", "-q")
            for path in ("results/d/tables.md", "tuned/d/a.json", "scripts/x.py"):
                os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
                with open(os.path.join(root, path), "w") as f:
                    f.write("1\n")
            git("add", "-A")
            git("commit", "-qm", "x")
            self.assertEqual(provenance.source_state(root)["dirty"], False)
            for path in ("results/d/tables.md", "tuned/d/a.json"):
                with open(os.path.join(root, path), "w") as f:
                    f.write("2\n")
            self.assertEqual(provenance.source_state(root)["dirty"], False)
            with open(os.path.join(root, "scripts/x.py"), "w") as f:
                f.write("2\n")
            self.assertEqual(provenance.source_state(root)["dirty"], True)

    def test_the_programs_commit_names_the_source_and_a_checkout_at_another_commit_says_so(self):
        with tempfile.TemporaryDirectory() as root:
            def git(*args):
                subprocess.run(["git", "-C", root, "-c", "user.name=t", "-c", "user.email=t@t.invalid"] + list(args),
                               check=True, capture_output=True)
            git("init", "-q")
            git("commit", "-q", "--allow-empty", "-m", "x")
            head = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
            self.assertEqual(provenance.source_state(root, head), {"commit": head, "dirty": False})
            other = provenance.source_state(root, "f" * 40)
            self.assertEqual(other["commit"], "f" * 40)
            self.assertEqual(other["checkout_commit"], head)
            self.assertIn("another commit", other["dirty"])
            self.assertNotIn("with local changes", provenance.run_line(
                {provenance.RUN_ID_FIELD: "r", "source": other}))


class NvidiaGpus(unittest.TestCase):
    def test_uuids_and_clocks_of_every_gpu_and_the_card_in_the_heading(self):
        with tempfile.TemporaryDirectory() as bin_dir:
            fake_programs.write_programs(bin_dir, {"nvidia-smi": """#!/bin/sh
echo "0, NVIDIA H200, GPU-1111, 580.159.04, 1980 MHz, 2619 MHz, 1980 MHz, 3201 MHz, 700.00 W, Enabled"
"""})
            saved = os.environ["PATH"]
            os.environ["PATH"] = bin_dir + os.pathsep + saved
            try:
                gpus = provenance.nvidia_gpus()
            finally:
                os.environ["PATH"] = saved
        self.assertEqual(gpus, [{"index": "0", "name": "NVIDIA H200", "uuid": "GPU-1111",
                                 "driver_version": "580.159.04", "clocks.sm": "1980 MHz", "clocks.mem": "2619 MHz", "clocks.max.sm": "1980 MHz",
                                 "clocks.max.mem": "3201 MHz", "power.limit": "700.00 W",
                                 "persistence_mode": "Enabled"}])
        run = {"run_id": "20261202T000000Z-nvidia-h200-0000", "device": {"name": "NVIDIA H200"}, "nvidia_gpus": gpus,
               "source": {"commit": "0123456789abcdef", "dirty": True}, "start": "S", "end": "E"}
        self.assertEqual(provenance.run_line(run), "`20261202T000000Z-nvidia-h200-0000` on NVIDIA H200 GPU-1111, "
                                                   "commit 0123456789ab with local changes, S to E")


class Runs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        root = self.tmp.name
        bin_dir = os.path.join(root, "bin")
        os.makedirs(bin_dir)
        fake_programs.write_programs(bin_dir, {
            "mdh": fake_programs.FAKE_MDH,
            "peer_mdh": FAKE_PEER % {"peer": "mdh-default", "version": "mdh fake"},
            "peer_openblas": FAKE_PEER % {"peer": "openblas", "version": "OpenBLAS fake SkylakeX"}})
        self.experiments = os.path.join(root, "experiments.json")
        with open(self.experiments, "w") as f:
            json.dump({"routines": [{"name": "gemv", "spec": "apps/gemv.mdh", "peers": ["openblas"],
                                     "repetitions": {"ci": 0.05},
                                     "sizes": [{"label": "A", "size": "I=8,K=8"},
                                               {"label": "B", "size": "I=16,K=8"}]}]}, f)
        self.saved = (experiments.ROOT, os.environ.get("MDH_BIN"), experiments.plot_speedups,
                      experiments.plot_tuning_curves)
        experiments.ROOT = root
        # The plots have their own test (plots_test.sh); here they would only cost gnuplot's start-ups.
        experiments.plot_speedups = experiments.plot_tuning_curves = lambda *args: None
        os.environ["MDH_BIN"] = bin_dir
        self.folder = os.path.join(root, "results", "fake-gpu")

    def tearDown(self):
        experiments.ROOT, experiments.plot_speedups, experiments.plot_tuning_curves = (self.saved[0], self.saved[2],
                                                                                     self.saved[3])
        if self.saved[1] is None:
            del os.environ["MDH_BIN"]
        else:
            os.environ["MDH_BIN"] = self.saved[1]
        self.tmp.cleanup()

    def benchmark(self, only=(), **options):
        experiments.benchmark(fake_programs.benchmark_options(self.tmp.name, self.experiments, only=list(only),
                                                              **options))

    def tables(self):
        experiments.print_results(fake_programs.benchmark_options(self.tmp.name, self.experiments, "print"))
        with open(os.path.join(self.folder, "tables.md")) as f:
            return f.read()

    def rows(self):
        with open(os.path.join(self.folder, "benchmark.csv")) as f:
            return list(csv.DictReader(f))

    def metadata(self):
        with open(os.path.join(self.folder, "benchmark.json")) as f:
            return json.load(f)

    def test_one_run_names_itself_in_every_row_and_in_benchmark_json(self):
        self.benchmark()
        rows, metadata = self.rows(), self.metadata()
        run_id = rows[0]["run_id"]
        self.assertRegex(run_id, r"-fake-gpu-[0-9a-f]{4}$")
        self.assertEqual({r["run_id"] for r in rows}, {run_id})
        self.assertEqual(len(rows), 4)
        self.assertEqual((metadata["run_ids"], metadata["merged"]), ([run_id], False))
        self.assertEqual(provenance.table_problems(rows, metadata), [])
        run = metadata["runs"][0]
        self.assertEqual((run["device"]["name"], run["device"]["driver"], run["device"]["platform"],
                          run["device"]["opencl_version"]), ("Fake GPU", "1.0", "Fake Platform", "OpenCL 3.0 Fake"))
        self.assertTrue(run["host"]["cpu_model"] and run["host"]["cpu_cores"] >= 1)
        self.assertIn("dirty", run["source"])
        self.assertEqual(run["source"]["commit"], "e" * 40)  # what the fake mdh --version reports
        self.assertEqual(len(run["commands"]), 1)
        self.assertLessEqual(run["start"], run["end"])
        self.assertEqual([(c["label"], c["ci"], c["warmups"]) for c in run["cases"]], [("A", 0.05, 2), ("B", 0.05, 2)])
        self.assertEqual(run["peer_library_versions"], {"mdh-default": ["mdh fake"],
                                                        "openblas": ["OpenBLAS fake SkylakeX"]})
        with open(os.path.join(self.folder, "records", "gemv-A-openblas.json")) as f:
            self.assertEqual(json.load(f)["run_id"], run_id)
        tables = self.tables()
        self.assertIn("Run: `%s` on Fake GPU, commit " % run_id, tables)
        self.assertNotIn("| run |", tables)

    def test_records_that_no_row_names_leave_the_table_folder(self):
        records = os.path.join(self.folder, "records")
        os.makedirs(records)
        for name in ("gemv-A-cublas_ttgt.json", "gemv-A-cublas_ttgt.json.log", "gemv-A-mdh-config-of-x.json"):
            with open(os.path.join(records, name), "w") as f:
                f.write("{}")
        self.benchmark()
        left = sorted(os.listdir(records))
        self.assertNotIn("gemv-A-cublas_ttgt.json", left)
        self.assertNotIn("gemv-A-cublas_ttgt.json.log", left)
        self.assertNotIn("gemv-A-mdh-config-of-x.json", left)
        self.assertIn("gemv-A-openblas.json", left)
        self.assertIn("gemv-B-mdh-default.json", left)

    def test_rows_of_another_run_are_kept_only_with_merge_and_then_named_per_row(self):
        self.benchmark()
        first = self.rows()[0]["run_id"]
        with self.assertRaises(SystemExit) as refused:
            self.benchmark(only=["gemv:B"])
        self.assertEqual(refused.exception.code, 2)
        # The same refusal alone, as scripts/main.sh asks it before tuning.
        with self.assertRaises(SystemExit):
            experiments.check_table(fake_programs.benchmark_options(self.tmp.name, self.experiments, only=["gemv:B"]))
        experiments.check_table(fake_programs.benchmark_options(self.tmp.name, self.experiments, only=["gemv:B"],
                                                                merge=True))
        experiments.check_table(fake_programs.benchmark_options(self.tmp.name, self.experiments))
        self.assertEqual({r["run_id"] for r in self.rows()}, {first})  # nothing was written
        self.benchmark(only=["gemv:B"], merge=True)
        rows, metadata = self.rows(), self.metadata()
        second = [r["run_id"] for r in rows if r["label"] == "B"][0]
        self.assertNotEqual(first, second)
        self.assertEqual(({r["run_id"] for r in rows if r["label"] == "A"}, metadata["run_ids"], metadata["merged"]),
                         ({first}, [first, second], True))
        self.assertEqual([r["run_id"] for r in metadata["runs"]], [first, second])
        self.assertEqual(provenance.table_problems(rows, metadata), [])
        tables = self.tables()
        self.assertIn("Runs (a table merged from 2 runs with `--merge`; each row names its run in the run column):",
                      tables)
        self.assertIn("| run | routine | label |", tables)
        self.assertIn("| %s | gemv | B |" % second, tables)
        # Measuring every case again makes it one run again.
        self.benchmark()
        self.assertEqual(len(self.metadata()["run_ids"]), 1)

    def test_a_run_continued_by_a_later_call_stays_one_run(self):
        run_id = provenance.new_run_id("fake-gpu")
        self.benchmark(only=["gemv:A"], run_id=run_id)
        self.benchmark(only=["gemv:B"], run_id=run_id)
        rows, metadata = self.rows(), self.metadata()
        self.assertEqual(({r["run_id"] for r in rows}, metadata["run_ids"], metadata["merged"]),
                         ({run_id}, [run_id], False))
        run = metadata["runs"][0]
        self.assertEqual((len(run["commands"]), [c["label"] for c in run["cases"]]), (2, ["A", "B"]))
        with self.assertRaises(SystemExit):
            self.benchmark(run_id="not-a-run-id")

    def test_replace_makes_the_table_this_runs_alone(self):
        os.makedirs(self.folder)
        with open(os.path.join(self.folder, "benchmark.csv"), "w") as f:
            f.write("device,routine,label,sizes,peer,status,device_time_median_ns\n"
                    "fake-gpu,prl,small,\"N=4,M=4\",mdh-default,ok,1000\n")
        run_id = provenance.new_run_id("fake-gpu")
        self.benchmark(only=["gemv:A"], run_id=run_id, replace=True)
        self.benchmark(only=["gemv:B"], run_id=run_id, replace=True)  # a later call of the same run keeps gemv:A
        rows, metadata = self.rows(), self.metadata()
        self.assertEqual(({(r["routine"], r["label"]) for r in rows}, {r["run_id"] for r in rows}),
                         ({("gemv", "A"), ("gemv", "B")}, {run_id}))
        self.assertEqual((metadata["run_ids"], metadata["merged"]), ([run_id], False))
        self.assertNotIn("legacy", metadata)

    def test_legacy_rows_kept_with_merge_say_so(self):
        os.makedirs(self.folder)
        with open(os.path.join(self.folder, "benchmark.csv"), "w") as f:
            f.write("device,routine,label,sizes,peer,status,device_time_median_ns\n"
                    "fake-gpu,gemv,B,\"I=16,K=8\",mdh-default,ok,1000\n")
        with self.assertRaises(SystemExit):
            self.benchmark(only=["gemv:A"])
        self.benchmark(only=["gemv:A"], merge=True)
        rows, metadata = self.rows(), self.metadata()
        self.assertEqual(metadata["run_ids"][0], provenance.LEGACY_RUN)
        self.assertIn("legacy", metadata)
        self.assertEqual(provenance.table_problems(rows, metadata), [])
        self.assertIn("| %s | gemv | B |" % provenance.LEGACY_RUN, self.tables())


class CommittedTables(unittest.TestCase):
    def test_each_committed_table_and_its_benchmark_json_describe_each_other(self):
        folders = [os.path.join(ROOT, "results", d) for d in sorted(os.listdir(os.path.join(ROOT, "results")))
                   if os.path.exists(os.path.join(ROOT, "results", d, "benchmark.csv"))]
        self.assertTrue(folders)
        for folder in folders:
            with open(os.path.join(folder, "benchmark.csv")) as f:
                rows = list(csv.DictReader(f))
            metadata = experiments.read_metadata(folder)
            self.assertEqual(provenance.table_problems(rows, metadata), [], folder)
            with open(os.path.join(folder, "tables.md")) as f:
                tables = f.read()
            for run_id in metadata["run_ids"]:
                self.assertIn("`%s`" % run_id, tables, folder)

    def test_a_table_and_a_json_that_disagree_are_found(self):
        rows = [{"run_id": "20261202T000000Z-x-0000"}, {"run_id": "20261202T000001Z-x-0001"}]
        self.assertEqual(provenance.table_problems(rows, {
            "run_ids": ["20261202T000000Z-x-0000", "20261202T000001Z-x-0001"], "merged": False,
            "runs": [{"run_id": "20261202T000000Z-x-0000"}]}),
            ["run 20261202T000001Z-x-0001 is described 0 times in benchmark.json",
             "benchmark.json's merged flag is False for 2 run(s)"])
        self.assertEqual(provenance.table_problems([{}], {"run_ids": ["legacy, no run_id"]}),
                         ["rows of 'legacy, no run_id' without benchmark.json's note on them ('legacy')"])


if __name__ == "__main__":
    unittest.main()
