#pragma once
/// @file branch_watch.hpp
/// Watches a trajectory, output by output, for a velocity jump: the sign that an integration
/// left its branch at a singular configuration (a kinematic bifurcation, where two branches of
/// C(q) = 0 cross). There the velocity changes direction within one output interval while the
/// energy stays the same (so the energy checks cannot see it): IDA index 1 on the double
/// four-bar turned two of its three cranks to rest in 0.01 s and reported the run up to its
/// failure 6 s later. A smooth motion changes its velocity from interval to interval by similar
/// amounts, also where a load switches on (the intervals after it change as much); a jump is one
/// interval whose change exceeds kJumpRatio times both of its neighbours' and kJumpFraction of
/// the speed, all in the kinetic-energy norm (mass on translations, the largest principal
/// moment on rotations). The jump is seen one output late (its next interval must be known). A
/// jump that an output splits in two (IDA's output interpolated inside the step that jumped:
/// index 1 on the double four-bar at rtol 1e-4) is two intervals whose changes together exceed
/// kJumpRatio times both neighbours': seen two outputs late.
/// A load pulse shorter than two output intervals can jump the velocity by itself: the
/// intervals near it are not judged. Nor is a change whose kinetic energy, 1/2 |dv|^2, is
/// round-off next to the mechanism's energy (the largest kinetic energy so far plus
/// sum m |g| times the length scale): the speed of a model that cannot move is round-off, and
/// so are its "jumps". No allocation after construction, except in the probe's QRCPs.
///
/// A branch can be left only at a singular configuration. Given the assembly plan, a candidate
/// jump is reported only if C_q's smallest retained relative pivot on the cubic Hermite path
/// between the outputs of its span falls below kProbeMargin times its value at the first output,
/// or C_q's rank drops there (kProbeSamples points per interval, checked only at candidates). A
/// smooth motion that outputs sample too coarsely (the spatial slider-crank's slider turning back
/// within 0.2 s, seen in outputs 0.1 s apart) looks like a jump to the ratio test and is not
/// reported; a crossing between coarse outputs still is (ask for a smaller output interval;
/// catena simulate splits coarse intervals itself: drivers/output_split.hpp).
///
/// On a distributed model every rank watches its owned bodies and the norms, the mass and the
/// short-pulse test are summed over the ranks: every rank sees the same jump at the same output.
/// There is no probe: every candidate is reported.

#include <functional>
#include <utility>
#include <vector>

#include "assembly/plan.hpp"
#include "core/status.hpp"
#include "model/state.hpp"

namespace catena {

class BranchWatch {
 public:
  static constexpr double kJumpRatio = 5.0;         ///< against the neighbouring intervals' changes
  static constexpr double kJumpFraction = 0.2;      ///< against the speed at the interval's ends
  static constexpr double kRoundoffEnergy = 1e-12;  ///< against the mechanism's energy
  static constexpr double kNegligibleEnergy = 1e-30;  ///< J, whatever the mechanism
  static constexpr double kProbeMargin = 0.25;  ///< the passages' margin (singular_passage.hpp)
  static constexpr int kProbeSamples = 16;      ///< pivots per output interval of a candidate

  /// sum(n, term): the sum over the ranks of term(b) for b < n on each rank, the same on every
  /// rank (parallel/reproducible_sum.hpp).
  using RankSum = std::function<double(Index, const std::function<double(Index)>&)>;

  /// The whole model in one process; every candidate is reported.
  explicit BranchWatch(const Model& model);
  /// The whole model in one process; a candidate is reported only if the probe finds a singular
  /// configuration on its path (C_q from `plan`, which must outlive the watch).
  BranchWatch(const Model& model, const AssemblyPlan& plan);
  /// A rank's part of a distributed model: its bodies [0, owned_bodies) are watched, sums over
  /// the ranks by `sum`; length_scale (m): of the whole model (analysis/scales.hpp). add() is
  /// then collective.
  BranchWatch(const Model& model, Index owned_bodies, double length_scale, RankSum sum);
  /// The next output state (times increasing). false, with status() set, once a jump is seen.
  bool add(const State& s);
  /// Not ok after a jump: between which times, how large, what it means.
  const Status& status() const { return status_; }

 private:
  double norm(const VecX& v) const;
  /// True if a short load pulse may have jumped the velocity in [t0, t1] by itself.
  bool nearShortPulse(double t0, double t1) const;
  /// True without a plan; else whether the path through the outputs kept[first..last] (indices
  /// into kept_, oldest 0) passes a singular configuration.
  bool singularOnPath(int first, int last);

  /// An output kept for the probe.
  struct Kept {
    double t = 0.0;
    VecX q, v;
  };

  int per_ = 0;                   ///< velocity coordinates per body
  Index owned_ = 0;               ///< bodies watched (a rank's owned ones)
  RankSum sum_;                   ///< empty: one process
  VecX weights_;                  ///< sqrt of the kinetic-energy weight of each velocity coordinate
  double potential_scale_ = 0.0;  ///< J: sum m |g| times the length scale
  double kinetic_max_ = 0.0;      ///< J: the largest kinetic energy seen
  std::vector<std::pair<double, double>> pulses_;  ///< [start, end) of the loads' pulses, s
  VecX v_prev_;                                    ///< velocity at the last output
  double t_prev_ = 0.0, speed_prev_ = 0.0;
  int samples_ = 0;
  /// The last two intervals: their start times, velocity changes, and speeds at their ends.
  /// The last three intervals, oldest first: start, end, velocity change, speed.
  double t0_[3] = {}, t1_[3] = {}, change_[3] = {}, speed_[3] = {};
  Status status_;
  // The probe (with a plan only): C_q's rank and smallest retained pivot at the first output
  // (computed at the first candidate), and the last four outputs, oldest first.
  const AssemblyPlan* plan_ = nullptr;
  const Model* model_ = nullptr;
  Kept first_;
  Index start_rank_ = -1;
  double start_pivot_ = 0.0;
  Kept kept_[4];
};

}  // namespace catena
