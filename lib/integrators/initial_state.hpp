#pragma once
/// @file initial_state.hpp
/// Assembly of a consistent initial state: Newton on C(q, t0) = 0 with minimum-norm corrections
/// dq = -C_q^+ C (the coordinates each body marks `fixed` are kept), then the velocities closest
/// to the given ones with C_q v = -C_t. Minimum-norm steps come from a rank-revealing sparse QR,
/// so redundant but consistent constraints are fine; a failure names the worst rows and the rank
/// deficiency.

#include <string>
#include <vector>

#include "assembly/plan.hpp"
#include "core/status.hpp"
#include "model/state.hpp"

namespace catena {

/// |C|_inf / length scale below which a state counts as assembled: the start's assembly and every
/// integrator's own position correction (MCS) stop there, so that a state one integrator hands
/// to another (a singular passage's bridge) is taken as it is, not moved again.
inline constexpr double kAssembledPositionTolerance = 1e-12;

struct InitialStateOptions {
  int max_iterations = 50;
  double position_tolerance = kAssembledPositionTolerance;  ///< on |C|_inf / length scale
  double velocity_tolerance = 1e-10;  ///< on |C_q v + C_t|_inf / max(1, |v|_inf)
};

struct InitialStateResult {
  Status status;
  State state;                           ///< the assembled state (or the last iterate)
  std::vector<double> position_history;  ///< |C|_inf per iteration, m
  long rank = 0;                         ///< rank of C_q at the last iterate
  long rank_deficiency = 0;              ///< m - rank: redundant (or singular) rows
  std::vector<std::string> worst_rows;   ///< largest |C| rows on failure (Model::rowName: value)
};

InitialStateResult assembleInitialState(const Model& model, const AssemblyPlan& plan, State start,
                                        const InitialStateOptions& options = {});

}  // namespace catena
