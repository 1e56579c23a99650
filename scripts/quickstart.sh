#!/usr/bin/env bash
# Quick start on a fresh Debian 12 machine: install what is missing, build (Release), and run the
# main job on the default input: the anchor-chain study (static equilibrium from the 'V' shape
# with the tangent stiffness of constraints, sag, support reactions, the first four modes).
# Usage: scripts/quickstart.sh [INPUT.yaml [catena options]]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/deps.sh
catena_install_deps

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCATENA_UNITY_BUILD=ON > /dev/null
cmake --build build -j"$jobs" --target catena_cli catena_python
# `import catena` for Debian's python3 from anywhere: a .pth file in the user's site-packages
# names build/python (docs/python.md), so a rebuild is picked up without reinstalling.
site=$(/usr/bin/python3 -m site --user-site)
mkdir -p "$site"
echo "$root/build/python" > "$site/catena.pth"
echo "[catena] Python module: $root/build/python (listed in $site/catena.pth)"

input=${1:-inputs/anchor_chain.yaml}
shift || true
mkdir -p out
echo
echo "[catena] main job: catena modal $input --modes 4 --vtk out/vtk --json out/summary.json $*"
echo
build/bin/catena modal "$input" --modes 4 --vtk out/vtk --json out/summary.json "$@"
