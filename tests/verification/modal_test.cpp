#define BOOST_TEST_MODULE modal
// Modes at static equilibria: the paper's pendulum (eigenvalues +-i sqrt(g/L) below the hinge,
// +-sqrt(g/L) above it), against closed forms.
#include "analysis/modal.hpp"

#include <cmath>

#include "analysis/statics.hpp"
#include "io/yaml_loader.hpp"
#include "petsc_fixture.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {

const std::string kInputs = std::string(CATENA_SOURCE_DIR) + "/inputs/";

ModalResult modesAtEquilibrium(const std::string& file, ModalOptions o = {}) {
  const Model m = loadMechanismFile(kInputs + file).model;
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const StaticsResult eq = solveStatics(m, plan, initialState(m));
  BOOST_REQUIRE_MESSAGE(eq.status.ok(), eq.status.message);
  return solveModal(m, plan, eq.state, o);
}

}  // namespace

BOOST_AUTO_TEST_CASE(pendulum_oscillates_at_sqrt_g_over_l) {
  ModalOptions o;
  o.modes = 1;
  const ModalResult r = modesAtEquilibrium("pendulum.yaml", o);
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_REQUIRE_EQUAL(r.modes.size(), 1u);
  const double w = std::sqrt(9.81 / 4.0);  // 1.566 rad/s (paper, section 4.1)
  BOOST_TEST(std::abs(r.modes[0].s.real()) < 1e-9);
  BOOST_TEST(r.modes[0].s.imag() == w, boost::test_tools::tolerance(1e-6));
}

BOOST_AUTO_TEST_CASE(inverted_pendulum_has_a_real_pair) {
  ModalOptions o;
  o.modes = 1;
  const ModalResult r = modesAtEquilibrium("pendulum_inverted.yaml", o);
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  const double w = std::sqrt(9.81 / 4.0);
  BOOST_TEST(std::abs(r.modes[0].s.imag()) < 1e-9);
  BOOST_TEST(r.modes[0].s.real() == w, boost::test_tools::tolerance(1e-6));
}
