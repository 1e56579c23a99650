#!/usr/bin/env bash
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" chain_statics_modal "$@"  # kept: results/chain_statics_modal*.md name this script
