/// @file fuzz_yaml_loader.cpp
/// libFuzzer entry point for the YAML mechanism loader (scripts/fuzz.sh builds and runs it).
/// Any input must either load or be refused with an InputError that carries a position; a
/// crash, a leak, a hang, a sanitizer report or any other exception is a bug in the loader.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "io/yaml_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  catena::LoaderLimits limits;
  limits.max_generated_bodies = 2000;  // keeps every accepted input small and fast
  try {
    (void)catena::loadMechanismString(text, "<fuzz>", limits);
  } catch (const catena::Error& e) {
    // A plain catena::Error has lost the file position: the loader must wrap every one.
    if (dynamic_cast<const catena::InputError*>(&e) == nullptr) {
      std::fprintf(stderr, "catena::Error without a position escaped the loader: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
