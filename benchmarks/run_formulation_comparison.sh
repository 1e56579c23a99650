#!/usr/bin/env bash
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" formulation_comparison "$@"  # kept: results/formulation_comparison*.md name this script
