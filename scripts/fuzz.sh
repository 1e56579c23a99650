#!/usr/bin/env bash
# Fuzzes the YAML mechanism loader with libFuzzer, AddressSanitizer (with leak detection) and
# UndefinedBehaviorSanitizer.
#
#   scripts/fuzz.sh [SECONDS]    # default 60
#
# 1. configures build-fuzz with clang (-DCATENA_FUZZ=ON builds only lib/ and tests/fuzz/);
# 2. builds tests/fuzz/fuzz_yaml_loader;
# 3. seeds the corpus build-fuzz/fuzz-corpus with inputs/*.yaml and tests/fuzz/seeds/*.yaml
#    (the corpus is kept between runs, so later runs start from what earlier ones found);
# 4. runs the fuzzer for SECONDS; a crash, leak, timeout or out-of-memory input is saved as
#    build-fuzz/fuzz-artifacts/{crash,leak,timeout,oom}-* and the script exits non-zero.
# Replay one input: build-fuzz/tests/fuzz/fuzz_yaml_loader FILE
set -euo pipefail

seconds="${1:-60}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-fuzz"

cmake -S "$root" -B "$build" -DCATENA_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build "$build" -j "$(nproc)" --target fuzz_yaml_loader

corpus="$build/fuzz-corpus"
artifacts="$build/fuzz-artifacts"
mkdir -p "$corpus" "$artifacts"
shopt -s nullglob
for seed in "$root"/inputs/*.yaml "$root"/tests/fuzz/seeds/*.yaml; do
  cp "$seed" "$corpus/"
done

"$build/tests/fuzz/fuzz_yaml_loader" \
  -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=4096 \
  -dict="$root/tests/fuzz/yaml_loader.dict" -artifact_prefix="$artifacts/" \
  -print_final_stats=1 "$corpus"
