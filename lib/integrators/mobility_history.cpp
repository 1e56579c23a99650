#include "integrators/mobility_history.hpp"

#include <algorithm>
#include <deque>
#include <sstream>

#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"
#include "integrators/initial_state.hpp"

#include "mobility/block_tree.hpp"
#include "mobility/blockwise_rank.hpp"
#include "mobility/singular_search.hpp"

namespace catena {

MobilitySample mobilitySample(double t, const VecX& d, Index rank) {
  MobilitySample s{t, rank, 0.0, 0.0};
  const double largest = d.size() > 0 ? d(0) : 0.0;
  if (largest <= 0.0) return s;
  if (rank > 0) s.smallest_retained = d(rank - 1) / largest;
  if (rank < d.size()) s.largest_dropped = d(rank) / largest;
  return s;
}

MobilityHistory mobilityAlongTrajectory(const Model& model, const AssemblyPlan& plan,
                                        const State& initial, const McsOptions& options,
                                        const std::function<void(double t)>& on_sample) {
  MobilityHistory h;
  const McsObserver observe = [&](const State&, const McsSample& s) {
    h.samples.push_back(mobilitySample(s.t, s.r1_diagonal, s.rank));
    if (on_sample) on_sample(s.t);
    return true;
  };
  h.path = "the projected (MCS) dynamics, dense QRCP at every step";
  h.run = integrateMcs(model, plan, initial, options, observe);
  for (std::size_t i = 1; i < h.samples.size(); ++i)
    if (h.samples[i].rank != h.samples[i - 1].rank) h.rank_change_at.push_back(Index(i));
  return h;
}

MobilityHistory mobilityAlongSparseTrajectory(const Model& model, const AssemblyPlan& plan,
                                              const State& initial,
                                              const GeneralizedAlphaOptions& options,
                                              const RankWatchOptions& watch,
                                              const std::function<void(double t)>& on_sample) {
  MobilityHistory h;
  h.path = "generalized-alpha, block-wise QRCP at every output";
  const BlockTree tree = blockTreeForModel(model);
  auto rankAt = [&](const VecX& q, double t, double tolerance) {
    BlockwiseRankOptions o;
    o.tolerance = tolerance;
    return analyzeBlockwiseRank(model, plan, q, t, tree, o);
  };
  const BlockwiseRank first = rankAt(initial.q, initial.t, watch.rank_tolerance);
  const Index rank = first.rank;
  // The smallest retained pivot, 0 where the rank is below the run's: V-shaped at a crossing.
  auto pivot = [&](double t, const VecX& q) {
    const BlockwiseRank r = rankAt(q, t, watch.rank_tolerance);
    return r.rank < rank ? 0.0 : r.smallest_retained;
  };
  std::deque<PathSample> path;
  std::vector<Index> generic;  // redundant rows at the middle sample
  const TrajectoryObserver observe = [&](const State& s) {
    const BlockwiseRank r = rankAt(s.q, s.t, watch.rank_tolerance);
    h.samples.push_back({s.t, r.rank, r.smallest_retained, r.largest_dropped});
    if (on_sample) on_sample(s.t);
    path.push_back({s.t, s.q, s.v, r.rank < rank ? 0.0 : r.smallest_retained});
    if (path.size() > 3) path.pop_front();
    if (path.size() < 3 || rank == 0 ||
        !bracketsSingular(path[0], path[1], path[2], watch.singular_margin))
      return true;
    const PathMinimum m = minimizeAlongPath(model, path[0], path[1], path[2], pivot);
    const BlockwiseRank at = rankAt(m.q, m.t, watch.singular_tolerance);
    if (at.rank >= rank) return true;  // a near miss
    generic = rankAt(path[1].q, path[1].t, watch.singular_tolerance).redundant_rows;
    std::sort(generic.begin(), generic.end());
    SingularEvent e;
    e.t = m.t;
    // The vanished pivot's size where the rank fell at the run's tolerance, else the smallest.
    const BlockwiseRank there = rankAt(m.q, m.t, watch.rank_tolerance);
    e.margin = there.rank < rank ? there.largest_dropped : there.smallest_retained;
    e.sampled_margin = path[1].smallest;
    for (Index i = at.rank; i < rank; ++i) e.vanished.push_back(i);
    for (Index row : at.redundant_rows)
      if (!std::binary_search(generic.begin(), generic.end(), row)) e.rows.push_back(row);
    h.run.singular_events.push_back(std::move(e));
    return true;
  };
  h.run.dynamics = integrateGeneralizedAlpha(model, plan, initial, options, observe);
  h.run.rank = rank;
  h.run.dof = model.nv - rank;
  for (std::size_t i = 1; i < h.samples.size(); ++i)
    if (h.samples[i].rank != h.samples[i - 1].rank) h.rank_change_at.push_back(Index(i));
  return h;
}

bool usesBlockwiseRank(const Model& model, bool requested) {
  return requested || model.nv > kDenseRankMaxCoordinates;
}

MobilityStart computeMobilityStart(const Model& model, const AssemblyPlan& plan, bool blockwise) {
  MobilityStart start;
  start.state = initialState(model);
  VecX C0(model.nc);
  assembleConstraints(model, plan, start.state.q, start.state.t, &C0, nullptr);
  const double c0 = model.nc > 0 ? C0.cwiseAbs().maxCoeff() : 0.0;
  const bool consistent = c0 <= InitialStateOptions{}.position_tolerance * lengthScale(model);
  if (blockwise && consistent) {
    std::ostringstream os;
    os << "at the initial configuration (consistent: |C| = " << c0 << " m)";
    start.where = os.str();
    return start;
  }
  const InitialStateResult init = assembleInitialState(model, plan, start.state);
  start.where = init.status.ok() ? "at the assembled initial configuration"
                                 : "at the initial configuration as given (it could not be "
                                   "assembled: " +
                                       init.status.message + ")";
  if (init.status.ok()) start.state = init.state;
  start.assembled = init.status.ok();
  return start;
}

MobilityHistory mobilityAlongSimulation(const Model& model, const AssemblyPlan& plan,
                                        const State& start, const MobilityRunOptions& options,
                                        const std::function<void(double t)>& on_sample) {
  McsOptions o;
  o.t_end = start.t + options.duration;
  o.output_interval = options.interval > 0.0 ? options.interval : options.duration / 500.0;
  o.rank_tolerance = options.rank_tolerance;
  o.singular_margin = options.margin;
  o.max_coordinates = kDenseRankMaxCoordinates;
  if (!options.blockwise) return mobilityAlongTrajectory(model, plan, start, o, on_sample);
  GeneralizedAlphaOptions g;
  g.t_end = o.t_end;
  g.output_interval = o.output_interval;
  g.step = std::min(g.step, o.output_interval);
  RankWatchOptions w;
  w.rank_tolerance = o.rank_tolerance;
  w.singular_margin = o.singular_margin;
  return mobilityAlongSparseTrajectory(model, plan, start, g, w, on_sample);
}

}  // namespace catena
