// Statics and modes of over-constrained mechanisms (statics/redundant_statics.hpp): the
// double four-bar with its two couplers merged into one bar (12 rows, rank 11) and the double
// four-bar in 3D with full revolutes about z (35 rows, rank 29) against the double four-bar
// with two couplers in the plane, an independent model of the same mechanism without
// redundant rows: the same equilibrium (cranks straight down, the closed form of a
// parallelogram hanging under gravity), the same total ground reaction (the weight) and the
// same mode.

#define BOOST_TEST_MODULE redundant_statics
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <numbers>
#include <vector>

#include "analysis/reactions.hpp"
#include "modal/modal.hpp"
#include "model/four_bar_lattice.hpp"
#include "model/model_builder.hpp"
#include "petsc_fixture.hpp"
#include "statics/redundant_statics.hpp"

using namespace catena;

namespace {

constexpr double kStart = -std::numbers::pi / 2 + 0.4;  // cranks 0.4 rad off hanging

FourBarLatticeOptions doubleFourBarOptions(bool merged) {
  FourBarLatticeOptions o;
  o.crank_angle = kStart;
  o.levels = 1;
  o.cells = 2;
  o.merged_couplers = merged;
  return o;
}

Model planarDoubleFourBar(bool merged) {
  return buildFourBarLattice(doubleFourBarOptions(merged));
}

Model spatialDoubleFourBar() {
  ModelBuilder builder(3, "double_four_bar_3d");
  builder.setGravity(Vec3(0.0, -9.81, 0.0));
  addFourBarLattice(builder, doubleFourBarOptions(false));
  return builder.finalize();
}

struct Outcome {
  StaticsWithIndependentRows statics;
  ModalResult modes;
  double ground_force_y = 0.0, weight = 0.0;
  std::vector<double> cranks;  ///< angles of the three cranks at the equilibrium, rad
};

Outcome analyse(const Model& m) {
  const AssemblyPlan plan = buildAssemblyPlan(m);
  Outcome out;
  out.statics = solveStaticsWithIndependentRows(m, plan, initialState(m));
  const StaticsResult& st = out.statics.result;
  BOOST_REQUIRE_MESSAGE(st.status.ok(), st.status.message);
  BOOST_REQUIRE_EQUAL(st.state.lambda.size(), m.nc);
  // The ground joints' vertical force on the mechanism, from the multipliers of every row.
  const std::vector<JointReaction> R =
      computeJointReactions(m, plan, st.state.q, 0.0, st.state.lambda);
  for (std::size_t j = 0; j < m.joints.size(); ++j) {
    const Joint& J = m.joints[j];
    if (m.markerBody(J.marker2) == kGround)
      out.ground_force_y += R[j].force_world.y();
    else if (m.markerBody(J.marker1) == kGround)
      out.ground_force_y -= R[j].force_world.y();
  }
  for (const Body& b : m.bodies) out.weight += b.mass * 9.81;
  for (const char* name : {"crank_0_0", "crank_0_1", "crank_0_2"}) {
    const Index b = m.findBody(name);
    BOOST_REQUIRE(b >= 0);
    const VecX& q = st.state.q;
    if (m.dimension == 2) {
      out.cranks.push_back(q(m.qOffset(b) + 2));
    } else {  // the rotation about z of the body's unit quaternion (w, x, y, z)
      const Index o = m.qOffset(b) + 3;
      out.cranks.push_back(2.0 * std::atan2(q(o + 3), q(o)));
    }
  }
  ModalOptions mo;
  mo.modes = 1;
  if (out.statics.rows) {
    State s = st.state;
    s.lambda = out.statics.reduced_lambda;
    const Model& reduced = out.statics.rows->model;
    out.modes = solveModal(reduced, buildAssemblyPlan(reduced), s, mo);
  } else {
    out.modes = solveModal(m, plan, st.state, mo);
  }
  BOOST_REQUIRE_MESSAGE(out.modes.status.ok(), out.modes.status.message);
  BOOST_REQUIRE_EQUAL(out.modes.modes.size(), 1u);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(redundant_models_hang_and_swing_as_the_model_without_redundancy) {
  const Outcome plain = analyse(planarDoubleFourBar(false));
  BOOST_TEST(plain.statics.result.redundant_rows.empty());
  BOOST_TEST(!plain.statics.rows.has_value());
  struct Case {
    const char* name;
    Model model;
    std::size_t rows_left_out;
  };
  for (const Case& c : {Case{"merged couplers", planarDoubleFourBar(true), 1u},
                        Case{"3D with full revolutes", spatialDoubleFourBar(), 6u}}) {
    const Outcome o = analyse(c.model);
    BOOST_TEST(o.statics.result.redundant_rows.size() == c.rows_left_out, c.name);
    BOOST_REQUIRE(o.statics.rows.has_value());
    for (std::size_t k = 0; k < 3; ++k) {
      // Cranks straight down (closed form), as the model without redundant rows.
      BOOST_TEST(std::abs(std::remainder(o.cranks[k] + std::numbers::pi / 2,
                                         2 * std::numbers::pi)) <= 1e-9,
                 c.name << ": crank " << k << " at " << o.cranks[k]);
      BOOST_TEST(
          std::abs(std::remainder(o.cranks[k] - plain.cranks[k], 2 * std::numbers::pi)) <= 1e-9,
          c.name);
    }
    // The ground carries the weight, from the minimum-norm multipliers of every row.
    BOOST_TEST(std::abs(o.ground_force_y - o.weight) <= 1e-9 * o.weight,
               c.name << ": ground " << o.ground_force_y << " N, weight " << o.weight << " N");
    BOOST_TEST(std::abs(o.weight - plain.weight) <= 1e-12 * plain.weight, c.name);
    // The one mode: the parallelogram's swing, at the same frequency.
    const double f = o.modes.modes[0].natural_frequency_hz,
                 f0 = plain.modes.modes[0].natural_frequency_hz;
    BOOST_TEST(f0 > 0.1);
    BOOST_TEST(std::abs(f - f0) <= 1e-8 * f0, c.name << ": " << f << " Hz against " << f0 << " Hz");
  }
}

// A start at a singular configuration is not a redundancy: the double four-bar with its cranks
// horizontal has a dependent row there only. Its statics fails and names the row it left out,
// never reporting another mechanism's equilibrium.
BOOST_AUTO_TEST_CASE(a_singular_start_is_not_taken_for_redundancy) {
  FourBarLatticeOptions o = doubleFourBarOptions(false);
  o.crank_angle = 0.0;
  const Model m = buildFourBarLattice(o);
  const StaticsWithIndependentRows r =
      solveStaticsWithIndependentRows(m, buildAssemblyPlan(m), initialState(m));
  BOOST_TEST(!r.result.status.ok());
  BOOST_TEST(!r.result.redundant_rows.empty());
  BOOST_TEST(r.result.status.message.find("left out as redundant") != std::string::npos,
             r.result.status.message);
}
