#!/usr/bin/env bash
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" chain_statics_large "$@"  # kept: results/chain_statics_large*.md name this script
