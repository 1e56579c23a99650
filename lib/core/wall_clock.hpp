#pragma once
/// @file wall_clock.hpp
/// Wall-clock seconds for the solvers' and analyses' cost counters (steady clock: never jumps),
/// and the process's CPU seconds (a rank's own work, also where ranks share cores).

#include <chrono>
#include <ctime>

namespace catena {

using WallClock = std::chrono::steady_clock;

/// Seconds elapsed since t0 (a WallClock::now()).
inline double secondsSince(WallClock::time_point t0) {
  return std::chrono::duration<double>(WallClock::now() - t0).count();
}

/// CPU seconds of this process so far (all its threads).
inline double processCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace catena
