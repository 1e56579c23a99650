#!/usr/bin/env bash
# Quick start on a fresh Debian 12 machine: install what is missing, build (Release), and run the
# main job on the default input. Usage: scripts/quickstart.sh [INPUT.yaml]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/deps.sh
catena_install_deps

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j"$jobs" --target catena_cli

input=${1:-inputs/anchor_chain.yaml}
echo
echo "[catena] main job: catena check $input"
echo
build/bin/catena check "$input"
