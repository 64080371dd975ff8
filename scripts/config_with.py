#!/usr/bin/env python3
"""config_with.py SRC DST NAME=VALUE...: the configuration of SRC (a config, or an `mdh tune` result holding one) with
the given parameters set, written to DST (`mdh run --config DST`): with SRC's spec and sizes where SRC names them (a
tuning result), else as a bare config. Values that are integers are
written as integers, lists as JSON (orders: BUF_ORDER_P_TA=[1,2,3,0], LOOP_ORDER_L='["g","c"]'), others as strings
(enumeration labels: WG_COMBINE=last). For device-call scripts that time variants of a committed configuration."""
import json
import sys

if len(sys.argv) < 3:
    sys.exit(__doc__)
with open(sys.argv[1]) as f:
    document = json.load(f)
config = document.get("config", document)
for assignment in sys.argv[3:]:
    name, _, value = assignment.partition("=")
    if not name or not value:
        sys.exit("config_with.py: expected NAME=VALUE, got '%s'" % assignment)
    if value.startswith("["):
        config[name] = json.loads(value)
    else:
        config[name] = int(value) if value.lstrip("-").isdigit() else value
# A source that says what it is for (a tuning result: "spec" and "sizes") passes that on, so that the variant is a
# committed configuration as tests/integration/committed_results_test.cpp requires; `mdh run --config` reads both.
if isinstance(document, dict) and "spec" in document and "sizes" in document and "config" in document:
    config = {"spec": document["spec"], "sizes": document["sizes"],
              "note": "config_with.py: " + " ".join(sys.argv[3:]), "config": config}
with open(sys.argv[2], "w") as f:
    json.dump(config, f)
