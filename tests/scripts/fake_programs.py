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
