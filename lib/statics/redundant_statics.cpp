#include "statics/redundant_statics.hpp"

#include "assembly/plan.hpp"

namespace catena {

bool checkRowsLeftOut(const Model& model, const AssemblyPlan& plan, const IndependentRows& rows,
                      const State& equilibrium, StaticsResult& r) {
  RedundancyWatch watch(model, plan, rows);
  if (watch.holds(equilibrium)) return true;
  r.status = Status::failure(
      Status::Code::kNotConverged,
      "statics: the constraint rows left out as redundant at the initial state are not "
      "satisfied at the equilibrium found without them: they are not redundant there (the "
      "initial state is a singular configuration); start from another configuration");
  r.worst_rows = watch.rows();
  return false;
}

StaticsWithIndependentRows solveStaticsWithIndependentRows(const Model& model,
                                                           const AssemblyPlan& plan,
                                                           const State& start,
                                                           const StaticsOptions& options) {
  StaticsWithIndependentRows out;
  out.result = solveStatics(model, plan, start, options);
  const StaticsResult& first = out.result;
  // Only a failure of the first multiplier estimate (no Newton step taken) is a redundancy.
  if (first.status.ok() || first.status.code != Status::Code::kSingular ||
      first.history.size() != 1)
    return out;
  IndependentRows rows = independentRows(model, plan, start.q, start.t);
  if (rows.dropped.empty()) {
    // Singular to the factorization's pivot test, yet full rank to the QRCP's.
    out.result.status.message +=
        "; but the QRCP of C_q (rank tolerance 1e-10) finds no row that depends on the others: "
        "C_q is nearly rank-deficient at the initial configuration (close to a singular "
        "configuration); start from another configuration";
    return out;
  }
  const AssemblyPlan reduced_plan = buildAssemblyPlan(rows.model);
  State s = start;
  s.lambda = VecX::Zero(rows.model.nc);
  StaticsResult r = solveStatics(rows.model, reduced_plan, s, options);
  r.redundant_rows = rows.dropped_names;
  out.reduced_lambda = r.state.lambda;
  if (r.state.lambda.size() == rows.model.nc)
    r.state.lambda =
        minimumNormMultipliers(model, plan, rows, r.state.q, r.state.t, r.state.lambda);
  // A failure of the reduced statics itself says which rows it ran without.
  if (r.status.ok())
    checkRowsLeftOut(model, plan, rows, r.state, r);
  else
    r.status.message += " (without the " + std::to_string(rows.dropped.size()) +
                        " constraint rows left out as redundant at the initial state, first '" +
                        rows.dropped_names.front() +
                        "'; if the initial state is a singular configuration, they are not "
                        "redundant: start from another configuration)";
  out.result = std::move(r);
  out.rows = std::move(rows);
  return out;
}

}  // namespace catena
