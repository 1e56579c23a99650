#!/usr/bin/env bash
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" assembly_refill "$@"  # kept: results/assembly_refill*.md name this script
