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
};

}  // namespace catena::sundials
