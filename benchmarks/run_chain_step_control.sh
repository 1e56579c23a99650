#!/usr/bin/env bash
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" chain_step_control "$@"  # kept: results/chain_step_control*.md name this script
