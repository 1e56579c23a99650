#pragma once
/// @file output_times.hpp
/// The SUNDIALS layer (context.hpp): the output times of a run that stops at each of them (the
/// Lagrangian and rotation-matrix drivers). Internal to lib/integrators and lib/formulations.

#include <algorithm>

namespace catena::sundials {

/// Output times t0 + k dt (s), k = 1, 2, ..., the last one t_end; with dt = 0 every step is an
/// output and the integrator is told t_end.
struct OutputTimes {
  double t0 = 0.0, t_end = 0.0, dt = 0.0;
  long k = 0;  ///< outputs handed out so far
  /// The next output time (the stop time of the next advance).
  double next() { return dt > 0.0 ? std::min(t_end, t0 + static_cast<double>(++k) * dt) : t_end; }

  /// Advances a run from t to the next output time tout: set_stop(tout), then
  /// step(tout, &tret, to_output), to_output false (one step) if dt = 0. Returns the flag of
  /// the call that failed (set_stop: nonzero; step: < 0), t unchanged then, or step's; t
  /// becomes tout (dt > 0) or tret (dt = 0).
  template <class SetStop, class Step>
  int advance(double& t, SetStop&& set_stop, Step&& step) {
    const double tout = next();
    int flag = set_stop(tout);
    if (flag != 0) return flag;
    double tret = t;
    flag = step(tout, &tret, dt > 0.0);
    if (flag >= 0) t = dt > 0.0 ? tout : tret;
    return flag;
  }
};

}  // namespace catena::sundials
