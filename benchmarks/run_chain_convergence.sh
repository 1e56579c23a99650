#!/usr/bin/env bash
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" chain_convergence "$@"  # kept: results/chain_convergence*.md name this script
