#pragma once
/// @file output_split.hpp
/// Outputs coarser than `catena simulate`'s default resolution, run at that resolution for the
/// branch watch and written at the requested times only (drivers/integrator_choice.hpp, the
/// serial command and Python; drivers/mpi_simulate.cpp under mpirun).

#include <algorithm>
#include <cmath>

namespace catena {

/// How many parts each output interval `every` (s) of a run of `duration` s is run in: outputs
/// coarser than the command's default, max(dt, duration / 1000), are split so that the branch
/// watch sees the motion at that resolution (a singular configuration passed between two outputs
/// 0.5 s apart looks like a branch switch to it: integrators/branch_watch.hpp); 1 otherwise.
inline int outputSplit(double every, double dt, double duration) {
  const double finest = std::max(dt, duration / 1000.0);
  if (!(every > finest * (1.0 + 1e-9))) return 1;
  return static_cast<int>(std::ceil(every / finest * (1.0 - 1e-12)));
}

/// The times a split run hands on: t0 + j every and t_end (to 1e-9 of the interval).
struct RequestedOutputs {
  double t0 = 0.0, t_end = 0.0, every = 0.0;
  bool operator()(double t) const {
    const double j = std::round((t - t0) / every);
    return std::abs(t - (t0 + j * every)) <= 1e-9 * every || std::abs(t - t_end) <= 1e-9 * every;
  }
};

}  // namespace catena
