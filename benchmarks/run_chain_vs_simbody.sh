#!/usr/bin/env bash
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" chain_vs_simbody "$@"  # kept: results/chain_vs_simbody*.md name this script
