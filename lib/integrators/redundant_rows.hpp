#pragma once
/// @file redundant_rows.hpp
/// Redundant constraints in the saddle-point integrators (generalized-alpha, IDA): their matrix
/// [M C_q^T; C_q 0] is singular when rows of C_q are dependent, so a run on an over-constrained
/// mechanism fails at its start. withIndependentRows then runs it again on the model without the
/// rows a QRCP finds redundant there (mobility/independent_rows.hpp). The selection is made at
/// the start of a run; where the rank changes along the way (a singular configuration) the run
/// fails or stops, and singular_passage.hpp crosses it and selects again after it
/// (docs/dynamics-redundant.md). Internal to lib/integrators.

#include <string>
#include <utility>
#include <vector>

#include "integrators/dynamics.hpp"
#include "mobility/constraint_rank.hpp"
#include "mobility/independent_rows.hpp"

namespace catena {

/// result = run(model, plan, start, observer, rerun); run leaves the diagnosis of a singular
/// start to this function, which appends it when no rows can be left out. If it fails before
/// its first step with a
/// singular matrix (Status::Code::kSingular) and C_q at the state it returns has redundant rows,
/// returns run(reduced model, its plan, that state, observer, true) instead: `rerun` tells run
/// that the state is consistent already. The observer and the result see states of `model`:
/// positions and velocities as integrated, lambda the minimum-norm multipliers of every row;
/// result.redundant_rows names the rows left out. If the rows left out stop being satisfied
/// (RedundancyWatch) the run stops there with a failed Status naming them;
/// result.multipliers_note says which multipliers are reported.
template <class Result, class Run>
Result withIndependentRows(const Model& model, const AssemblyPlan& plan, const State& start,
                           const TrajectoryObserver& observer, Run&& run) {
  Result first = run(model, plan, start, observer, false);
  if (first.status.ok() || first.status.code != Status::Code::kSingular || first.stats.steps != 0)
    return first;
  const IndependentRows rows = independentRows(model, plan, first.state.q, first.state.t);
  if (rows.dropped.empty()) {
    // Singular without redundant rows (a motion without mass): why, in the user's terms.
    first.status.message +=
        ": " + diagnoseSingularSaddlePoint(model, plan, first.state.q, first.state.t);
    return first;
  }
  const AssemblyPlan reduced_plan = buildAssemblyPlan(rows.model);
  // The multipliers of every row: the minimum-norm set.
  auto full = [&](State s) {
    s.lambda = s.lambda.size() == rows.model.nc
                   ? minimumNormMultipliers(model, plan, rows, s.q, s.t, s.lambda)
                   : VecX::Zero(model.nc);
    return s;
  };
  // The rows left out must stay satisfied: where they drift from the kept ones the selection no
  // longer holds (the start was a singular configuration, or the rank changed on the way), and
  // what follows would be another mechanism's motion.
  RedundancyWatch watch(model, plan, rows);
  State s = first.state;
  s.lambda = VecX::Zero(rows.model.nc);
  Result out = run(
      rows.model, reduced_plan, s,
      [&](const State& st) { return watch.holds(st) && (!observer || observer(full(st))); }, true);
  out.state = full(out.state);
  out.redundant_rows = rows.dropped_names;
  out.multipliers_note =
      "minimum-norm multipliers over every row (reactions of redundant joints are not unique)";
  if (!watch.status().ok()) {
    out.status = watch.status();
    out.worst_rows = watch.rows();
  }
  return out;
}

}  // namespace catena
