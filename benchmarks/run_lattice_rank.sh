#!/usr/bin/env bash
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" lattice_rank "$@"  # kept: results/lattice_rank*.md name this script
