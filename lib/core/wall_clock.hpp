#pragma once
/// @file wall_clock.hpp
/// Wall-clock seconds for the solvers' and analyses' cost counters (steady clock: never jumps).

#include <chrono>

namespace catena {

using WallClock = std::chrono::steady_clock;

/// Seconds elapsed since t0 (a WallClock::now()).
inline double secondsSince(WallClock::time_point t0) {
  return std::chrono::duration<double>(WallClock::now() - t0).count();
}

}  // namespace catena
