#include "integrators/mcs_passages.hpp"

#include <map>
#include <optional>
#include <sstream>

#include "assembly/assemble.hpp"
#include "integrators/singular_passage.hpp"
#include "mobility/tangent_continuation.hpp"

namespace catena {
namespace {

/// The sample at a bridge's output s: the factorization there, its basis signed to follow
/// `previous` column by column, q' = T^T v, q advanced by the trapezoid rule.
McsSample bridgeSample(const Model& model, const AssemblyPlan& plan, const State& s,
                       const McsSample& previous, double rank_tolerance) {
  SparseMatrixCSR Cq = makeConstraintMatrix(plan);
  assembleConstraints(model, plan, s.q, s.t, nullptr, &Cq);
  const Index rank = previous.rank > 0 ? previous.rank : -1;
  const TangentFactors F = factorTangent(MatX(Cq), rank_tolerance, rank);
  McsSample x;
  x.t = s.t;
  x.T = F.T;
  x.rank = F.rank;
  x.r1_diagonal = F.r1_diagonal;
  if (x.T.cols() == previous.T.cols() && x.T.rows() == previous.T.rows())
    for (Index k = 0; k < x.T.cols(); ++k)
      if (x.T.col(k).dot(previous.T.col(k)) < 0.0) x.T.col(k) *= -1.0;
  x.qdot = x.T.transpose() * s.v;
  x.q = previous.q;
  if (x.q.size() == x.qdot.size() && previous.qdot.size() == x.qdot.size())
    x.q += 0.5 * (s.t - previous.t) * (previous.qdot + x.qdot);
  return x;
}

}  // namespace

McsResult integrateMcsWithPassages(const Model& model, const AssemblyPlan& plan,
                                   const State& initial, const McsOptions& o,
                                   const McsObserver& observer) {
  const PassageOptions passage = passageOptions(o.rtol, o.output_interval);
  McsResult out;
  bool first = true;
  // The samples of MCS outputs not yet forwarded (outputs reach the observer late), by time,
  // with the segment that made them: each segment integrates its minimal coordinates from 0,
  // so a segment's are shifted to continue the last sample forwarded (trapezoid rule).
  std::map<double, std::pair<int, McsSample>> samples;
  std::optional<McsSample> last;
  int segments = 0, last_segment = -1;
  double start_pivot = -1.0;  // the first sample's smallest retained relative pivot
  VecX offset;
  const TrajectoryObserver forward = [&](const State& s) {
    const auto it = samples.find(s.t);
    McsSample x;
    if (it == samples.end()) {
      x = bridgeSample(model, plan, s, last ? *last : McsSample{}, o.rank_tolerance);
      last_segment = -1;
    } else {
      x = it->second.second;
      if (it->second.first != last_segment) {
        offset = VecX::Zero(x.q.size());
        if (last && last->q.size() == x.q.size() && last->qdot.size() == x.qdot.size())
          offset = last->q + 0.5 * (x.t - last->t) * (last->qdot + x.qdot) - x.q;
        last_segment = it->second.first;
      }
      if (offset.size() == x.q.size()) x.q += offset;
    }
    samples.erase(samples.begin(), samples.upper_bound(s.t));
    last = x;
    return !observer || observer(s, x);
  };
  out.dynamics = withSingularPassages<DynamicsResult>(
      model, plan, initial, o.t_end, passage, forward,
      [&](const State& start, bool resumed, double t_end, const TrajectoryObserver& segment) {
        McsOptions part = o;
        part.t_end = t_end;
        const int id = segments++;
        if (resumed) part.assemble_initial_state = true;  // the bridge's velocities drift
        // Tighter than the bridge, MCS hands every crossing to it: its own steps shrink next to
        // one (1e-13 s at rtol 1e-10) and each adds an error there (the double four-bar at 1e-10
        // ended 6.6e-7 m off against 7.5e-8 at 1e-8, benchmarks/results/singular_passage.md).
        // The pivot comes with every sample (McsSample::smallestRetainedPivot).
        const bool hand_over = o.rtol < passage.mcs_tolerance;
        std::optional<State> approached;
        McsResult r =
            integrateMcs(model, plan, start, part, [&](const State& s, const McsSample& x) {
              samples[s.t] = {id, x};
              if (hand_over) {
                const double p = x.smallestRetainedPivot();
                if (start_pivot < 0.0) start_pivot = p;
                if (p < passage.margin * start_pivot && !(resumed && s.t == start.t)) {
                  approached = s;
                  return false;
                }
              }
              return segment(s);
            });
        if (approached) {
          std::ostringstream os;
          os << "MCS at rtol " << o.rtol
             << " approached a singular configuration at t = " << approached->t
             << " s and hands it to a bridge at rtol " << passage.mcs_tolerance
             << " (its own steps next to a crossing lose accuracy)";
          r.dynamics.status = Status::failure(Status::Code::kNotConverged, os.str());
          r.dynamics.state = *approached;
        }
        // A failed segment's outputs not yet forwarded are either dropped (a bridge takes over
        // from an earlier output) or forwarded as they are; their samples, possibly past the
        // branch switch, are not kept for a bridge's outputs at the same times.
        if (!r.dynamics.status.ok())
          std::erase_if(samples, [&](const auto& entry) { return entry.second.first == id; });
        const McsStats& a = r.mcs;
        McsStats& b = out.mcs;
        b.rhs_evaluations += a.rhs_evaluations;
        b.output_evaluations += a.output_evaluations;
        b.factorizations += a.factorizations;
        b.corrections += a.corrections;
        b.correction_iterations += a.correction_iterations;
        b.flips += a.flips;
        b.seconds_rhs += a.seconds_rhs;
        b.seconds_factorization += a.seconds_factorization;
        b.seconds_continuation += a.seconds_continuation;
        b.seconds_correction += a.seconds_correction;
        out.singular_events.insert(out.singular_events.end(), r.singular_events.begin(),
                                   r.singular_events.end());
        if (first) {
          out.rank = r.rank;
          out.dof = r.dof;
          first = false;
        }
        return r.dynamics;
      });
  return out;
}

}  // namespace catena
