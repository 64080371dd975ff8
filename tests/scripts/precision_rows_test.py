#!/usr/bin/env python3
"""Rows in a compute precision in the experiment driver (scripts/experiments.py): an experiments file's `precision`
(per routine or per size, fp32 where absent) reaches mdh and every peer program as `--precision P` (fp32 rows pass
nothing), benchmark.csv and tables.md show it as a column, a TF32 row is judged by its bandwidth share only, and the
GPU experiments hold TF32 rows at the sizes of their FP32 rows. Fake programs stand in for mdh and the peers."""
import contextlib
import csv
import io
import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import experiments  # noqa: E402
import fake_programs  # noqa: E402
import percent_of_limit  # noqa: E402

# The half and bfloat16 GEMMs of experiments.gpu.json and the label suffix of their rows.
TWO_BYTE_GEMMS = {"apps/gemm_half.mdh": "-fp16", "apps/gemm_bfloat16.mdh": "-bf16"}

# mdh: the device's slug and name, and for `tune` a line of its arguments in TUNE_LOG.
FAKE_MDH = """#!/usr/bin/env python3
import os, sys
if sys.argv[1] == "tune":
    with open(os.environ["TUNE_LOG"], "a") as log:
        log.write(" ".join(sys.argv[1:]) + "\\n")
else:
    print("fake-gpu" if sys.argv[1:3] == ["devices", "--slug"] else "0:0 Fake GPU")
"""

# A peer that records the precision it was given (fp32 without --precision), as the real programs do.
FAKE_PEER = """#!/usr/bin/env python3
import json, sys
a = sys.argv
peer = a[a.index("--peer") + 1] if "--peer" in a else "%(peer)s"
precision = a[a.index("--precision") + 1] if "--precision" in a else "fp32"
spec = a[a.index("--spec") + 1]
input_type = "fp16" if spec.endswith("gemm_half.mdh") else "fp32"
stats = {"median": 1e6, "min": 1e6, "max": 1e6, "stddev": 0}
record = {"peer": peer, "device": "Fake GPU", "precision": precision, "input_type": input_type, "steady_time_ns": stats,
          "device_time_ns": stats, "call_time_ns": stats, "runs": 5, "ci_met": True, "arguments": a[1:],
          "steady": {"calls_per_sample": 10, "samples": 5, "ci_met": True, "includes": "fake pair"},
          "validation": {"passed": True, "max_abs_error": 0, "max_rel_error": 0}, "time_includes": {}}
json.dump(record, open(a[a.index("--json") + 1], "w"))
"""


def write_experiments(folder, routines):
    path = os.path.join(folder, "experiments.json")
    with open(path, "w") as f:
        json.dump({"routines": routines}, f)
    return path


class LoadExperiments(unittest.TestCase):
    def test_precision_comes_from_the_size_or_the_routine_and_defaults_to_fp32(self):
        path = write_experiments(tempfile.mkdtemp(), [
            {"name": "gemm", "spec": "apps/gemm.mdh", "sizes": [{"label": "PC", "size": "I=4,J=4,K=4"}]},
            {"name": "gemm", "spec": "apps/gemm.mdh", "precision": "tf32",
             "sizes": [{"label": "PC-tf32", "size": "I=4,J=4,K=4"},
                       {"label": "PC-fp32", "size": "I=4,J=4,K=4", "precision": "fp32"}]}])
        cases = experiments.load_experiments(path)
        self.assertEqual([(c["label"], c["precision"]) for c in cases],
                         [("PC", "fp32"), ("PC-tf32", "tf32"), ("PC-fp32", "fp32")])
        self.assertEqual(experiments.precision_args(cases[0]), [])
        self.assertEqual(experiments.precision_args(cases[1]), ["--precision", "tf32"])

    def test_an_unknown_precision_or_a_label_used_twice_is_an_error(self):
        for routines, message in (
                ([{"name": "gemm", "spec": "s", "precision": "fp16", "sizes": [{"label": "PC", "size": "I=4"}]}],
                 "gemm PC: precision 'fp16' is not one of fp32, tf32"),
                ([{"name": "gemm", "spec": "s", "sizes": [{"label": "PC", "size": "I=4"}]},
                  {"name": "gemm", "spec": "s", "precision": "tf32", "sizes": [{"label": "PC", "size": "I=4"}]}],
                 "two rows are named gemm PC; give each its own label (e.g. PC-tf32)")):
            path = write_experiments(tempfile.mkdtemp(), routines)
            captured = io.StringIO()
            with contextlib.redirect_stderr(captured), self.assertRaises(SystemExit) as exit_status:
                experiments.load_experiments(path)
            self.assertEqual(exit_status.exception.code, 2)
            self.assertIn(message, captured.getvalue())


class GpuExperiments(unittest.TestCase):
    def test_tf32_rows_repeat_the_sizes_of_fp32_rows_with_tf32_peers(self):
        cases = experiments.load_experiments(os.path.join(ROOT, "experiments.gpu.json"))
        fp32 = {(c["name"], c["size"]) for c in cases if c["precision"] == "fp32"}
        tf32 = [c for c in cases if c["precision"] == "tf32" and c["spec"] not in TWO_BYTE_GEMMS]
        self.assertEqual({(c["name"], c["size"]) for c in tf32} - fp32, set())
        names = [c["name"] for c in tf32]
        self.assertEqual(names.count("gemm"), 2)
        self.assertIn("mcc", names)
        self.assertTrue(any(name.startswith("tc-") for name in names))
        for case in tf32:
            self.assertTrue(case["label"].endswith("-tf32"), case["label"])
            self.assertTrue(set(case["peers"]) <= {"cublas", "cublaslt", "cudnn", "im2col_cublas", "ttgt_lib"},
                            case["peers"])


    def test_half_and_bfloat16_gemms_ask_for_the_tensor_cores_against_cublas(self):
        cases = experiments.load_experiments(os.path.join(ROOT, "experiments.gpu.json"))
        two_byte = [c for c in cases if c["spec"] in TWO_BYTE_GEMMS]
        self.assertEqual(sorted((c["spec"], c["size"]) for c in two_byte), [
            ("apps/gemm_bfloat16.mdh", "I=4096,J=4096,K=4096"), ("apps/gemm_half.mdh", "I=1024,J=1024,K=1024"),
            ("apps/gemm_half.mdh", "I=4096,J=4096,K=4096")])
        fp32 = {(c["name"], c["size"]) for c in cases if c["precision"] == "fp32"}
        for case in two_byte:
            self.assertIn((case["name"], case["size"]), fp32)  # beside the float GEMM of that size
            self.assertEqual(case["precision"], "tf32")
            self.assertTrue(case["label"].endswith(TWO_BYTE_GEMMS[case["spec"]]), case["label"])
            self.assertEqual(case["peers"], ["cublas", "cublaslt"])
            self.assertTrue(os.path.exists(os.path.join(ROOT, case["spec"])), case["spec"])


class LimitOfATf32Row(unittest.TestCase):
    def test_a_tf32_row_is_judged_by_its_bandwidth_only(self):
        peak = {"device": "Fake GPU", "fp32_gflops": 100.0, "copy_gbytes_per_s": 1000.0}
        record = {"device": "Fake GPU", "steady_time_ns": {"median": 1e6}, "flops": 4e8, "bytes": 1e8}
        self.assertEqual(percent_of_limit.limit_fields(record, peak)["limit"], "FP32")  # 400% of 100 GFLOP/s
        fields = percent_of_limit.limit_fields(dict(record, precision="tf32"), peak)
        self.assertEqual((fields["percent_of_limit"], fields["limit"]), ("10.0", "BW"))

    def test_a_row_of_half_or_bfloat16_inputs_is_judged_by_its_bandwidth_in_either_precision(self):
        peak = {"device": "Fake GPU", "fp32_gflops": 100.0, "copy_gbytes_per_s": 1000.0}
        record = {"device": "Fake GPU", "steady_time_ns": {"median": 1e6}, "flops": 4e8, "bytes": 1e8}
        for input_type in ("fp16", "bf16"):
            for precision in ("fp32", "tf32"):
                fields = percent_of_limit.limit_fields(dict(record, precision=precision, input_type=input_type), peak)
                self.assertEqual((fields["percent_of_limit"], fields["limit"]), ("10.0", "BW"))


class Benchmark(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        root = self.tmp.name
        bin_dir = os.path.join(root, "bin")
        os.makedirs(bin_dir)
        fake_programs.write_programs(bin_dir, {"mdh": FAKE_MDH, "peer_mdh": FAKE_PEER % {"peer": "mdh-default"},
                                               "peer_cuda": FAKE_PEER % {"peer": "?"}})
        self.experiments = write_experiments(root, [
            {"name": "gemm", "spec": "apps/gemm.mdh", "peers": ["cublas"],
             "sizes": [{"label": "PC", "size": "I=4,J=4,K=4"}]},
            {"name": "gemm", "spec": "apps/gemm.mdh", "peers": ["cublas", "cublaslt"], "precision": "tf32",
             "sizes": [{"label": "PC-tf32", "size": "I=4,J=4,K=4"}]}])
        self.saved = (experiments.ROOT, os.environ.get("MDH_BIN"), os.environ.get("TUNE_LOG"))
        experiments.ROOT = root
        os.environ["MDH_BIN"] = bin_dir
        os.environ["TUNE_LOG"] = os.path.join(root, "tune.log")
        self.folder = os.path.join(root, "results", "fake-gpu")
        self.options = fake_programs.benchmark_options(root, self.experiments, budget_scale=1.0, in_process=False,
                                                       skip_peer_tuning=True, compress_journals=True)

    def tearDown(self):
        experiments.ROOT = self.saved[0]
        for name, value in (("MDH_BIN", self.saved[1]), ("TUNE_LOG", self.saved[2])):
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        self.tmp.cleanup()

    def test_the_precision_reaches_every_program_and_the_tables(self):
        experiments.benchmark(self.options)
        with open(os.path.join(self.folder, "benchmark.csv")) as f:
            rows = {(r["label"], r["peer"]): r for r in csv.DictReader(f)}
        self.assertEqual({key: r["precision"] for key, r in rows.items()},
                         {("PC", "mdh-default"): "fp32", ("PC", "cublas"): "fp32", ("PC-tf32", "mdh-default"): "tf32",
                          ("PC-tf32", "cublas"): "tf32", ("PC-tf32", "cublaslt"): "tf32"})
        for label, peer in rows:
            with open(os.path.join(self.folder, "records", "gemm-%s-%s.json" % (label, peer))) as f:
                record = json.load(f)
            self.assertEqual(record["precision"], rows[(label, peer)]["precision"])  # what the program was told
            self.assertEqual("--precision" in record["arguments"], label == "PC-tf32")
        with open(os.path.join(self.folder, "benchmark.json")) as f:
            run = json.load(f)["runs"][0]
        self.assertEqual([(c["label"], c["precision"]) for c in run["cases"]], [("PC", "fp32"), ("PC-tf32", "tf32")])
        self.options.command = "print"
        experiments.print_results(self.options)
        with open(os.path.join(self.folder, "tables.md")) as f:
            tables = f.read()
        self.assertIn("| routine | label | sizes | precision | mdh |", tables)
        self.assertIn("| gemm | PC | I=4,J=4,K=4 | fp32 | 1.0000 |", tables)
        self.assertIn("| gemm | PC-tf32 | I=4,J=4,K=4 | tf32 | 1.0000 |", tables)

    def test_a_row_of_half_inputs_names_them_in_the_precision_column(self):
        with open(self.experiments, "w") as f:
            json.dump({"routines": [
                {"name": "gemm", "spec": "apps/gemm.mdh", "peers": ["cublas"], "precision": "tf32",
                 "sizes": [{"label": "PC-tf32", "size": "I=4,J=4,K=4"}]},
                {"name": "gemm", "spec": "apps/gemm_half.mdh", "peers": ["cublas", "cublaslt"], "precision": "tf32",
                 "sizes": [{"label": "PC-fp16", "size": "I=4,J=4,K=4"}]}]}, f)
        experiments.benchmark(self.options)
        with open(os.path.join(self.folder, "benchmark.csv")) as f:
            rows = {(r["label"], r["peer"]): r for r in csv.DictReader(f)}
        self.assertEqual({key: (r["precision"], r["input_type"]) for key, r in rows.items()},
                         {("PC-tf32", "mdh-default"): ("tf32", "fp32"), ("PC-tf32", "cublas"): ("tf32", "fp32"),
                          ("PC-fp16", "mdh-default"): ("tf32", "fp16"), ("PC-fp16", "cublas"): ("tf32", "fp16"),
                          ("PC-fp16", "cublaslt"): ("tf32", "fp16")})
        self.options.command = "print"
        experiments.print_results(self.options)
        with open(os.path.join(self.folder, "tables.md")) as f:
            tables = f.read()
        self.assertIn("| gemm | PC-tf32 | I=4,J=4,K=4 | tf32 | 1.0000 |", tables)
        self.assertIn("| gemm | PC-fp16 | I=4,J=4,K=4 | fp16 (fp32 acc.) | 1.0000 |", tables)

    def test_a_benchmark_csv_from_before_the_column_keeps_its_rows_as_fp32(self):
        os.makedirs(self.folder)
        with open(os.path.join(self.folder, "benchmark.csv"), "w", newline="") as f:
            old = [field for field in experiments.CSV_FIELDS if field != "precision"]
            writer = csv.DictWriter(f, fieldnames=old, extrasaction="ignore")
            writer.writeheader()
            writer.writerow({"device": "fake-gpu", "routine": "dot", "label": "RW", "sizes": "K=8", "peer": "cublas",
                             "status": "ok", "steady_time_median_ns": "1000"})
        # Its rows are of no recorded run, so keeping them beside this run's is a merge.
        self.options.only, self.options.merge = ["gemm:PC-tf32"], True
        experiments.benchmark(self.options)
        with open(os.path.join(self.folder, "benchmark.csv")) as f:
            rows = {(r["label"], r["peer"]): r for r in csv.DictReader(f)}
        self.assertEqual(rows[("RW", "cublas")]["precision"], "fp32")
        self.assertEqual(rows[("PC-tf32", "cublas")]["precision"], "tf32")

    def test_tuning_passes_the_precision_to_mdh_tune(self):
        self.options.command = "tune"
        experiments.tune(self.options)
        with open(os.environ["TUNE_LOG"]) as f:
            tunes = f.read().splitlines()
        self.assertEqual(len(tunes), 2)
        self.assertNotIn("--precision", tunes[0])
        self.assertIn("gemm-PC.json", tunes[0])
        self.assertTrue(tunes[1].endswith("--precision tf32"), tunes[1])
        self.assertIn("gemm-PC-tf32.json", tunes[1])


if __name__ == "__main__":
    unittest.main()
