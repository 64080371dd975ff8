#!/usr/bin/env python3
"""Adds the md_hom signature (mdh/signature.h) to tuning results written before results recorded it, where git proves
that the spec they were tuned with declares the same md_hom as the spec of today.

    scripts/sign_tuned_results.py [--mdh build/bin/mdh] [--dry-run] RESULT.json...

A result records the FNV-1a hash of its spec file's bytes (spec_hash) and the spec's path. For each result without a
signature, the script looks through the git history of that spec (apps/... under this checkout) for the version whose
bytes have that hash, computes that version's signature with `mdh check`, and adds it when it equals the signature of
today's spec: the result was tuned for the same md_hom, only comments or the flops/bytes lines changed since. Anything
else (no version with that hash, a version that no longer parses, another md_hom) is left as it is and reported; the
tuned-configuration store then does not use that result for today's spec. Files are rewritten as `mdh tune` writes
them (sorted keys, two-space indent), so the only change is the added key.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fnv1a_64_hex(data):
    h = 1469598103934665603
    for byte in data:
        h = ((h ^ byte) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def signature(mdh, spec_bytes):
    with tempfile.NamedTemporaryFile(suffix=".mdh") as spec:
        spec.write(spec_bytes)
        spec.flush()
        out = subprocess.run([mdh, "check", spec.name], capture_output=True, text=True)
    found = re.search(r"^  signature: ([0-9a-f]{16})$", out.stdout, re.M)
    return found.group(1) if found else None


def versions(relative_spec):
    """The bytes of every committed version of a spec file, newest first."""
    commits = subprocess.run(["git", "-C", ROOT, "log", "--format=%H", "--", relative_spec], capture_output=True,
                             text=True, check=True).stdout.split()
    for commit in commits:
        shown = subprocess.run(["git", "-C", ROOT, "show", "%s:%s" % (commit, relative_spec)], capture_output=True)
        if shown.returncode == 0:
            yield commit, shown.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mdh", default=os.path.join(ROOT, "build", "bin", "mdh"))
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("results", nargs="+")
    options = parser.parse_args()
    status = 0
    for path in options.results:
        with open(path) as f:
            result = json.load(f)
        if not isinstance(result, dict) or "config" not in result or "md_hom_signature" in result:
            continue
        spec = result.get("spec", "")
        relative = spec[spec.find("apps/"):] if "apps/" in spec else spec
        if not os.path.exists(os.path.join(ROOT, relative)):
            print("%s: its spec %s is not in this checkout; left unsigned" % (path, spec))
            continue
        with open(os.path.join(ROOT, relative), "rb") as f:
            today = signature(options.mdh, f.read())
        match = next(((c, data) for c, data in versions(relative) if fnv1a_64_hex(data) == result.get("spec_hash")),
                     None)
        if not match:
            print("%s: no committed version of %s has spec hash %s; left unsigned" % (path, relative,
                                                                                     result.get("spec_hash")))
            continue
        then = signature(options.mdh, match[1])
        if then != today:
            print("%s: tuned with %s of %s, signature %s, today %s: another md_hom; left unsigned" %
                  (path, match[0][:10], relative, then, today))
            continue
        print("%s: tuned with %s of %s, the same md_hom as today (%s)%s" %
              (path, match[0][:10], relative, today, "" if options.dry_run else "; signed"))
        if not options.dry_run:
            result["md_hom_signature"] = today
            with open(path, "w") as f:
                f.write(json.dumps(result, indent=2, sort_keys=True) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
