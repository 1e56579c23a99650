#!/usr/bin/env bash
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" mcs_continuation "$@"  # kept: results/mcs_continuation*.md name this script
