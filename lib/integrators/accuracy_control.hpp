#pragma once
/// @file accuracy_control.hpp
/// Integration to a requested global accuracy (issue 29, item 3; docs/accuracy.md): the local
/// error tolerance that integrators control does not bound the global error (IDA and the
/// explicit Runge-Kutta pairs land at 0.1-12 rtol times the mechanism's size on the standard
/// problems, generalized-alpha at 1e3-1e5 its tolerance). integrateToAccuracy runs one
/// integrator at tolerances tol_0 = accuracy / 10, tol_0 / 10, tol_0 / 100, ..., each run's
/// steps at most half the largest step of the run before (so that two runs whose steps the
/// output times bound do not repeat each other's error), and compares consecutive runs at every
/// output time: the first pair whose largest difference d (body positions, and rotations times
/// the length scale) is at most accuracy times the length scale ends it, and the tighter run of
/// that pair is delivered. If the tighter run at least halves the global error (tolerance
/// proportionality; the tests check it against references), its error is at most d, which is
/// reported as its estimate.

#include <functional>
#include <vector>

#include "assembly/plan.hpp"
#include "integrators/dynamics.hpp"

namespace catena {

struct AccuracyOptions {
  /// Wanted global error of positions over the run, relative to the mechanism's length scale
  /// (analysis/scales.hpp lengthScale), in (0, 0.1].
  double accuracy = 1e-4;
  int max_runs = 6;  ///< integrations in all (the ladder's length); reaching it is a failure
};

/// One integration at local tolerance `tolerance` (the integrator's rtol) with steps of at most
/// max_step s (0: no limit), calling `observer` at t0 and at fixed output times (the same for
/// every tolerance).
using ToleranceRun = std::function<DynamicsResult(double tolerance, double max_step,
                                                  const TrajectoryObserver& observer)>;

struct AccuracyResult {
  DynamicsResult dynamics;          ///< of the delivered run (the others' statistics are not added)
  double estimated_error = 0.0;     ///< m: d of the last pair compared
  double length_scale = 0.0;        ///< m
  std::vector<double> tolerances;   ///< of the runs made, in order
  std::vector<double> differences;  ///< m, d between runs k and k + 1
  double delivered_tolerance = 0.0;
};

/// Runs `run` down the ladder as above and hands the delivered run's outputs to `observer`
/// afterwards (every output of every run is kept in memory until then: output_interval
/// times nq doubles per run). A failed run ends the ladder with its Status; no pair within
/// max_runs ends it with kNotConverged naming the differences reached. Throws catena::Error
/// if accuracy is outside (0, 0.1] or two runs give different output times.
AccuracyResult integrateToAccuracy(const Model& model, const AccuracyOptions& options,
                                   const ToleranceRun& run, const TrajectoryObserver& observer);

/// The largest difference between two states' configurations: body positions (m) and rotation
/// angles times `length` (m).
double configurationDistance(const Model& model, const State& a, const State& b, double length);

}  // namespace catena
