"""The "% of limit" of a benchmark row: how close a measured call comes to the hardware of the device it ran on.

The limits are measured in the same benchmark run by build/bin/device_peak (peers/device_peak.cpp): the device's
FP32 multiply-add throughput and its copy bandwidth. A row's achieved GFLOP/s and GB/s follow from the spec's
`flops` and `bytes` (each buffer moved once) and its headline time (the steady instrument's median,
peers/steady_measurement.h); its share of the limit is the larger of
the two ratios, named by the limit it is closer to: "73% BW" or "41% FP32". A row computed in TF32 (its record's
`precision`) is judged by the bandwidth only: device_peak measures no tensor-core peak, and the FP32 one is not
its limit. So is a row of half or bfloat16 inputs (its record's `input_type`), which cuBLAS multiplies on the tensor
cores in either precision. A bandwidth share is claimed only for a working set at least twice the device's
global-memory cache (device_peak records CL_DEVICE_GLOBAL_MEM_CACHE_SIZE): below that, part of it stays in the cache
between the calls timed back to back. Standard library only, like experiments.py, which calls these functions.
"""
import json
import os

# Records' input_type of half and bfloat16 inputs.
TWO_BYTE_INPUTS = ("fp16", "bf16")
PEAK_RECORD = "device_peak.json"  # in results/<device>/records/, beside the rows' own records

# Columns this adds to benchmark.csv. Each row keeps the limits it was judged against, so rows from earlier runs
# (another --only) stay judged against the peak of their own run.
CSV_FIELDS = ["gbytes_per_s", "peak_fp32_gflops", "peak_copy_gbytes_per_s", "percent_of_limit", "limit",
              "working_set_bytes", "peak_cache_bytes"]


def measure_peak(program_path, device, records_folder, run, timeout=None):
    """Runs device_peak once on `device`; returns its record, or None (with a warning) where it is missing or failed.

    `run(command, log, timeout)` is experiments.py's runner (returns the exit status)."""
    path = os.path.join(records_folder, PEAK_RECORD)
    if os.path.exists(path):
        os.remove(path)  # never judge this run against an earlier run's limits
    if not program_path:
        print("warning: device_peak not found: the rows get no % of limit", flush=True)
        return None
    with open(path + ".log", "w") as log:
        # No `--device ''` for the default device (commands are printed, and shown to users as they ran).
        code = run([program_path] + (["--device", device] if device else []) + ["--json", path], log, timeout)
    if code != 0 or not os.path.exists(path):
        print("warning: device_peak failed (exit %s; see %s.log): the rows get no %% of limit" % (code, path),
              flush=True)
        return None
    with open(path) as f:
        peak = json.load(f)
    print("  device peak: %.1f GFLOP/s FP32, %.1f GB/s copy" % (peak["fp32_gflops"], peak["copy_gbytes_per_s"]),
          flush=True)
    return peak


def same_hardware(record_device, peak):
    """Whether a row computed where the limits were measured: the OpenCL device itself (mdh, CLBlast, the CUDA
    peers name the GPU as OpenCL does), or, when that device is a CPU, the host-CPU libraries (OpenBLAS, Eigen,
    threaded C++) on the same processor."""
    if record_device == peak.get("device"):
        return True
    return peak.get("device_type") == "CPU" and str(record_device).startswith(("CPU, ", "host CPU"))


def limit_fields(record, peak):
    """The CSV_FIELDS of one row from its measurement record and the run's device_peak record (either may be None)."""
    fields = {}
    median = ((record or {}).get("steady_time_ns") or {}).get("median")
    if not record or not median:
        return fields
    flops, nbytes = record.get("flops"), record.get("bytes")
    if nbytes:
        fields["gbytes_per_s"] = "%.2f" % (float(nbytes) / float(median))
    if not peak or not same_hardware(record.get("device"), peak):
        return fields
    fields["peak_fp32_gflops"] = "%.1f" % peak["fp32_gflops"]
    fields["peak_copy_gbytes_per_s"] = "%.1f" % peak["copy_gbytes_per_s"]
    shares = []
    if flops and record.get("precision", "fp32") == "fp32" and record.get("input_type") not in TWO_BYTE_INPUTS:
        shares.append((float(flops) / float(median) / peak["fp32_gflops"], "FP32"))
    if nbytes:
        shares.append((float(nbytes) / float(median) / peak["copy_gbytes_per_s"], "BW"))
    if shares:
        share, limit = max(shares)
        fields["percent_of_limit"] = "%.1f" % (100 * share)
        fields["limit"] = limit
    if nbytes:
        fields["working_set_bytes"] = "%d" % int(float(nbytes))
    if peak.get("global_mem_cache_bytes"):
        fields["peak_cache_bytes"] = "%d" % int(peak["global_mem_cache_bytes"])
    return fields


# What a share of the copy bandwidth above 100% is written as: such a row's input stayed in a cache between the
# calls it was timed over (a small working set), so its share says nothing about the memory it was judged against.
IN_CACHE = "in cache"
# What a share of the copy bandwidth is written as when the working set is smaller than twice the device's cache:
# part of it may be served from the cache, so the share is not one of the memory's bandwidth alone.
PARTLY_IN_CACHE = "partly in cache"


def share_cell(percent, limit, working_set_bytes=None, cache_bytes=None):
    """A share of the limit as tables show it: "73% BW", "7.5% FP32"; IN_CACHE above 100% of the copy bandwidth,
    PARTLY_IN_CACHE for a bandwidth share whose working set is below twice the cache (both known), and "above FP32
    peak" where a row claims more than device_peak's FMA throughput (flops counted wrongly)."""
    if percent > 100:
        return IN_CACHE if limit == "BW" else "above %s peak" % limit
    if limit == "BW" and working_set_bytes and cache_bytes and float(working_set_bytes) < 2 * float(cache_bytes):
        return PARTLY_IN_CACHE
    return ("%.0f%% %s" if percent >= 10 else "%.1f%% %s") % (percent, limit)


def row_share_cell(row_percent, row):
    """share_cell of a benchmark.csv row's share, with the working set and cache the row recorded (older rows: none)."""
    return share_cell(row_percent, row.get("limit", ""), row.get("working_set_bytes"), row.get("peak_cache_bytes"))


def limit_cell(row):
    """The table cell of one benchmark.csv row (share_cell), or "N/A" where the row has no limit."""
    if row.get("status") != "ok" or not row.get("percent_of_limit"):
        return "N/A"
    return row_share_cell(float(row["percent_of_limit"]), row)


def limit_cells(rows):
    """(routine, label, peer) -> limit_cell, for the rows of one device."""
    return {(row["routine"], row["label"], row["peer"]): limit_cell(row) for row in rows}


def peak_metadata(peak):
    """What benchmark.json says about the limits of this run."""
    if not peak:
        return {"device_peak": "not measured (device_peak missing or failed): no % of limit"}
    return {"device_peak": {key: peak.get(key) for key in
                            ("device", "driver", "fp32_gflops", "copy_gbytes_per_s", "global_mem_cache_bytes", "quick",
                             "passed")}}
