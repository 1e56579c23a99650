#pragma once
/// @file output_split.hpp
/// Which states a `catena simulate` history holds, one process or many
/// (drivers/integrator_choice.hpp for the serial command and Python, drivers/mpi_simulate.cpp under
/// mpirun): outputs coarser than dt are run at dt for the branch watch and written at the requested
/// times only, and an interrupted run's last state ends the history.

#include <cmath>

#include "model/state.hpp"

namespace catena {

/// How many parts each output interval `every` (s) is run in: outputs coarser than dt (s: the
/// command's --dt, generalized-alpha's largest step, 0.01 s by default) are split so that the
/// branch watch sees the motion at that resolution, whatever the outputs and the duration; 1
/// otherwise. Outputs 0.5 s apart put the double four-bar's crank reversal at a crossing between
/// two of them, which the watch cannot tell from a branch switch (every integrator stopped at
/// 2 s); outputs 0.2 s apart (the default t_end / 1000 over 200 s) let Runge-Kutta's run leave
/// the branch at 131.3 s unseen until 134.6 s, with the rows in between written
/// (integrators/branch_watch.hpp).
inline int outputSplit(double every, double dt) {
  if (!(every > dt * (1.0 + 1e-9))) return 1;
  return static_cast<int>(std::ceil(every / dt * (1.0 - 1e-12)));
}

/// The times a split run hands on: t0 + j every and t_end (to 1e-9 of the interval).
struct RequestedOutputs {
  double t0 = 0.0, t_end = 0.0, every = 0.0;
  bool operator()(double t) const {
    const double j = std::round((t - t0) / every);
    return std::abs(t - (t0 + j * every)) <= 1e-9 * every || std::abs(t - t_end) <= 1e-9 * every;
  }
};

/// True if s, where an interrupted run stopped (the end of an accepted step, between outputs),
/// is to end the history: a whole state of m (q, v, lambda sized) after its last row (s).
inline bool endsInterruptedHistory(const Model& m, const State& s, double last_row) {
  return s.t > last_row && s.q.size() == m.nq && s.v.size() == m.nv && s.lambda.size() == m.nc;
}

}  // namespace catena
