#!/usr/bin/env bash
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" mcs_figures "$@"  # kept: results/mcs_figures*.md name this script
