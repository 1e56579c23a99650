#!/usr/bin/env bash
# The benchmark runner: `benchmarks/run.sh NAME [ARGS...]` builds what study NAME needs (Release,
# -j2; BUILD_DIR=... chooses the build directory), stamps the run (UTC start, git revision,
# machine, load), runs it with ARGS and writes benchmarks/results/NAME.md, with its CSV and plots
# where the study has them. benchmarks/studies/NAME.sh defines the study: its header says what it
# measures, which ARGS and variables it takes and how long it runs; its function `study` runs it.
#
#   benchmarks/run.sh                             # lists the studies
#   benchmarks/run.sh chain_convergence           # runs one (here: a few seconds)
#   benchmarks/run.sh NAME --help                 # the study's header, nothing run
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."  # the repository root; paths below are relative to it
source benchmarks/common.sh

if [ $# -eq 0 ] || [ ! -f "benchmarks/studies/$1.sh" ]; then
  {
    echo "usage: benchmarks/run.sh NAME [ARGS...]; NAME is one of:"
    for s in benchmarks/studies/*.sh; do echo "  $(basename "$s" .sh): $(sed -n '1s/^# //p' "$s")"; done
  } >&2
  case "${1:-}" in --help | -h) exit 0 ;; *) exit 2 ;; esac
fi
name="$1"
shift
for a in "$@"; do
  if [ "$a" = --help ] || [ "$a" = -h ]; then
    sed -n '/^#/!q; s/^# \{0,1\}//p' "benchmarks/studies/$name.sh"
    exit 0
  fi
done

results=benchmarks/results
mkdir -p "$results"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# How the results files name this run: the arguments quoted where a shell needs it.
command="benchmarks/run.sh $name"
for a in "$@"; do
  if [[ "$a" =~ ^[A-Za-z0-9_.,:=/+-]+$ ]]; then
    command+=" $a"
  else
    command+=" '${a//\'/\'\\\'\'}'"
  fi
done

source "benchmarks/studies/$name.sh"
study "$@"
