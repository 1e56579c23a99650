#pragma once
/// @file mobility_history.hpp
/// The rank of C_q along a simulated trajectory (`catena mobility FILE --t-end T`): the rank at
/// every output time, the times where it changes, and the singular configurations met (refined
/// time, margin, the vanished pivots and their rows). The trajectory is the projected (MCS)
/// dynamics of integrators/mcs_dynamics.hpp, which integrates through redundant constraints
/// (the saddle-point integrators cannot: their matrix is singular there) and watches the QRCP of
/// C_q^T at every step.

#include <functional>
#include <vector>

#include "assembly/plan.hpp"
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
  McsResult run;  ///< the simulation: status, statistics, singular events
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

}  // namespace catena
