#!/usr/bin/env bash
# scripts/tune.sh [--device D] [--experiments FILE] [--results DIR] [--tuned DIR] [--only ROUTINE[:LABEL]]... [--budget-scale F] [--skip-peer-tuning] [--in-process]
# See scripts/experiments.py for what it writes under TUNED/<device-slug>/ (--tuned, default tuned/).
set -euo pipefail
exec python3 "$(dirname "$0")/experiments.py" tune "$@"
