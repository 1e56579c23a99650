#!/usr/bin/env bash
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" chain_dynamics "$@"  # kept: results/chain_dynamics*.md name this script
