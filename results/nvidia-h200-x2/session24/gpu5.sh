#!/usr/bin/env bash
# Issue 16, second call (pinned ranks): gpu4.sh again, 80 s per phase, with an mdh whose unbound ranks keep to their
# share of the host (pipeline/host_share.h), so that phase C is pinned; logs.txt then shows each rank's pinning note.
# Carry and start as gpu4.sh says.
S=${S:-80} exec bash "$(dirname "${BASH_SOURCE[0]}")/gpu4.sh"
