#include "integrators/branch_watch.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "analysis/scales.hpp"
#include "integrators/singular_passage.hpp"
#include "mobility/singular_search.hpp"

namespace catena {

BranchWatch::BranchWatch(const Model& m)
    : BranchWatch(m, static_cast<Index>(m.bodies.size()), lengthScale(m), nullptr) {}

BranchWatch::BranchWatch(const Model& m, const AssemblyPlan& plan) : BranchWatch(m) {
  plan_ = &plan;
  model_ = &m;
  for (Kept* k : {&first_, &kept_[0], &kept_[1], &kept_[2], &kept_[3]}) {
    k->q.resize(m.nq);
    k->v.resize(m.nv);
  }
}

BranchWatch::BranchWatch(const Model& m, Index owned_bodies, double length_scale, RankSum sum)
    : per_(m.nv_body),
      owned_(owned_bodies),
      sum_(std::move(sum)),
      weights_(VecX::Zero(m.nv)),
      v_prev_(m.nv) {
  const int lin = m.dimension == 3 ? 3 : 2;
  for (Index b = 0; b < owned_; ++b) {
    const Body& body = m.bodies[b];
    const double rotation =
        m.dimension == 3 ? body.inertia.diagonal().maxCoeff() : body.inertia(2, 2);
    for (int k = 0; k < per_; ++k)
      weights_(b * per_ + k) = std::sqrt(k < lin ? body.mass : std::max(rotation, 0.0));
  }
  for (const MarkerLoad& l : m.loads)
    if (l.scale.kind == TimeFunction::Kind::kPulse) pulses_.emplace_back(l.scale.c, l.scale.d);
  double mass = 0.0;
  if (sum_)
    mass = sum_(owned_, [&](Index b) { return m.bodies[b].mass; });
  else
    for (const Body& body : m.bodies) mass += body.mass;
  potential_scale_ = mass * m.gravity.norm() * length_scale;
}

double BranchWatch::norm(const VecX& v) const {
  if (!sum_) return weights_.cwiseProduct(v).norm();
  return std::sqrt(sum_(owned_, [&](Index b) {
    return weights_.segment(b * per_, per_).cwiseProduct(v.segment(b * per_, per_)).squaredNorm();
  }));
}

bool BranchWatch::nearShortPulse(double t0, double t1) const {
  const double h = t1 - t0;
  bool near = false;
  for (const auto& [start, end] : pulses_)
    near = near || (end - start < 2.0 * h && end > t0 - h && start < t1 + h);
  // A pulse that a rank's loads hold is near for every rank.
  if (sum_) return sum_(1, [&](Index) { return near ? 1.0 : 0.0; }) > 0.0;
  return near;
}

bool BranchWatch::singularOnPath(int first, int last) {
  if (!plan_) return true;
  const Model& m = *model_;
  if (start_rank_ < 0)
    start_pivot_ = smallestRetainedPivot(m, *plan_, first_.q, first_.t, -1, &start_rank_);
  const double margin = kProbeMargin * start_pivot_;
  for (int k = first; k < last; ++k) {
    const PathSample a{kept_[k].t, kept_[k].q, kept_[k].v, 0.0};
    const PathSample b{kept_[k + 1].t, kept_[k + 1].q, kept_[k + 1].v, 0.0};
    for (int i = 0; i <= kProbeSamples; ++i) {
      const double tau = a.t + (b.t - a.t) * i / kProbeSamples;
      const VecX q = i == 0 ? a.q : i == kProbeSamples ? b.q : interpolatePath(m, a, b, tau);
      if (smallestRetainedPivot(m, *plan_, q, tau, start_rank_) < margin) return true;
    }
  }
  return false;
}

bool BranchWatch::add(const State& s) {
  if (!status_.ok()) return false;
  if (plan_) {
    if (samples_ == 0) {
      first_.t = s.t;
      first_.q = s.q;
      first_.v = s.v;
    }
    for (int k = 0; k < 3; ++k) std::swap(kept_[k], kept_[k + 1]);
    kept_[3].t = s.t;
    kept_[3].q = s.q;
    kept_[3].v = s.v;
  }
  const double speed = norm(s.v);
  kinetic_max_ = std::max(kinetic_max_, 0.5 * speed * speed);
  if (samples_++ == 0) {
    v_prev_ = s.v;
    t_prev_ = s.t;
    speed_prev_ = speed;
    return true;
  }
  // The newest interval [t_prev_, s.t].
  v_prev_ -= s.v;
  const double change = norm(v_prev_);
  // The last interval before this one (the middle one, now that its successor is known) is a
  // jump if it changes the velocity far more than both neighbours and by a sizeable fraction of
  // the speed; so are the last two together, against the intervals on either side.
  auto jumped = [&](double middle, double before, double speed_there, double from, double to,
                    int intervals) {
    const double jump_energy = 0.5 * middle * middle;
    if (!(middle > kJumpRatio * std::max(before, change) && middle > kJumpFraction * speed_there &&
          jump_energy > kRoundoffEnergy * (kinetic_max_ + potential_scale_) &&
          jump_energy > kNegligibleEnergy && !nearShortPulse(from, to)))
      return false;
    // The span's outputs are kept_[2 - intervals .. 2]; kept_[3] is s.
    if (!singularOnPath(2 - intervals, 2)) return false;
    const char* span = intervals == 1 ? "one output interval" : "two output intervals";
    std::ostringstream os;
    os << "the velocity jumped between t = " << from << " s and " << to << " s (a change of "
       << middle / speed_there << " of the speed in " << span << ", "
       << middle / std::max(before, change)
       << " times the change of the intervals around it) while the motion was smooth "
          "before and after: the integration has most likely left its branch at a singular "
          "configuration, and what follows t = "
       << from
       << " s is not the mechanism's motion. Try a tighter tolerance, another integrator "
          "or formulation (--formulation mcs continues the tangent basis through singular "
          "configurations), or a smaller --output-interval to locate the jump";
    status_ = Status::failure(Status::Code::kNotConverged, os.str());
    return true;
  };
  if (samples_ >= 4 && jumped(change_[2], change_[1], speed_[2], t0_[2], t1_[2], 1)) return false;
  if (samples_ >= 5 && jumped(change_[1] + change_[2], change_[0], std::max(speed_[1], speed_[2]),
                              t0_[1], t1_[2], 2))
    return false;
  for (int k = 0; k < 2; ++k) {
    t0_[k] = t0_[k + 1];
    t1_[k] = t1_[k + 1];
    change_[k] = change_[k + 1];
    speed_[k] = speed_[k + 1];
  }
  t0_[2] = t_prev_;
  t1_[2] = s.t;
  change_[2] = change;
  speed_[2] = std::max(speed_prev_, speed);
  v_prev_ = s.v;
  t_prev_ = s.t;
  speed_prev_ = speed;
  return true;
}

}  // namespace catena
