#include "integrators/accuracy_control.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "analysis/scales.hpp"
#include "core/check.hpp"

namespace catena {

double configurationDistance(const Model& model, const State& a, const State& b, double length) {
  double d = 0.0;
  for (Index i = 0; i < static_cast<Index>(model.bodies.size()); ++i) {
    const Index o = model.qOffset(i);
    if (model.dimension == 3) {
      d = std::max(d, (a.q.segment<3>(o) - b.q.segment<3>(o)).norm());
      const Quat ra(a.q(o + 3), a.q(o + 4), a.q(o + 5), a.q(o + 6));
      const Quat rb(b.q(o + 3), b.q(o + 4), b.q(o + 5), b.q(o + 6));
      d = std::max(d, length * ra.normalized().angularDistance(rb.normalized()));
    } else {
      d = std::max(d, (a.q.segment<2>(o) - b.q.segment<2>(o)).norm());
      d = std::max(d, length * std::abs(a.q(o + 2) - b.q(o + 2)));
    }
  }
  return d;
}

namespace {

struct Recorded {
  DynamicsResult result;
  std::vector<State> states;
};

/// Largest configurationDistance over the output times of two runs (same times required).
double trajectoryDistance(const Model& model, const Recorded& a, const Recorded& b, double length) {
  CATENA_CHECK(a.states.size() == b.states.size(), "accuracy control: two runs gave "
                                                       << a.states.size() << " and "
                                                       << b.states.size() << " outputs");
  double d = 0.0;
  for (std::size_t k = 0; k < a.states.size(); ++k) {
    const double scale = std::max(1.0, std::abs(a.states[k].t));
    CATENA_CHECK(std::abs(a.states[k].t - b.states[k].t) <= 1e-12 * scale,
                 "accuracy control: output " << k << " at t = " << a.states[k].t << " and "
                                             << b.states[k].t << " s");
    d = std::max(d, configurationDistance(model, a.states[k], b.states[k], length));
  }
  return d;
}

}  // namespace

AccuracyResult integrateToAccuracy(const Model& model, const AccuracyOptions& o,
                                   const ToleranceRun& run, const TrajectoryObserver& observer) {
  CATENA_CHECK(o.accuracy > 0.0 && o.accuracy <= 0.1,
               "accuracy must be in (0, 0.1] (a global position error relative to the "
               "mechanism's size), got "
                   << o.accuracy);
  CATENA_CHECK(o.max_runs >= 2, "accuracy control needs max_runs >= 2");
  AccuracyResult out;
  out.length_scale = lengthScale(model);
  const double wanted = o.accuracy * out.length_scale;
  double max_step = 0.0;
  auto integrate = [&](double tol) {
    Recorded r;
    r.result = run(tol, max_step, [&](const State& s) {
      r.states.push_back(s);
      return true;
    });
    out.tolerances.push_back(tol);
    max_step = 0.5 * r.result.stats.largest_step;
    return r;
  };
  auto deliver = [&](const Recorded& r, double tol) {
    out.dynamics = r.result;
    out.delivered_tolerance = tol;
    for (const State& s : r.states)
      if (observer && !observer(s)) break;
    return out;
  };
  double tol = 0.1 * o.accuracy;
  Recorded previous = integrate(tol);
  if (!previous.result.status.ok()) return deliver(previous, tol);
  while (static_cast<int>(out.tolerances.size()) < o.max_runs) {
    tol *= 0.1;
    Recorded next = integrate(tol);
    if (!next.result.status.ok()) return deliver(next, tol);
    const double d = trajectoryDistance(model, previous, next, out.length_scale);
    out.differences.push_back(d);
    out.estimated_error = d;
    if (d <= wanted) return deliver(next, tol);
    previous = std::move(next);
  }
  std::ostringstream os;
  os << "accuracy control: no two runs within " << o.max_runs << " agreed to the accuracy "
     << o.accuracy << " (" << wanted << " m); differences between consecutive tolerances:";
  for (std::size_t k = 0; k < out.differences.size(); ++k)
    os << " " << out.tolerances[k] << " -> " << out.tolerances[k + 1] << ": " << out.differences[k]
       << " m;";
  os << " the last run is delivered";
  AccuracyResult failed = deliver(previous, tol);
  failed.dynamics.status = Status::failure(Status::Code::kNotConverged, os.str());
  return failed;
}

}  // namespace catena
