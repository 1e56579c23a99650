#include "integrators/mobility_history.hpp"

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
  h.run = integrateMcs(model, plan, initial, options, observe);
  for (std::size_t i = 1; i < h.samples.size(); ++i)
    if (h.samples[i].rank != h.samples[i - 1].rank) h.rank_change_at.push_back(Index(i));
  return h;
}

}  // namespace catena
