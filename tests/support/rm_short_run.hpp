#pragma once
/// @file rm_short_run.hpp
/// The rotation-matrix paper's double pendulum, and the short run of an rm integrator on it that
/// the integrators' unit tests (also their leak checks under the sanitizers) share.

#include <cmath>

#include "formulations/rotation_matrix/rm_assembly.hpp"
#include "formulations/rotation_matrix/rm_model.hpp"
#include "formulations/rotation_matrix/rm_run.hpp"
#include "test_support.hpp"

namespace catena::test {

/// The paper's double pendulum: bars of 0.108 kg, 0.20 x 0.02 x 0.01 m, phi0 = pi/9, psi0 = pi/18,
/// g = 9.81 m/s^2.
inline rm::RmModel paperDoublePendulum() {
  return rm::buildRmDoublePendulum(0.108, 0.20, 0.02, 0.01, M_PI / 9, M_PI / 18, 9.81);
}

struct RmShortRun {
  rm::RmModel model = paperDoublePendulum();
  rm::RmState initial = rm::initialRmState(model);
  rm::RmRunResult result;
  double energy_change = 0.0;  ///< |E(end) - E(0)|, J
};

/// Sets o to 0.1 s with output every 0.05 s and runs integrate(model, initial, o, observer) on
/// the paper's double pendulum; requires success and 3 observer calls (t = 0, 0.05, 0.1).
template <typename Options, typename Integrate>
RmShortRun shortRmRun(Options& o, Integrate&& integrate) {
  RmShortRun run;
  o.t_end = 0.1;
  o.output_interval = 0.05;
  int calls = 0;
  run.result =
      integrate(run.model, run.initial, o, [&](const rm::RmState&) { return ++calls > 0; });
  BOOST_REQUIRE_MESSAGE(run.result.status.ok(), run.result.status.message);
  BOOST_TEST(calls == 3);
  const double E0 = rm::computeRmEnergy(run.model, run.initial.q, run.initial.v).total();
  run.energy_change =
      std::abs(rm::computeRmEnergy(run.model, run.result.state.q, run.result.state.v).total() - E0);
  return run;
}

}  // namespace catena::test
