#pragma once
/// @file memory_estimate.hpp
/// What a run needs in memory, from measured peak resident sets, and the messages that say so
/// when an allocation fails (docs/reliability.md, "Resource limits"). The constants, each with
/// the measurement it comes from, are in memory_estimate.cpp and nowhere else.

#include <string>

namespace catena {

/// Peak memory of one process, about base + per_unit * units / ranks bytes: a straight line
/// through measured peak resident sets (one rank, one thread).
struct MemoryModel {
  double base_bytes = 0.0;
  double bytes_per_unit = 0.0;
  const char* unit = "link";  ///< what `units` counts: "link" (chain), "cell" (lattice), "body"
  const char* source = "";    ///< the measurements fitted

  /// Bytes one of `ranks` processes needs for `units` units.
  double perRank(double units, int ranks) const {
    return base_bytes + bytes_per_unit * units / ranks;
  }
};

/// catena-scale's runs: family "chain" or "lattice" (units: links, or the K x K cells),
/// analysis "statics", "modal" or "dynamics", linear solver "direct" or "iterative".
MemoryModel scalingMemoryModel(const std::string& family, const std::string& analysis,
                               const std::string& linear_solver);
/// The serial catena's statics (KLU), per body of a chain; the other analyses need more.
MemoryModel serialMemoryModel();

/// The memory this process may use, in bytes, and what bounds it: the address-space limit
/// (RLIMIT_AS, `ulimit -v`) if one is set, else the machine's available memory (MemAvailable,
/// shared by every process on it); 0 if neither is known.
struct MemoryLimit {
  double bytes = 0.0;
  std::string what;
};
MemoryLimit memoryLimit();

/// "12.3 GiB", "586 MiB", ...
std::string formatBytes(double bytes);

/// Records the size of the model being loaded (bodies), for serialOutOfMemoryMessage. The YAML
/// loader calls it before it generates a model. 0: unknown.
void noteModelSize(long long bodies);

/// The message of the serial catena for a failed allocation while `what` ("running 'catena
/// statics'"), `detail` the exception's what(): the model's size if known, the estimated need,
/// the limit and what to do.
std::string serialOutOfMemoryMessage(const std::string& what, const std::string& detail);

}  // namespace catena
