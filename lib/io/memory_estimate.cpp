#include "io/memory_estimate.hpp"

#include <sys/resource.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <new>
#include <sstream>

namespace catena {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::atomic<long long> g_model_bodies{0};

}  // namespace

MemoryModel scalingMemoryModel(const std::string& family, const std::string& analysis,
                               const std::string& linear_solver) {
  // Straight lines through the two largest runs on one rank and one thread (max_rss_mib_max,
  // MiB); per rank, the units are divided by the ranks (measured on 2 ranks: within 5 % of the
  // sum of the ranks' peaks). The lattice's MUMPS factor grows like n log n: its line goes
  // through the origin's side of base 40 MiB, and overestimates smaller lattices.
  if (family == "chain") {
    if (analysis == "dynamics")  // 1038 MiB at 10^4, 9860 MiB at 10^5
      return {58 * kMiB, 102800, "link",
              "benchmarks/results/scaling_chain_dynamics.jsonl (N = 10^4) and "
              "chain_dynamics_long_chains.jsonl (N = 10^5)"};
    if (analysis == "modal")  // 433 MiB at 10^4, 3912 MiB at 10^5
      return {46 * kMiB, 40500, "link", "benchmarks/results/scaling_chain_modal.jsonl"};
    if (linear_solver == "schur")  // least squares over 3125 .. 50000 links per rank (B, C)
      return {62 * kMiB, 19969, "link", "benchmarks/results/schur_memory.md"};
    if (linear_solver == "iterative")  // 1099 MiB at 2e4, 5320 MiB at 10^5
      return {44 * kMiB, 55300, "link", "benchmarks/results/saddle_point_solvers.jsonl"};
    return {41 * kMiB, 37500, "link",  // 398 MiB at 10^4, 3615 MiB at 10^5
            "benchmarks/results/scaling_chain_statics.jsonl"};
  }
  if (analysis == "dynamics")  // 318 MiB at K = 50, 1306 MiB at K = 100
    return {40 * kMiB, 138000, "cell", "benchmarks/results/scaling_lattice_dynamics.jsonl"};
  if (analysis == "modal")  // 2020 MiB at K = 200, 8792 MiB at K = 400
    return {40 * kMiB, 59200, "cell", "benchmarks/results/scaling_lattice_modal.jsonl"};
  // 1902 MiB at K = 200, 8364 MiB at K = 400 (the iterative solver: 12 % more at K = 50).
  return {40 * kMiB, linear_solver == "iterative" ? 63300.0 : 56500.0, "cell",
          "benchmarks/results/scaling_lattice_statics.jsonl"};
}

MemoryModel serialMemoryModel() {
  // Peak RSS = 42 MiB + 13767 bytes per link, least squares over N = 2e4 .. 10^6 (catena
  // statics, KLU, 1 thread).
  return {42 * kMiB, 13767, "body", "benchmarks/results/chain_statics_large.md"};
}

MemoryLimit memoryLimit() {
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    return {static_cast<double>(as.rlim_cur), "the address-space limit (ulimit -v)"};
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0.0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:")
      return {kib * 1024.0,
              "the machine's available memory (MemAvailable, shared by its processes)"};
  return {0.0, "unknown"};
}

std::string formatBytes(double bytes) {
  char buf[64];
  if (bytes >= 1024.0 * kMiB)
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * kMiB));
  else
    std::snprintf(buf, sizeof buf, "%.0f MiB", bytes / kMiB);
  return buf;
}

void noteModelSize(long long bodies) {
  g_model_bodies.store(bodies);
}

std::string serialOutOfMemoryMessage(const std::string& what, const std::string& detail) {
  const MemoryModel m = serialMemoryModel();
  const MemoryLimit limit = memoryLimit();
  const long long bodies = g_model_bodies.load();
  std::ostringstream os;
  os << "catena: out of memory while " << what;
  if (detail != std::bad_alloc().what()) os << " (" << detail << ")";
  os << ": ";
  if (bodies > 0)
    os << "the model has " << bodies << " bodies; a chain of that size needs at least "
       << formatBytes(m.perRank(static_cast<double>(bodies), 1)) << " for statics (";
  else
    os << "statics needs at least (";
  os << formatBytes(m.base_bytes) << " + " << std::lround(m.bytes_per_unit / 100.0) / 10.0
     << " kB per body, " << m.source << "; modes and dynamics need more)";
  if (limit.bytes > 0.0) os << ", and " << limit.what << " is " << formatBytes(limit.bytes);
  os << ". Use a machine with more memory, or catena-scale on more ranks and nodes for chains "
        "and lattices (docs/scaling.md)";
  return os.str();
}

}  // namespace catena
