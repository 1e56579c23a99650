#pragma once
/// @file timing.hpp
/// Clocks, statistics of repeated timings and the process's resident memory, for the benchmark
/// programs (benchmarks/*.cpp).

#include <chrono>
#include <vector>

namespace catena::bench {

using Clock = std::chrono::steady_clock;

/// Wall seconds from t0 to now (steady_clock).
double secondsSince(Clock::time_point t0);

/// Wall milliseconds from t0 to now (steady_clock).
double millisecondsSince(Clock::time_point t0);

/// Process CPU time in seconds (CLOCK_PROCESS_CPUTIME_ID, all threads), from an arbitrary
/// origin: only differences mean something.
double cpuSeconds();

/// Median of v (mean of the two middle values for an even count); 0 for an empty v.
double median(std::vector<double> v);

/// Smallest value of v; 0 for an empty v.
double best(const std::vector<double>& v);

/// A "Name:   123 kB" field of /proc/self/status ("VmHWM", "VmRSS") in KiB; -1 if absent.
long statusKiB(const char* name);

/// Resets the peak resident set (VmHWM) to the current one through /proc/self/clear_refs
/// (Linux >= 4.0); false if the kernel refuses.
bool resetPeakResident();

}  // namespace catena::bench
