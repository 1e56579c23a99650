#!/usr/bin/env bash
# Installs what is missing, builds and runs the whole test suite with ctest:
#   1. Release build, all tests (unit, verification, regression, mpi);
#   2. AddressSanitizer + UndefinedBehaviorSanitizer build, unit tests;
#   3. a short libFuzzer run of the YAML loader (clang), seeded from inputs/.
# Usage: scripts/test.sh [--quick]   (--quick: step 1 only)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/deps.sh
catena_install_deps clang libclang-rt-14-dev

jobs=$(nproc 2>/dev/null || echo 2)
start=$(date +%s)
step() { echo; echo "[catena] $* ($(( $(date +%s) - start )) s elapsed)"; }

# Tests write only into build folders: a file that a run leaves in the source tree (outside
# the ignored build*/ and out/) is a defect, and fails the suite.
check_no_outputs_in_tree() {
  local stray
  stray=$(git -C "$root" status --porcelain --untracked-files=all 2>/dev/null | grep '^??' || true)
  if [ -n "$stray" ]; then
    echo "[catena] the tests left files in the source tree:"
    echo "$stray"
    return 1
  fi
}
untracked_before=$(git -C "$root" status --porcelain --untracked-files=all 2>/dev/null | grep -c '^??' || true)

step "1/3 Release build and ctest"
# Unity builds (cmake/UnityBuild.cmake): fewer compiles of the same templates in a fresh build.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCATENA_UNITY_BUILD=ON > /dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"
# Only where the tree was clean before (a developer's work in progress is not the tests' doing).
if [ "$untracked_before" = "0" ]; then check_no_outputs_in_tree; fi

if [ "${1:-}" = "--quick" ]; then exit 0; fi

step "2/3 sanitizer build (ASan + UBSan) and unit tests"
# -g1: line tables for the sanitizers' reports. Variable tracking computes locations of the
# variables that -g1 does not describe: off, 19-39 % of a heavy file's compile time (docs/ci.md).
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCATENA_SANITIZE=ON -DCATENA_UNITY_BUILD=ON \
  -DCMAKE_CXX_FLAGS_DEBUG="-Og -g1 -fno-var-tracking -fno-var-tracking-assignments" > /dev/null
cmake --build build-asan -j"$jobs" --target catena_unit_tests  # only what -L unit runs
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -L unit -j"$jobs"

step "3/3 fuzzing the YAML loader"
scripts/fuzz.sh "${CATENA_FUZZ_SECONDS:-30}"

if [ "$untracked_before" = "0" ]; then check_no_outputs_in_tree; fi

step "all tests passed"
