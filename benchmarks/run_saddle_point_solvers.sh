#!/usr/bin/env bash
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" saddle_point_solvers "$@"  # kept: results/saddle_point_solvers*.md name this script
