#define BOOST_TEST_MODULE spinning_lattice
// Issue 28, item 2, beyond the double four-bar: a merged four-bar lattice (3 levels of 4 cells,
// one coupler per level, 9 redundant rows) spinning without gravity. Every crank keeps turning
// at -1 rad/s: the kinetic energy depends on the levels' angles only through their differences,
// so equal angles and rates leave no generalized force, and theta(t) = pi/2 - t exactly. At
// t = pi/2 every crank is horizontal: a singular configuration of every cell at once, where
// C_q loses rank and the cells could fold. Each integrator and formulation must reach 3.5 s on the
// parallelogram branch with every crank (all 15) within its bound of the closed form, and past
// t = pi, where the cranks are vertical again and rows kept at a selection next to the crossing
// may have turned dependent (IDA at 1e-10 selects again there); the
// bounds are 2.5x to 5x the errors measured on 2026-11-27, which came after the minimum-norm
// steps of the initial-state assembly left dependent rows out (solvers/sparse_qr.hpp): before,
// MCS at rtol 1e-10 ended 5e-3 rad off and IDA index 1 0.1 rad off after their bridges.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <functional>
#include <numbers>
#include <string>
#include <tuple>

#include "integrators/generalized_alpha.hpp"
#include "integrators/ida_dynamics.hpp"
#include "integrators/initial_state.hpp"
#include "integrators/mcs_passages.hpp"
#include "integrators/rk_dynamics.hpp"
#include "model/four_bar_lattice.hpp"
#include "petsc_fixture.hpp"

using namespace catena;

namespace {

constexpr double kEnd = 3.5;  // s: a crossing at pi/2, vertical cranks again at pi

struct Spinning {
  Model model;
  AssemblyPlan plan;
  State start;
  Spinning() {
    FourBarLatticeOptions o;
    o.levels = 3;
    o.cells = 4;
    o.merged_couplers = true;
    o.crank_angle = std::numbers::pi / 2;
    o.crank_rate = -1.0;
    model = buildFourBarLattice(o);
    model.gravity.setZero();
    plan = buildAssemblyPlan(model);
    const InitialStateResult r = assembleInitialState(model, plan, initialState(model));
    BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
    start = r.state;
  }
  /// Largest |theta - (pi/2 - t)| over the cranks (angles modulo 2 pi).
  double error(const State& s) const {
    double worst = 0.0;
    for (Index b = 0; b < static_cast<Index>(model.bodies.size()); ++b) {
      if (model.bodies[b].name.rfind("crank", 0) != 0) continue;
      const double theta = s.q(model.qOffset(b) + 2);
      worst = std::max(worst, std::abs(std::remainder(theta - (std::numbers::pi / 2 - s.t),
                                                      2 * std::numbers::pi)));
    }
    return worst;
  }
};

/// Runs `integrate` (observer in, status out) and checks the end time and the worst error of
/// every output against `bound`; returns that error.
double check(const std::string& name, double bound,
             const std::function<Status(const TrajectoryObserver&, State&)>& integrate) {
  const Spinning lattice;
  double worst = 0.0;
  State last;
  const Status st = integrate(
      [&](const State& s) {
        worst = std::max(worst, lattice.error(s));
        return true;
      },
      last);
  BOOST_TEST_MESSAGE(name << ": largest error " << worst << " rad (bound " << bound << ")");
  BOOST_TEST(st.ok(), name << ": " << st.message);
  BOOST_TEST(last.t == kEnd, name << " reached t = " << last.t);
  BOOST_TEST(worst <= bound, name << ": " << worst << " rad off the closed form");
  return worst;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_integrator_spins_through_the_crossing) {
  for (const auto& [formulation, name, rtol, bound] :
       {std::tuple{IdaFormulation::kIndex2, "IDA index 2, rtol 1e-8", 1e-8, 3e-6},
        std::tuple{IdaFormulation::kIndex2, "IDA index 2, rtol 1e-10", 1e-10, 1e-6},
        std::tuple{IdaFormulation::kIndex1, "IDA index 1, rtol 1e-8", 1e-8, 1.5e-8},
        std::tuple{IdaFormulation::kIndex3, "IDA index 3, rtol 1e-10", 1e-10, 2e-6}}) {
    check(name, bound, [&](const TrajectoryObserver& observer, State& last) {
      const Spinning lattice;
      IdaOptions o;
      o.formulation = formulation;
      o.t_end = kEnd;
      o.output_interval = 0.05;
      o.rtol = rtol;
      o.atol = 1e-2 * rtol;
      const IdaResult r = integrateIda(lattice.model, lattice.plan, lattice.start, o, observer);
      last = r.state;
      return r.status;
    });
  }
  // A tighter tolerance never gives a worse answer.
  double previous = 1.0;
  for (const auto& [name, tolerance, bound] :
       {std::tuple{"generalized-alpha, tolerance 1e-6", 1e-6, 3e-4},
        std::tuple{"generalized-alpha, tolerance 1e-8", 1e-8, 2e-5}}) {
    const double error = check(name, bound, [&](const TrajectoryObserver& observer, State& last) {
      const Spinning lattice;
      GeneralizedAlphaOptions o;
      o.t_end = kEnd;
      o.output_interval = 0.05;
      o.error_tolerance = tolerance;
      const DynamicsResult r =
          integrateGeneralizedAlpha(lattice.model, lattice.plan, lattice.start, o, observer);
      last = r.state;
      return r.status;
    });
    BOOST_TEST(error <= previous, name << " is worse than the looser tolerance");
    previous = error;
  }
  previous = 1.0;
  for (const auto& [name, rtol, bound] :
       {std::tuple{"MCS, rtol 1e-8", 1e-8, 2e-9}, std::tuple{"MCS, rtol 1e-10", 1e-10, 5e-10}}) {
    const double error = check(name, bound, [&](const TrajectoryObserver& observer, State& last) {
      const Spinning lattice;
      McsOptions o;
      o.t_end = kEnd;
      o.output_interval = 0.05;
      o.rtol = rtol;
      o.atol = 1e-2 * rtol;
      const McsResult r =
          integrateMcsWithPassages(lattice.model, lattice.plan, lattice.start, o,
                                   [&](const State& s, const McsSample&) { return observer(s); });
      last = r.dynamics.state;
      return r.dynamics.status;
    });
    BOOST_TEST(error <= previous, name << " is worse than the looser tolerance");
    previous = error;
  }
  // Runge-Kutta (index 1 with projection) meets the linear closed form to round-off
  // (7e-13 and 4e-13 rad measured), so its bounds are round-off's and no trend is asserted.
  for (const auto& [name, rtol] : {std::tuple{"Runge-Kutta Verner 6(5), rtol 1e-8", 1e-8},
                                   std::tuple{"Runge-Kutta Verner 6(5), rtol 1e-10", 1e-10}}) {
    check(name, 3e-12, [&](const TrajectoryObserver& observer, State& last) {
      const Spinning lattice;
      RkOptions o;
      o.t_end = kEnd;
      o.output_interval = 0.05;
      o.rtol = rtol;
      o.atol = 1e-2 * rtol;
      const RkResult r =
          integrateRungeKutta(lattice.model, lattice.plan, lattice.start, o, observer);
      last = r.state;
      return r.status;
    });
  }
}
