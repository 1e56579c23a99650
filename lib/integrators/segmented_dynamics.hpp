#pragma once
/// @file segmented_dynamics.hpp
/// Long distributed IDA runs in restartable segments (docs/parallel.md, "Checkpoints of a long
/// integration"), for batch jobs that a time limit ends:
///
/// - [t0, t_end] is cut at t0 + k segment. Each segment is one integrateDistributedIda from the
///   state the previous one ended in: IDA starts afresh there (order 1, its own first step,
///   v' and lambda from the KKT system), as it would after any discontinuity.
/// - After each segment, every rank writes its local state (q, v, lambda of owned and ghost
///   bodies, t) and the run's counters to its own file <stem>.r<rank>, atomically, after moving
///   the previous one to <stem>.r<rank>.prev. A rank killed between the two keeps a whole file
///   of one of the last two segments; a restart takes the latest segment that every rank has.
///   A file that fails its end record's length and checksum (io/checkpoint.hpp) is passed over
///   with a warning, so a damaged newest file falls back to `.prev`.
/// - A restart integrates the remaining segments from the same states as the uninterrupted run
///   (the values are stored exactly, as hexadecimal floats), so it ends bitwise where that run
///   ends.
/// - A termination signal (SIGTERM, which Slurm sends before a time limit; io/checkpoint.hpp)
///   is acted on at the end of the segment in progress: its checkpoint is written and the run
///   returns `interrupted`. A segment should therefore take less wall time than the signal's
///   lead (sbatch --signal).
///
/// The segments' restarts change the results by about the integration error, as a different
/// output grid would not: a run with segments is reproduced by a run with the same segments.
/// Every function here is collective over PETSC_COMM_WORLD.

#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "integrators/distributed_dynamics.hpp"
#include "io/checkpoint.hpp"

namespace catena {

struct SegmentOptions {
  double segment = 0.0;  ///< simulated s per segment; 0: one segment from t0 to t_end
  /// Stem of the per-rank files (<stem>.r<rank>, <stem>.r<rank>.prev); empty: none written.
  std::filesystem::path checkpoint;
  /// What the run is (model, size, options): a checkpoint of another run is not resumed.
  std::string run;
  /// Resume from the checkpoint when one of this run exists (else start at t0, with a note).
  bool restart = false;
  int stop_after = -1;  ///< raise SIGTERM after this many segments (tests the signal path)
  /// Extra records (an observer's running values): written into each rank's checkpoint after
  /// every segment, handed back on a restart. Keys must not be those of the state.
  std::function<void(Checkpoint&)> save;
  std::function<void(const Checkpoint&)> load;
};

struct SegmentedDynamicsResult : DistributedDynamicsResult {
  int segments = 0;  ///< segments integrated by this call
  /// s: the time the run was resumed at (NaN: it started at t0).
  double resumed_at = std::numeric_limits<double>::quiet_NaN();
  bool interrupted = false;  ///< stopped by a termination signal at a segment's end, before t_end
  std::string note;          ///< on a restart: what was resumed, or why nothing was
  /// On a restart, this rank's files that were damaged and passed over (each names the file
  /// and why, and which file was used instead).
  std::vector<std::string> warnings;
};

/// Integrates from `initial` (as for integrateDistributedIda: consistent, of the local model) to
/// options.t_end in segments. The result's stats are summed over the whole run (restarts
/// included), its timings are this call's. The observer gets t0 (not on a restart) and the
/// output times of each segment, counted from the segment's start. Throws catena::Error for
/// invalid options and for an unreadable checkpoint of this run (naming the file); a checkpoint
/// that cannot be written ends the run with a failed Status.
SegmentedDynamicsResult integrateDistributedIdaInSegments(const DistributedAssembly& assembly,
                                                          const State& initial,
                                                          const IdaOptions& options,
                                                          const SegmentOptions& segments,
                                                          const TrajectoryObserver& observer = {});

}  // namespace catena
