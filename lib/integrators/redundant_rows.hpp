#pragma once
/// @file redundant_rows.hpp
/// Redundant constraints in the saddle-point integrators (generalized-alpha, IDA): their matrix
/// [M C_q^T; C_q 0] is singular when rows of C_q are dependent, so a run on an over-constrained
/// mechanism fails at its start. withIndependentRows then runs it again on the model without the
/// rows a QRCP finds redundant there (mobility/independent_rows.hpp). The selection is made once,
/// at the start: a mechanism whose rank changes along the way (a singular configuration) still
/// fails there (docs/dynamics-redundant.md). Internal to lib/integrators.

#include <utility>

#include "integrators/dynamics.hpp"
#include "mobility/constraint_rank.hpp"
#include "mobility/independent_rows.hpp"

namespace catena {

/// result = run(model, plan, start, observer, rerun). If it fails before its first step with a
/// singular matrix (Status::Code::kSingular) and C_q at the state it returns has redundant rows,
/// returns run(reduced model, its plan, that state, observer, true) instead: `rerun` tells run
/// that the state is consistent already. The observer and the result see states of `model`:
/// positions and velocities as integrated, lambda the minimum-norm multipliers of every row;
/// result.redundant_rows names the rows left out. Models beyond the dense QRCP
/// (kMaxDiagnosedCoordinates) keep the failed result.
template <class Result, class Run>
Result withIndependentRows(const Model& model, const AssemblyPlan& plan, const State& start,
                           const TrajectoryObserver& observer, Run&& run) {
  Result first = run(model, plan, start, observer, false);
  if (first.status.ok() || first.status.code != Status::Code::kSingular || first.stats.steps != 0 ||
      model.nv > kMaxDiagnosedCoordinates)
    return first;
  const IndependentRows rows = independentRows(model, plan, first.state.q, first.state.t);
  if (rows.dropped.empty()) return first;
  const AssemblyPlan reduced_plan = buildAssemblyPlan(rows.model);
  auto full = [&](State s) {
    s.lambda = s.lambda.size() == rows.model.nc
                   ? minimumNormMultipliers(model, plan, rows, s.q, s.t, s.lambda)
                   : VecX::Zero(model.nc);
    return s;
  };
  State s = first.state;
  s.lambda = VecX::Zero(rows.model.nc);
  Result out = run(
      rows.model, reduced_plan, s, [&](const State& st) { return !observer || observer(full(st)); },
      true);
  out.state = full(out.state);
  out.redundant_rows = rows.dropped_names;
  return out;
}

}  // namespace catena
