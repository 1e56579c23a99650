#include "integrators/singular_passage.hpp"

#include <algorithm>
#include <cmath>

#include "mobility/block_tree.hpp"
#include "mobility/blockwise_rank.hpp"
#include "mobility/constraint_rank.hpp"
#include "mobility/independent_rows.hpp"

namespace catena {

PassageOptions passageOptions(double rtol, double output_interval) {
  PassageOptions passage;
  passage.output_interval = output_interval;
  // Generalized-alpha's global error is far above its local tolerance (second order: 1e-3 m
  // over 10 s of the double four-bar at 1e-8, benchmarks/results/singular_passage.md), and the
  // bridges set the run's error: tighter than rtol, but not below 1e-10, where its own steps
  // end next to the crossing (at 1e-12 it failed there as fixed steps do).
  passage.bridge_tolerance = std::max(std::pow(rtol, 1.5), 1e-10);
  // MCS bridges at 1e-8 whatever the run's tolerance, MCS's own runs included: a bridge's error
  // must not set the run's. With MCS at clamp(rtol, 1e-8, 1e-4), Runge-Kutta on the double
  // four-bar was worse at rtol 1e-6 (8.5e-4 m) than at 1e-4 (3.8e-5 m): the bridges' phase
  // errors (1.8e-7 rad at 1e-6) grew over the later crossings. Tighter, MCS's steps next to the
  // crossing shrink and lose accuracy there (docs/dynamics-mcs.md, "Limits"). Each bridge at
  // 1e-8 still adds 1e-9 .. 1e-8 m: the round-off floor at a crossing that runs one ulp apart
  // measure (benchmarks/results/singular_passage.md, docs/dynamics-redundant.md "Limits").
  passage.mcs_tolerance = 1e-8;
  return passage;
}

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
