#!/usr/bin/env python3
"""The "% of limit" column (scripts/percent_of_limit.py) alone and through experiments.py benchmark and print, with
fake programs standing in for mdh, peer_mdh, peer_openblas and device_peak (no device needed, about a second)."""
import csv
import glob
import json
import os
import re
import sys
import tempfile
import unittest

SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scripts")
sys.path.insert(0, SCRIPTS)
import experiments  # noqa: E402
import fake_programs  # noqa: E402
import percent_of_limit  # noqa: E402

# A fake GPU with 10,000 GFLOP/s FP32 and 2,000 GB/s copy bandwidth.
PEAK = {"program": "device_peak", "device": "Fake GPU", "device_type": "GPU", "driver": "1.0", "quick": False,
        "fp32_gflops": 10000.0, "copy_gbytes_per_s": 2000.0, "passed": True}


def record(device, median_ns, flops=None, nbytes=None):
    r = {"device": device, "steady_time_ns": {"median": median_ns, "min": median_ns, "max": median_ns, "stddev": 0},
         "device_time_ns": {"median": 3 * median_ns, "min": median_ns, "max": median_ns, "stddev": 0},
         "call_time_ns": {"median": median_ns, "min": median_ns, "max": median_ns, "stddev": 0},
         "runs": 5, "ci_met": True, "validation": {"passed": True, "max_abs_error": 0, "max_rel_error": 0},
         "time_includes": {"device": "fake", "call": "fake"}}
    if flops is not None:
        r["flops"] = flops
    if nbytes is not None:
        r["bytes"] = nbytes
    return r


class LimitFields(unittest.TestCase):
    def test_the_share_follows_the_steady_time_not_one_calls_events(self):
        # record() gives one call's events three times the steady time: the share is the steady time's.
        fields = percent_of_limit.limit_fields(record("Fake GPU", 1e6, 2e9, 1e9), PEAK)
        self.assertEqual(fields["gbytes_per_s"], "1000.00")
        without = record("Fake GPU", 1e6, 2e9, 1e9)
        del without["steady_time_ns"]
        self.assertEqual(percent_of_limit.limit_fields(without, PEAK), {})


    def test_the_larger_share_names_the_limit(self):
        # 2e9 flops and 1e9 bytes in 1 ms: 2,000 GFLOP/s (20% of FP32) and 1,000 GB/s (50% of BW).
        fields = percent_of_limit.limit_fields(record("Fake GPU", 1e6, 2e9, 1e9), PEAK)
        self.assertEqual(fields, {"gbytes_per_s": "1000.00", "peak_fp32_gflops": "10000.0",
                                  "peak_copy_gbytes_per_s": "2000.0", "percent_of_limit": "50.0", "limit": "BW",
                                  "working_set_bytes": "1000000000"})
        self.assertEqual(percent_of_limit.limit_cell(dict(fields, status="ok")), "50% BW")
        # 9e9 flops in 1 ms: 9,000 GFLOP/s, 90% of FP32, above the 50% of BW.
        fields = percent_of_limit.limit_fields(record("Fake GPU", 1e6, 9e9, 1e9), PEAK)
        self.assertEqual((fields["percent_of_limit"], fields["limit"]), ("90.0", "FP32"))

    def test_a_spec_with_only_flops_is_judged_by_fp32(self):
        fields = percent_of_limit.limit_fields(record("Fake GPU", 2e6, 4e9), PEAK)
        self.assertEqual((fields["percent_of_limit"], fields["limit"]), ("20.0", "FP32"))
        self.assertNotIn("gbytes_per_s", fields)

    def test_no_limit_without_flops_and_bytes_without_peak_or_on_other_hardware(self):
        self.assertNotIn("percent_of_limit", percent_of_limit.limit_fields(record("Fake GPU", 1e6), PEAK))
        self.assertEqual(percent_of_limit.limit_fields(record("Fake GPU", 1e6, 2e9, 1e9), None),
                         {"gbytes_per_s": "1000.00"})
        # OpenBLAS on the GPU machine's host is not judged against the GPU's limits ...
        host = record("host CPU (16 OpenBLAS threads)", 1e6, 2e9, 1e9)
        self.assertNotIn("percent_of_limit", percent_of_limit.limit_fields(host, PEAK))
        # ... but against the limits PoCL measured on that same CPU.
        cpu_peak = dict(PEAK, device="cpu-haswell-Intel Xeon", device_type="CPU")
        self.assertEqual(percent_of_limit.limit_fields(host, cpu_peak)["percent_of_limit"], "50.0")
        self.assertEqual(percent_of_limit.limit_fields(None, PEAK), {})

    def test_cells_of_failed_or_unjudged_rows_say_na(self):
        self.assertEqual(percent_of_limit.limit_cell({"status": "validation failed", "percent_of_limit": "50.0",
                                                      "limit": "BW"}), "N/A")
        self.assertEqual(percent_of_limit.limit_cell({"status": "ok", "percent_of_limit": ""}), "N/A")
        self.assertEqual(percent_of_limit.limit_cell({"status": "ok", "percent_of_limit": "7.46", "limit": "FP32"}),
                         "7.5% FP32")


# A peer writing a record of 1 ms with the flops and bytes of GEMV 1024x1024 (what the spec would declare).
class InCache(unittest.TestCase):
    def test_a_share_above_the_copy_bandwidth_reads_in_cache(self):
        self.assertEqual(percent_of_limit.share_cell(172.0, "BW"), "in cache")
        self.assertEqual(percent_of_limit.share_cell(100.0, "BW"), "100% BW")
        self.assertEqual(percent_of_limit.share_cell(101.2, "FP32"), "above FP32 peak")
        self.assertEqual(percent_of_limit.limit_cell({"status": "ok", "percent_of_limit": "160.7", "limit": "BW"}),
                         "in cache")

    def test_a_working_set_below_twice_the_cache_is_partly_in_cache(self):
        # The H200's 50 MB of L2: GEMV 4096^2 (67 MB) may claim its share, DOT 2^20 (8 MB) may not.
        l2 = 50 * 1000 * 1000
        self.assertEqual(percent_of_limit.share_cell(87.0, "BW", 67 * 1000 * 1000, l2), "partly in cache")
        self.assertEqual(percent_of_limit.share_cell(87.0, "BW", 100 * 1000 * 1000, l2), "87% BW")
        self.assertEqual(percent_of_limit.share_cell(87.0, "BW", 8 * 1000 * 1000, l2), "partly in cache")
        # Above the bandwidth it is in cache, whatever the sizes; a compute-bound share is not the cache's.
        self.assertEqual(percent_of_limit.share_cell(140.0, "BW", 8 * 1000 * 1000, l2), "in cache")
        self.assertEqual(percent_of_limit.share_cell(41.0, "FP32", 8 * 1000 * 1000, l2), "41% FP32")
        # Unknown sizes (rows and peaks from before the cache was recorded): the share as before.
        self.assertEqual(percent_of_limit.share_cell(87.0, "BW", None, l2), "87% BW")
        self.assertEqual(percent_of_limit.share_cell(87.0, "BW", 8 * 1000 * 1000, None), "87% BW")
        self.assertEqual(percent_of_limit.share_cell(87.0, "BW", "", "0"), "87% BW")

    def test_rows_record_their_working_set_and_the_cache_they_were_judged_against(self):
        peak = dict(PEAK, global_mem_cache_bytes=600 * 1000 * 1000)
        fields = percent_of_limit.limit_fields(record("Fake GPU", 1e6, 2e9, 1e9), peak)
        self.assertEqual((fields["working_set_bytes"], fields["peak_cache_bytes"]), ("1000000000", "600000000"))
        self.assertEqual(percent_of_limit.limit_cell(dict(fields, status="ok")), "partly in cache")
        peak = dict(PEAK, global_mem_cache_bytes=500 * 1000 * 1000)  # 1 GB is twice 500 MB: claimed
        self.assertEqual(percent_of_limit.limit_cell(dict(percent_of_limit.limit_fields(
            record("Fake GPU", 1e6, 2e9, 1e9), peak), status="ok")), "50% BW")

    def test_no_committed_table_shows_a_share_above_the_limit(self):
        for path in glob.glob(os.path.join(os.path.dirname(SCRIPTS), "results", "*", "tables.md")):
            with open(path) as f:
                shares = [float(p) for p in re.findall(r"\| (\d+(?:\.\d+)?)% (?:BW|FP32) \|", f.read())]
            self.assertTrue(all(share <= 100 for share in shares), path)


FAKE_PEER = """#!/usr/bin/env python3
import json, sys
a = sys.argv
median = 1e6
record = {"peer": "%(peer)s", "device": "%(device)s", "flops": 2.0 * 1024 * 1024, "bytes": 4.0 * (1024 * 1024 + 2048),
          "steady_time_ns": {"median": median, "min": median, "max": median, "stddev": 0},
          "steady": {"calls_per_sample": 100, "samples": 5, "ci_met": True, "includes": "fake"},
          "device_time_ns": {"median": 2 * median, "min": median, "max": median, "stddev": 0},
          "call_time_ns": {"median": median, "min": median, "max": median, "stddev": 0}, "runs": 5, "ci_met": True,
          "validation": {"passed": True, "max_abs_error": 0, "max_rel_error": 0},
          "time_includes": {"device": "fake", "call": "fake"}}
json.dump(record, open(a[a.index("--json") + 1], "w"))
"""

FAKE_DEVICE_PEAK = """#!/usr/bin/env python3
import json, os, sys
a = sys.argv
if os.environ.get("FAKE_PEAK_FAILS"):
    sys.exit(1)
peak = json.loads(%r)
if os.environ.get("FAKE_PEAK_CACHE_BYTES"):
    peak["global_mem_cache_bytes"] = int(os.environ["FAKE_PEAK_CACHE_BYTES"])
json.dump(peak, open(a[a.index("--json") + 1], "w"))
""" % json.dumps(PEAK)


class BenchmarkAndPrint(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        root = self.tmp.name
        bin_dir = os.path.join(root, "bin")
        os.makedirs(bin_dir)
        programs = {"mdh": fake_programs.FAKE_MDH, "device_peak": FAKE_DEVICE_PEAK,
                    "peer_mdh": FAKE_PEER % {"peer": "mdh-default", "device": "Fake GPU"},
                    "peer_openblas": FAKE_PEER % {"peer": "openblas", "device": "host CPU (2 OpenBLAS threads)"}}
        fake_programs.write_programs(bin_dir, programs)
        self.experiments = os.path.join(root, "experiments.json")
        with open(self.experiments, "w") as f:
            json.dump({"routines": [{"name": "gemv", "spec": "apps/gemv.mdh", "peers": ["openblas"],
                                     "sizes": [{"label": "PC", "size": "I=1024,K=1024"}]}]}, f)
        self.saved = (experiments.ROOT, os.environ.get("MDH_BIN"))
        experiments.ROOT = root
        os.environ["MDH_BIN"] = bin_dir
        self.folder = os.path.join(root, "results", "fake-gpu")

    def tearDown(self):
        experiments.ROOT = self.saved[0]
        if self.saved[1] is None:
            del os.environ["MDH_BIN"]
        else:
            os.environ["MDH_BIN"] = self.saved[1]
        os.environ.pop("FAKE_PEAK_FAILS", None)
        os.environ.pop("FAKE_PEAK_CACHE_BYTES", None)
        self.tmp.cleanup()

    def options(self, command):
        return fake_programs.benchmark_options(self.tmp.name, self.experiments, command)

    def rows(self):
        with open(os.path.join(self.folder, "benchmark.csv")) as f:
            return {row["peer"]: row for row in csv.DictReader(f)}

    def test_rows_and_table_carry_the_share_of_the_limit_measured_in_the_same_run(self):
        experiments.benchmark(self.options("benchmark"))
        self.assertTrue(os.path.exists(os.path.join(self.folder, "records", "device_peak.json")))
        rows = self.rows()
        # GEMV 1024^2 in 1 ms: 2.1 GFLOP/s, 4.2 GB/s: 0.21% of the 2,000 GB/s copy bandwidth.
        ours = rows["mdh-default"]
        self.assertEqual((ours["gbytes_per_s"], ours["percent_of_limit"], ours["limit"]), ("4.20", "0.2", "BW"))
        self.assertEqual((ours["peak_fp32_gflops"], ours["peak_copy_gbytes_per_s"]), ("10000.0", "2000.0"))
        self.assertEqual(rows["openblas"]["percent_of_limit"], "")  # the host CPU, not the fake GPU
        with open(os.path.join(self.folder, "benchmark.json")) as f:
            self.assertEqual(json.load(f)["runs"][0]["device_peak"]["copy_gbytes_per_s"], 2000.0)

        experiments.print_results(self.options("print"))
        with open(os.path.join(self.folder, "tables.md")) as f:
            tables = f.read()
        self.assertIn("| mdh | % of limit | tuning | default | peer | peer time | speedup | peer % of limit |", tables)
        self.assertIn("| gemv | PC | I=1024,K=1024 | fp32 | 1.0000 | 0.2% BW | none (default configuration) | – | "
                      "openblas | 1.0000 | 1.00 | N/A |", tables)

    def test_a_working_set_below_twice_the_cache_reads_partly_in_cache_in_the_table(self):
        # GEMV 1024^2 moves 4.2 MB; a device with 4 MB of global-memory cache.
        os.environ["FAKE_PEAK_CACHE_BYTES"] = str(4 * 1000 * 1000)
        experiments.benchmark(self.options("benchmark"))
        ours = self.rows()["mdh-default"]
        self.assertEqual((ours["working_set_bytes"], ours["peak_cache_bytes"]), ("4202496", "4000000"))
        with open(os.path.join(self.folder, "benchmark.json")) as f:
            self.assertEqual(json.load(f)["runs"][0]["device_peak"]["global_mem_cache_bytes"], 4000000)
        experiments.print_results(self.options("print"))
        with open(os.path.join(self.folder, "tables.md")) as f:
            tables = f.read()
        self.assertIn("| gemv | PC | I=1024,K=1024 | fp32 | 1.0000 | partly in cache | none (default configuration) | "
                      "– | openblas | 1.0000 | 1.00 | N/A |", tables)
        self.assertIn("'partly in cache' for a bandwidth share whose working set is less than twice the device's "
                      "global-memory cache", tables)

    def test_without_a_peak_the_rows_say_so_and_keep_their_other_columns(self):
        os.environ["FAKE_PEAK_FAILS"] = "1"
        experiments.benchmark(self.options("benchmark"))
        ours = self.rows()["mdh-default"]
        self.assertEqual((ours["status"], ours["gbytes_per_s"], ours["percent_of_limit"]), ("ok", "4.20", ""))
        with open(os.path.join(self.folder, "benchmark.json")) as f:
            self.assertIn("not measured", json.load(f)["runs"][0]["device_peak"])


if __name__ == "__main__":
    unittest.main()
