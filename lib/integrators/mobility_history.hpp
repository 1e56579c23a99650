#pragma once
/// @file mobility_history.hpp
/// The rank of C_q along a simulated trajectory (`catena mobility FILE --t-end T`): the rank at
/// every output time, the times where it changes, and the singular configurations met (refined
/// time, margin, the vanished pivots and their rows). Two paths, one search
/// (mobility/singular_search.hpp):
/// - dense models: the projected (MCS) dynamics of integrators/mcs_dynamics.hpp, which watches
///   the QRCP of C_q^T at every step and also gives the new admissible motions;
/// - any size: generalized-alpha (sparse; redundant rows left out as integrateGeneralizedAlpha
///   does) with the block-wise rank (mobility/blockwise_rank.hpp) at every output.

#include <functional>
#include <string>
#include <vector>

#include "assembly/plan.hpp"
#include "integrators/generalized_alpha.hpp"
#include "integrators/mcs_dynamics.hpp"
#include "model/model.hpp"

namespace catena {

struct MobilitySample {
  double t = 0.0;                  ///< s
  Index rank = 0;                  ///< numerical rank of C_q
  double smallest_retained = 0.0;  ///< min retained |R_ii| / |R_11| (0 if rank = 0)
  double largest_dropped = 0.0;    ///< max dropped |R_ii| / |R_11| (0 if none)
};

struct MobilityHistory {
  std::string path;  ///< what was integrated and how the rank was taken, for reports
  McsResult run;     ///< the simulation: status, statistics, singular events (MCS fields: dense)
  std::vector<MobilitySample> samples;
  std::vector<Index> rank_change_at;  ///< sample indices i > 0 with rank != rank of i - 1
};

/// The sample of one QRCP diagonal (|R_ii| in pivot order) at rank `rank`.
MobilitySample mobilitySample(double t, const VecX& r1_diagonal, Index rank);

/// Integrates the MCS dynamics from `initial` with `options` (continuation on by default; its
/// output_interval sets the samples, rank_tolerance and singular_margin the decisions).
/// `on_sample` (optional, for progress reports) is called with the time of every sample.
MobilityHistory mobilityAlongTrajectory(const Model& model, const AssemblyPlan& plan,
                                        const State& initial, const McsOptions& options,
                                        const std::function<void(double t)>& on_sample = {});

/// Options of the block-wise path (the MCS path takes them from McsOptions).
struct RankWatchOptions {
  double rank_tolerance = kDefaultRankTolerance;  ///< relative, on |R_ii| / max row norm
  double singular_margin = 0.05;     ///< a local minimum of the smallest pivot below it is examined
  double singular_tolerance = 1e-6;  ///< relative pivots below it at the minimum have vanished
};

/// Integrates generalized-alpha from `initial` with `options` (its output_interval sets the
/// samples) and takes the block-wise rank of C_q at every output; between three outputs whose
/// middle one has the smallest retained pivot (below the margin), the block-wise rank along the
/// interpolated path is minimized and, where it falls at the singular tolerance, a
/// SingularEvent records the time, the margin, the rank drop and the rows that became
/// dependent (rows redundant there and not at the middle output). No tangent bases (the
/// `continued`, `new_motions` fields stay empty): the number of new motions is the rank drop.
MobilityHistory mobilityAlongSparseTrajectory(const Model& model, const AssemblyPlan& plan,
                                              const State& initial,
                                              const GeneralizedAlphaOptions& options,
                                              const RankWatchOptions& watch,
                                              const std::function<void(double t)>& on_sample = {});

/// Where `catena mobility` takes the rank: the initial state assembled onto C = 0 when it can
/// be; on the block-wise path an initial state already consistent (|C|_inf within the initial
/// assembly's tolerance, as a generated lattice or chain) is taken as it is, sparing the global
/// sparse QR of the assembly, which the rank does not need.
struct MobilityStart {
  State state;            ///< the configuration of the rank (and start of any simulation)
  std::string where;      ///< for reports, e.g. "at the assembled initial configuration"
  bool assembled = true;  ///< false: the initial state could not be assembled (no simulation)
};
MobilityStart computeMobilityStart(const Model& model, const AssemblyPlan& plan, bool blockwise);

/// True when `catena mobility` takes the block-wise rank: asked for, or above
/// kDenseRankMaxCoordinates velocity coordinates.
bool usesBlockwiseRank(const Model& model, bool requested);

/// `catena mobility --t-end T --interval H --margin M [--blockwise]`.
struct MobilityRunOptions {
  double duration = 1.0;  ///< T: s from the start's time, > 0
  double interval = 0.0;  ///< H: s between samples; 0: duration / 500
  double rank_tolerance = kDefaultRankTolerance;
  double margin = 0.05;    ///< M: singular margin (RankWatchOptions::singular_margin)
  bool blockwise = false;  ///< generalized-alpha + block-wise rank, else the MCS path
};

/// The rank along a simulation from `start` (consistent) as `catena mobility --t-end` runs it:
/// mobilityAlongSparseTrajectory (generalized-alpha, step at most the interval) if
/// options.blockwise, else mobilityAlongTrajectory (MCS, dense up to kDenseRankMaxCoordinates).
/// The block-wise path needs a live PetscSession (the caller's). Never throws on numerical
/// failure (history.run.dynamics.status).
MobilityHistory mobilityAlongSimulation(const Model& model, const AssemblyPlan& plan,
                                        const State& start, const MobilityRunOptions& options,
                                        const std::function<void(double t)>& on_sample = {});

}  // namespace catena
