#!/usr/bin/env bash
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" merged_lattice_dynamics "$@"  # kept: results/merged_lattice_dynamics.md names this script
