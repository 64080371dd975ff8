#!/usr/bin/env python3
"""The tuning behind each row of tables.md (scripts/experiments.py, tuning_cells): evaluations and seconds from the
journal beside the tuned configuration, and the default configuration's time where the run started from it."""
import gzip
import json
import os
import sys
import tempfile
import unittest

SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scripts")
sys.path.insert(0, SCRIPTS)
import experiments  # noqa: E402


def write_journal(folder, name, metadata, records, torn_tail=False):
    with open(os.path.join(folder, name + ".json.journal"), "w") as f:
        f.write(json.dumps({"mdh_tuner_journal": 1, "metadata": metadata}) + "\n")
        for r in records:
            f.write(json.dumps(r) + "\n")
        if torn_tail:
            f.write('{"evaluation": 9, "config": {')


def record(evaluation, status, cost, elapsed):
    return {"evaluation": evaluation, "config": {}, "status": status, "cost": cost, "reason": "", "start": 0,
            "end": 0, "elapsed": elapsed}


class TuningCells(unittest.TestCase):
    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = folder.name

    def test_evaluations_seconds_and_the_default_from_a_run_that_started_from_it(self):
        write_journal(self.folder, "gemm-RW", {"default_start": True},
                      [record(1, "ok", 0.00025, 1.5), record(2, "timeout", None, 12.0), record(3, "ok", 0.0001, 1234.4)],
                      torn_tail=True)
        self.assertEqual(experiments.tuning_cells(self.folder, "gemm", "RW", "mdh"),
                         ("3 evaluations, 1234 s; search's best 0.1000", "0.2500 (search)"))

    def test_a_run_without_the_default_start_says_so(self):
        write_journal(self.folder, "dot-RW", {}, [record(1, "ok", 0.001, 3.0)])
        self.assertEqual(experiments.tuning_cells(self.folder, "dot", "RW", "mdh"),
                         ("1 evaluation, 3 s; search's best 1.0000", "N/A (not started from it)"))
        write_journal(self.folder, "dot-PC", {"default_start": True}, [record(1, "build_error", None, 3.0)])
        self.assertEqual(experiments.tuning_cells(self.folder, "dot", "PC", "mdh"),
                         ("1 evaluation, 3 s", "N/A (build_error)"))

    def test_a_gzipped_journal_counts_as_the_journal(self):
        write_journal(self.folder, "tc-RW", {"default_start": True}, [record(1, "ok", 0.0002, 0.5),
                                                                       record(2, "ok", 0.0001, 1800.2)])
        path = os.path.join(self.folder, "tc-RW.json.journal")
        with open(path, "rb") as plain, gzip.open(path + ".gz", "wb") as packed:
            packed.write(plain.read())
        os.remove(path)
        self.assertEqual(experiments.tuning_cells(self.folder, "tc", "RW", "mdh"),
                         ("2 evaluations, 1800 s; search's best 0.1000", "0.2000 (search)"))

    def test_no_journal_and_the_default_configuration_itself(self):
        self.assertEqual(experiments.tuning_cells(self.folder, "gemv", "RW", "mdh"), ("–", "–"))
        self.assertEqual(experiments.tuning_cells(self.folder, "gemv", "RW", "mdh-default"),
                         ("none (default configuration)", "–"))

    def test_the_table_has_the_columns(self):
        write_journal(self.folder, "gemm-RW", {"default_start": True}, [record(1, "ok", 0.002, 2.0)])
        case = {"routine": "gemm", "label": "RW", "sizes": "I=1", "precision": "fp32", "ours": "mdh",
                "ours_ms": "1.0000", "peers": [("cublas", "0.5000", "0.50")], "unavailable": [], "percent": []}
        text = experiments.tables_text(self.folder, self.folder, [case], {})
        self.assertIn("| mdh | % of limit | tuning | default | peer |", text)
        self.assertIn("| gemm | RW | I=1 | fp32 | 1.0000 | N/A | 1 evaluation, 2 s; search's best 2.0000 | "
                      "2.0000 (search) | cublas | 0.5000 | 0.50 | N/A |", text)

    def test_the_default_measured_in_the_same_run_is_its_column_not_a_peer(self):
        write_journal(self.folder, "gemm-RW", {"default_start": True}, [record(1, "ok", 0.002, 2.0)])

        def row(peer, median_ns):
            return {"routine": "gemm", "label": "RW", "sizes": "I=1", "peer": peer, "status": "ok",
                    "device_time_median_ns": median_ns}
        cases = experiments.table([row("mdh", "1000000"), row("mdh-default", "3000000"), row("cublas", "500000")])
        self.assertEqual(cases[0]["ours"], "mdh")
        self.assertEqual(cases[0]["default_ms"], "3.0000")
        self.assertEqual([peer for peer, _, _ in cases[0]["peers"]], ["cublas"])
        text = experiments.tables_text(self.folder, self.folder, cases, {})
        self.assertIn("| gemm | RW | I=1 | fp32 | 1.0000 | N/A | 1 evaluation, 2 s; search's best 2.0000 | 3.0000 | "
                      "cublas | 0.5000 | 0.50 | N/A |", text)
        # Without a tuned configuration the default is mdh's row itself.
        cases = experiments.table([row("mdh-default", "3000000"), row("cublas", "500000")])
        self.assertEqual((cases[0]["ours"], cases[0].get("default_ms")), ("mdh-default", None))

    def test_a_run_whose_best_was_its_default_start_says_so(self):
        write_journal(self.folder, "mcc-RW", {"default_start": True},
                      [record(1, "ok", 0.002, 1.0), record(2, "ok", 0.003, 2.0), record(3, "timeout", None, 3.0)])
        committed = os.path.join(self.folder, "mcc-RW.json")
        with open(committed, "w") as f:
            json.dump({"kernel_time_ns": 2000000.0}, f)
        self.assertEqual(experiments.tuning_cells(self.folder, "mcc", "RW", "mdh"),
                         ("3 evaluations, 3 s; search's best 2.0000", "2.0000 (search; same configuration)"))
        # A committed result of another run (another time) is not this journal's best.
        with open(committed, "w") as f:
            json.dump({"kernel_time_ns": 1500000.0}, f)
        self.assertEqual(experiments.tuning_cells(self.folder, "mcc", "RW", "mdh")[1], "2.0000 (search)")
        # With a final timing, the finalist it chose says whose configuration was committed.
        with open(committed, "w") as f:
            json.dump({"final_timing": {"chosen": 1, "finalists": [{"role": "search"}, {"role": "default"}]}}, f)
        self.assertEqual(experiments.tuning_cells(self.folder, "mcc", "RW", "mdh")[1],
                         "2.0000 (search; same configuration)")
        with open(committed, "w") as f:
            json.dump({"final_timing": {"chosen": 0, "finalists": [{"role": "search"}, {"role": "default"}]}}, f)
        self.assertEqual(experiments.tuning_cells(self.folder, "mcc", "RW", "mdh")[1], "2.0000 (search)")
        # An evaluation that beat the first: the search's configuration.
        write_journal(self.folder, "mcc-RW", {"default_start": True},
                      [record(1, "ok", 0.002, 1.0), record(2, "ok", 0.001, 2.0)])
        with open(committed, "w") as f:
            json.dump({"kernel_time_ns": 1000000.0}, f)
        self.assertEqual(experiments.tuning_cells(self.folder, "mcc", "RW", "mdh")[1], "2.0000 (search)")

    def test_a_tuned_configuration_that_is_the_default_says_so(self):
        os.mkdir(os.path.join(self.folder, "records"))

        def write_record(peer, values):
            with open(os.path.join(self.folder, "records", "prl-RW-%s.json" % peer), "w") as f:
                json.dump({"peer": peer, "notes": {"config_values": values}}, f)

        def row(peer, median_ns):
            return {"routine": "prl", "label": "RW", "sizes": "N=1", "peer": peer, "status": "ok",
                    "device_time_median_ns": median_ns}
        cases = experiments.table([row("mdh", "227900000"), row("mdh-default", "214000000")])
        write_record("mdh", {"NUM_WI_i": 1, "PT_SIZE_i": 1})
        write_record("mdh-default", {"NUM_WI_i": 1, "PT_SIZE_i": 1})
        self.assertIn("| prl | RW | N=1 | fp32 | 227.9000 | N/A | – | 214.0000 (same configuration) | – |",
                      experiments.tables_text(self.folder, self.folder, cases, {}))
        write_record("mdh-default", {"NUM_WI_i": 2, "PT_SIZE_i": 1})
        self.assertIn("| prl | RW | N=1 | fp32 | 227.9000 | N/A | – | 214.0000 | – |",
                      experiments.tables_text(self.folder, self.folder, cases, {}))
        os.remove(os.path.join(self.folder, "records", "prl-RW-mdh.json"))
        self.assertIn("| 214.0000 | – |", experiments.tables_text(self.folder, self.folder, cases, {}))

    def test_one_configuration_timed_twice_beyond_the_noise_shows_both_and_its_speedups_as_a_range(self):
        os.mkdir(os.path.join(self.folder, "records"))
        for peer in ("mdh", "mdh-default"):
            with open(os.path.join(self.folder, "records", "gemm-RW-%s.json" % peer), "w") as f:
                json.dump({"peer": peer, "notes": {"config_values": {"NUM_WI_i": 1}}}, f)

        def row(peer, low, median, high):
            return {"routine": "gemm", "label": "RW", "sizes": "I=1", "peer": peer, "status": "ok",
                    "steady_time_min_ns": low, "steady_time_median_ns": median, "steady_time_max_ns": high}
        rows = [row("mdh", "19000", "19500", "20000"), row("mdh-default", "45000", "45800", "46000"),
                row("cublas", "38000", "39000", "40000")]
        case = experiments.table(rows, self.folder)[0]
        self.assertEqual(case["ours_ms"], "0.0195 or 0.0458 (one configuration timed twice, beyond the noise)")
        self.assertEqual(case["peers"], [("cublas", "0.0390", "0.85 to 2.00")])
        self.assertEqual([(label, value) for label, value, _ in experiments.speedup_bars([case])],
                         [("gemm I=1 vs cublas (mdh's slower timing)", 0.85),
                          ("gemm I=1 vs cublas (mdh's faster timing)", 2.0)])
        # Within the noise (overlapping ranges) the tuned row is mdh's time, as always.
        rows[1] = row("mdh-default", "19800", "20500", "21000")
        case = experiments.table(rows, self.folder)[0]
        self.assertEqual((case["ours_ms"], case["peers"]), ("0.0195", [("cublas", "0.0390", "2.00")]))
        # Without the records saying it is one configuration, two timings of two configurations.
        rows[1] = row("mdh-default", "45000", "45800", "46000")
        self.assertEqual(experiments.table(rows)[0]["ours_ms"], "0.0195")

    def test_the_tuning_plot_names_the_search_best_and_the_final_timing(self):
        result = os.path.join(self.folder, "gemm-RW.json")
        with open(result, "w") as f:
            json.dump({"final_timing": {"chosen": 1, "finalists": [{"final_ns": 1200000.0, "search_ns": 400000.0},
                                                                   {"final_ns": 1138000.0, "search_ns": 364000.0}]}},
                      f)
        self.assertEqual(experiments.final_timing_text(result), "; final timing 1.1380 ms")
        with open(result, "w") as f:
            json.dump({"kernel_time_ns": 364000.0}, f)
        self.assertEqual(experiments.final_timing_text(result), "")

    def test_no_portability_rows_replace_an_older_portability_table(self):
        with open(os.path.join(self.folder, "portability.md"), "w") as f:
            f.write("| nvidia-h100 | 1.00 |\n")
        experiments.print_portability(self.folder)
        with open(os.path.join(self.folder, "portability.md")) as f:
            text = f.read()
        self.assertNotIn("nvidia-h100", text)
        self.assertIn("No device's benchmark.csv holds a portability run", text)


if __name__ == "__main__":
    unittest.main()
