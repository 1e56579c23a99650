/// @file slider_crank_test.cpp
/// The spatial slider-crank of the projection-continuation paper (section 3.2, the IFToMM
/// benchmark; inputs/spatial_slider_crank.yaml): one degree of freedom, conservative. Its
/// figures are lost from the paper text, so the check is between two integrators that share only
/// the assembly — SUNDIALS IDA (BDF, stabilized index 2) and generalized-alpha with error control
/// (one-step, index 3) — plus energy conservation and the closure of the loop.
#define BOOST_TEST_MODULE slider_crank
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <vector>

#include "analysis/energy.hpp"
#include "assembly/assemble.hpp"
#include "integrators/generalized_alpha.hpp"
#include "integrators/ida_dynamics.hpp"
#include "integrators/initial_state.hpp"
#include "io/yaml_loader.hpp"
#include "kernels/pose.hpp"
#include "petsc_fixture.hpp"

using namespace catena;

namespace {

constexpr double kEnd = 2.0, kInterval = 0.01;  // s

struct Sample {
  double t, slider_x;
  Vec3 b;  ///< the crank pin B
  double energy;
};

}  // namespace

BOOST_AUTO_TEST_CASE(ida_and_generalized_alpha_agree_and_conserve_energy) {
  const Model m =
      loadMechanismFile(std::string(CATENA_SOURCE_DIR) + "/inputs/spatial_slider_crank.yaml").model;
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const InitialStateResult init = assembleInitialState(m, plan, initialState(m));
  BOOST_REQUIRE_MESSAGE(init.status.ok(), init.status.message);
  BOOST_TEST(m.nv - init.rank == 1);  // one degree of freedom, no redundant rows
  BOOST_TEST(init.rank == m.nc);
  const Index block = m.findBody("block"), pin = m.findMarker("crank/B");

  std::vector<Sample> runs[2];
  auto recorder = [&](std::vector<Sample>& out) {
    return [&, &out = out](const State& s) {
      out.push_back({s.t, s.q(m.qOffset(block)), markerPosition(m, s.q.data(), pin),
                     computeEnergy(m, plan, s).total()});
      return true;
    };
  };
  IdaOptions ida;
  ida.t_end = kEnd;
  ida.output_interval = kInterval;
  ida.rtol = 1e-10;
  ida.atol = 1e-12;
  const DynamicsResult a = integrateIda(m, plan, init.state, ida, recorder(runs[0]));
  BOOST_REQUIRE_MESSAGE(a.status.ok(), a.status.message);
  // Generalized-alpha at two error tolerances: its distance to IDA's solution must shrink as
  // the tolerance tightens (it converges to the same motion) and its energy error with it.
  const double kinetic = computeEnergy(m, plan, init.state).kinetic;
  double distance[2], energy[2], travel = 0.0;
  for (int k = 0; k < 2; ++k) {
    runs[1].clear();
    GeneralizedAlphaOptions ga;
    ga.t_end = kEnd;
    ga.output_interval = kInterval;
    ga.step = 1e-2;
    ga.error_tolerance = k == 0 ? 1e-7 : 1e-9;
    const DynamicsResult b = integrateGeneralizedAlpha(m, plan, init.state, ga, recorder(runs[1]));
    BOOST_REQUIRE_MESSAGE(b.status.ok(), b.status.message);
    BOOST_REQUIRE(runs[0].size() == runs[1].size());
    distance[k] = energy[k] = 0.0;
    double ida_energy = 0.0;
    for (std::size_t i = 0; i < runs[0].size(); ++i) {
      const Sample &p = runs[0][i], &q = runs[1][i];
      BOOST_REQUIRE(std::abs(p.t - q.t) < 1e-12);
      distance[k] = std::max({distance[k], std::abs(p.slider_x - q.slider_x), (p.b - q.b).norm()});
      energy[k] = std::max(energy[k], std::abs(q.energy - runs[1][0].energy) / kinetic);
      ida_energy = std::max(ida_energy, std::abs(p.energy - runs[0][0].energy) / kinetic);
      travel = std::max(travel, std::abs(p.slider_x - runs[0][0].slider_x));
    }
    BOOST_TEST_MESSAGE("slider-crank, 2 s, generalized-alpha tolerance "
                       << ga.error_tolerance << ": " << b.stats.steps << " steps, distance to IDA "
                       << distance[k] << " m, energy error " << energy[k] << " (IDA: " << ida_energy
                       << ", " << a.stats.steps << " steps) of the initial kinetic energy");
    BOOST_TEST(ida_energy < 1e-6);
  }
  BOOST_TEST(travel > 0.05);  // the mechanism really moves (slider travel, m)
  BOOST_TEST(distance[1] < 0.2 * distance[0]);
  BOOST_TEST(energy[1] < 0.2 * energy[0]);
  BOOST_TEST(distance[1] < 1e-5);  // m, on a 0.3 m rod
}
