"""Fake programs for the experiment driver's tests: scripts that stand in for mdh, the peers and device_peak."""
import os
import stat


def write_programs(bin_dir, programs):
    """Writes each {name: script text} into bin_dir as an executable file."""
    for name, text in programs.items():
        path = os.path.join(bin_dir, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


# `mdh devices` of a machine with one fake GPU, slug fake-gpu: the listing, --slug and --selector; `mdh --version`.
FAKE_MDH = """#!/usr/bin/env python3
import sys
LISTING = '''Platform 0: Fake Platform (OpenCL 3.0 Fake 1.2)
  0:0  Fake GPU  [GPU, default]
       vendor Fake; OpenCL 3.0 Fake; driver 1.0; OpenCL C 1.2
       compute units 4, max clock 1000 MHz
default: 0:0'''
if sys.argv[1:3] == ["devices", "--slug"]:
    print("fake-gpu")
elif sys.argv[1:3] == ["devices", "--selector"]:
    print("0:0")
elif sys.argv[1:2] == ["--version"]:
    print("mdh " + "e" * 40)
else:
    print(LISTING)
"""


def benchmark_options(test_root, experiments_file, command="benchmark", **overrides):
    """experiments.py's options for a benchmark or print in `test_root` (results/ and tuned/ under it)."""
    import argparse
    options = argparse.Namespace(command=command, device="gpu", device_given=True, experiments=experiments_file,
                                 only=[], portability=False, run_timeout=None, run_id=None, merge=False, replace=False,
                                 results=os.path.join(test_root, "results"), tuned=os.path.join(test_root, "tuned"))
    for key, value in overrides.items():
        setattr(options, key, value)
    return options
