#include "integrators/singular_passage.hpp"

#include "mobility/block_tree.hpp"
#include "mobility/blockwise_rank.hpp"
#include "mobility/constraint_rank.hpp"
#include "mobility/independent_rows.hpp"

namespace catena {

double smallestRetainedPivot(const Model& model, const AssemblyPlan& plan, const VecX& q, double t,
                             Index rank, Index* rank_out) {
  if (model.nc == 0) {
    if (rank_out) *rank_out = 0;
    return 1.0;
  }
  Index here = 0;
  double smallest = 0.0;
  if (model.nv <= kDenseRowLimit) {
    const ConstraintRank r = analyzeConstraintRank(model, plan, q, t);
    here = r.rank;
    smallest = r.smallestRetained();
  } else {
    const BlockwiseRank r = analyzeBlockwiseRank(model, plan, q, t, blockTreeForModel(model));
    here = r.rank;
    smallest = r.smallest_retained;
  }
  if (rank_out) *rank_out = here;
  return rank >= 0 && here < rank ? 0.0 : smallest;
}

void addStats(DynamicsStats& total, const DynamicsStats& more) {
  const bool first = total.steps == 0;
  total.steps += more.steps;
  total.rejected_steps += more.rejected_steps;
  total.newton_iterations += more.newton_iterations;
  total.jacobian_evaluations += more.jacobian_evaluations;
  total.factorizations += more.factorizations;
  total.linear_solves += more.linear_solves;
  total.error_test_failures += more.error_test_failures;
  total.convergence_failures += more.convergence_failures;
  total.projections += more.projections;
  if (more.steps == 0) return;
  total.last_step = more.last_step;
  total.smallest_step =
      first ? more.smallest_step : std::min(total.smallest_step, more.smallest_step);
  total.largest_step = std::max(total.largest_step, more.largest_step);
}

}  // namespace catena
