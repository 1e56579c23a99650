#define BOOST_TEST_MODULE statics
// Static equilibria against closed forms: the paper's pendulum (lower and upper equilibrium,
// and the reported failure without K_c), the catenary chain's constant horizontal tension, a
// spring-hung slider, a driven joint holding a pendulum, a torsion-spring pendulum; the chain
// through a PETSc package against KLU.
#include "statics/statics.hpp"

#include <petscsys.h>

#include <cmath>
#include <iomanip>
#include <sstream>
#include <vector>

#include "analysis/reactions.hpp"
#include "analysis/scales.hpp"
#include "io/yaml_loader.hpp"
#include "model/four_bar_lattice.hpp"
#include "model/generators.hpp"
#include "model/model_builder.hpp"
#include "petsc_fixture.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {

const std::string kInputs = std::string(CATENA_SOURCE_DIR) + "/inputs/";

StaticsResult solve(const Model& m, StaticsOptions o = {}, double t = 0.0) {
  State s = initialState(m);
  s.t = t;
  return solveStatics(m, buildAssemblyPlan(m), s, o);
}

/// The catenary chain of `links` links between its two supports (model/generators.hpp).
Model chainOf(int links) {
  CatenaryChainOptions o;
  o.links = links;
  return buildCatenaryChain(o);
}

Vec3 bodyPosition(const Model& m, const State& s, Index b) {
  return s.q.segment<3>(m.qOffset(b));
}

/// Quarter turn about z: a marker whose x axis (the revolute axis) is the world y axis.
Quat xToY() {
  return Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ()));
}

}  // namespace

BOOST_AUTO_TEST_CASE(pendulum_reaches_the_lower_equilibrium) {
  const Model m = loadMechanismFile(kInputs + "pendulum.yaml").model;
  const StaticsResult r = solve(m);
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_TEST(r.history.size() - 1 <= 10u);
  const double L = 4.0, mass = 15.0, g = 9.81;
  test::checkClose(bodyPosition(m, r.state, 0), Vec3(0, 0, -L), 1e-9, "bob position");
  // The hinge holds the bob up with its weight.
  const auto R = computeJointReactions(m, buildAssemblyPlan(m), r.state.q, 0.0, r.state.lambda);
  test::checkClose(R[0].force_world, Vec3(0, 0, mass * g), 1e-9, "hinge force on the bob");
}

BOOST_AUTO_TEST_CASE(inverted_pendulum_reaches_the_upper_equilibrium) {
  const Model m = loadMechanismFile(kInputs + "pendulum_inverted.yaml").model;
  const StaticsResult r = solve(m);
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  test::checkClose(bodyPosition(m, r.state, 0), Vec3(0, 0, 4.0), 1e-9, "bob position");
  const auto R = computeJointReactions(m, buildAssemblyPlan(m), r.state.q, 0.0, r.state.lambda);
  test::checkClose(R[0].force_world, Vec3(0, 0, 15.0 * 9.81), 1e-9, "rod holds the bob up");
}

// Tangent-stiffness paper, section 4.1: without K_c the pendulum's stiffness is zero and the
// static analysis must fail, loudly.
BOOST_AUTO_TEST_CASE(pendulum_without_constraint_stiffness_reports_singular_tangent) {
  const Model m = loadMechanismFile(kInputs + "pendulum.yaml").model;
  StaticsOptions o;
  o.constraint_stiffness = false;
  const StaticsResult r = solve(m, o);
  BOOST_TEST(!r.status.ok());
  BOOST_TEST(static_cast<int>(r.status.code) == static_cast<int>(Status::Code::kSingular));
  BOOST_TEST(r.status.message.find("singular tangent") != std::string::npos, r.status.message);
  BOOST_TEST(r.status.message.find("K_c") != std::string::npos, r.status.message);
}

// A hanging chain transmits a constant horizontal force: every joint pulls its link with the
// same |H|, and the two supports carry the whole weight vertically.
BOOST_AUTO_TEST_CASE(catenary_chain_has_constant_horizontal_tension) {
  CatenaryChainOptions o;
  o.links = 20;
  const Model m = buildCatenaryChain(o);
  const StaticsResult r = solve(m);
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  const auto R = computeJointReactions(m, buildAssemblyPlan(m), r.state.q, 0.0, r.state.lambda);
  const double H = R[0].force_world.x();
  BOOST_TEST(H < 0.0);  // the support at A pulls link 0 towards -x
  double weight = 0.0;
  for (const Body& b : m.bodies) weight += 9.81 * b.mass;
  for (std::size_t j = 0; j + 1 < R.size(); ++j)
    BOOST_TEST(std::abs(R[j].force_world.x() - H) <= 1e-8 * std::abs(H),
               "joint " << m.joints[j].name << ": " << R[j].force_world.x() << " vs " << H);
  // end_b acts on the last link from the other side.
  BOOST_TEST(std::abs(R.back().force_world.x() + H) <= 1e-8 * std::abs(H));
  const double vertical = R.front().force_world.z() + R.back().force_world.z();
  BOOST_TEST(vertical == weight, boost::test_tools::tolerance(1e-10));
  // Symmetric span: the lowest joint is at mid-chain, x = 5.
  const Vec3 mid =
      r.state.q.segment<3>(m.qOffset(o.links / 2)) +
      Quat(r.state.q(m.qOffset(o.links / 2) + 3), r.state.q(m.qOffset(o.links / 2) + 4),
           r.state.q(m.qOffset(o.links / 2) + 5), r.state.q(m.qOffset(o.links / 2) + 6)) *
          m.markers[m.findMarker("link_10/start")].position;
  BOOST_TEST(mid.x() == 5.0, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(std::abs(mid.y()) < 1e-12);
}

// A batch job told to stop (catena-scale on SIGTERM): stop_requested is asked before every
// Newton iteration with the number done; true ends the iteration there with kInterrupted, the
// iterations done in the history and the last iterate in state, which is where a new run with
// the same options passes on its way to the equilibrium.
BOOST_AUTO_TEST_CASE(a_stop_request_ends_newton_before_its_next_iteration) {
  const Model m = chainOf(20);
  const StaticsResult whole = solve(m);
  BOOST_REQUIRE_MESSAGE(whole.status.ok(), whole.status.message);
  BOOST_REQUIRE(whole.history.size() > 3u);
  std::vector<int> asked;
  StaticsOptions o;
  o.stop_requested = [&asked](int done) {
    asked.push_back(done);
    return done == 2;
  };
  const StaticsResult r = solve(m, o);
  BOOST_TEST((r.status.code == Status::Code::kInterrupted), r.status.message);
  BOOST_TEST(r.status.message.find("after 2 Newton iterations") != std::string::npos,
             r.status.message);
  BOOST_TEST((asked == std::vector<int>{0, 1, 2}));
  BOOST_REQUIRE(r.history.size() == 3u);  // the start and two iterations
  for (std::size_t k = 0; k < r.history.size(); ++k) {
    BOOST_TEST(r.history[k].force_residual == whole.history[k].force_residual);
    BOOST_TEST(r.history[k].position_residual == whole.history[k].position_residual);
  }
  BOOST_TEST(r.state.q.size() == whole.state.q.size());
  BOOST_TEST((r.state.q.array() != whole.state.q.array()).any());  // not yet the equilibrium
}

// The damped Newton iteration from the 'V' must not slow down as the chain is refined: the
// continuum problem is the same at every N. (A residual-merit line search took 6 iterations at
// N = 100 and 26 at N = 10^4; the natural monotonicity test takes the same count at every N.)
BOOST_AUTO_TEST_CASE(chain_newton_iterations_do_not_grow_with_the_number_of_links) {
  std::vector<std::size_t> iterations;
  for (int links : {20, 160, 1280}) {
    const StaticsResult r = solve(chainOf(links));
    BOOST_REQUIRE_MESSAGE(r.status.ok(), "N = " << links << ": " << r.status.message);
    iterations.push_back(r.history.size() - 1);
  }
  BOOST_TEST_MESSAGE("Newton iterations at N = 20, 160, 1280: "
                     << iterations[0] << ", " << iterations[1] << ", " << iterations[2]);
  BOOST_TEST(iterations[2] <= iterations[0] + 1);
  BOOST_TEST(iterations[2] <= 10u);
}

// A 24-level four-bar lattice leaning up to 0.5 rad from hanging (leaningFourBarLattice) reaches
// the hanging equilibrium, every level at angle 0. Without the cap on a step's rotation
// (max_rotation_step) the first damped step left the joints 32 m apart and Newton failed after
// 53 iterations; with it, 10.
BOOST_AUTO_TEST_CASE(leaning_lattice_reaches_hanging) {
  const int levels = 24;
  const Model m = buildFourBarLattice(leaningFourBarLattice(levels, 4, 0.5));
  const StaticsResult r = solve(m);
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_TEST_MESSAGE("leaning lattice: " << r.history.size() - 1 << " Newton iterations");
  BOOST_TEST(r.history.size() - 1 <= 20u);
  const std::vector<double> angles =
      fourBarLatticeLevelAngles(m, r.state.q, static_cast<Index>(m.bodies.size()), levels);
  for (int l = 0; l < levels; ++l) BOOST_TEST(std::abs(angles[l]) <= 1e-9, "level " << l);
  StaticsOptions unlimited;
  unlimited.max_rotation_step = INFINITY;
  BOOST_TEST(!solve(m, unlimited).status.ok());
}

// Through PETSc (UMFPACK) instead of KLU called directly. The multiplier estimate and the Newton
// iterations share one solver, which forgets the estimate's analysis (PCReset) before Newton:
// the equilibrium is KLU's to round-off, in as many iterations.
BOOST_AUTO_TEST_CASE(chain_through_petsc_umfpack_equals_klu) {
  CatenaryChainOptions c;
  c.links = 40;
  const Model m = buildCatenaryChain(c);
  const char* package_option = "-staticsumf_pc_factor_mat_solver_type";
  BOOST_REQUIRE(PetscOptionsSetValue(nullptr, package_option, "umfpack") == 0);
  StaticsOptions o;
  o.petsc_prefix = "staticsumf_";
  const StaticsResult klu = solve(m), umfpack = solve(m, o);
  BOOST_REQUIRE_MESSAGE(klu.status.ok(), klu.status.message);
  BOOST_REQUIRE_MESSAGE(umfpack.status.ok(), umfpack.status.message);
  BOOST_TEST(klu.linear_solver == "klu");
  BOOST_TEST(umfpack.linear_solver == "umfpack");
  BOOST_TEST(umfpack.history.size() == klu.history.size());
  test::checkClose(umfpack.state.q, klu.state.q, 1e-10, "q, umfpack vs klu");
  test::checkClose(umfpack.state.lambda, klu.state.lambda, 1e-9, "lambda, umfpack vs klu");
}

// A slider on a vertical prismatic joint hangs from a spring: extension m g / k.
BOOST_AUTO_TEST_CASE(spring_hung_slider) {
  const double mass = 3.0, k = 500.0, L0 = 0.4, g = 9.81;
  ModelBuilder b(3, "slider");
  b.setGravity(Vec3(0, 0, -g));
  Body body;
  body.name = "slider";
  body.mass = mass;
  body.inertia = Vec3(0.1, 0.1, 0.1).asDiagonal();
  body.position = Vec3(0, 0, -0.2);  // not at equilibrium
  const Index s = b.addBody(body);
  const Quat x_down(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitY()));  // marker x = world -z
  const Index rail = b.addMarker({"rail", kGround, Vec3::Zero(), x_down});
  const Index slide = b.addMarker({"slide", s, Vec3::Zero(), x_down});
  const Index top = b.addMarker({"top", kGround, Vec3(0, 0, 0), Quat::Identity()});
  Joint j;
  j.name = "prismatic";
  j.type = JointType::kPrismatic;
  j.marker1 = slide;
  j.marker2 = rail;
  b.addJoint(j);
  b.addSpring({"spring", slide, top, k, 0.0, L0, 0.0});
  const Model m = b.finalize();
  const StaticsResult r = solve(m);
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_TEST(bodyPosition(m, r.state, 0).z() == -(L0 + mass * g / k),
             boost::test_tools::tolerance(1e-10));
}

// A driven revolute holds a pendulum at the prescribed angle: its torque is m g L sin(theta).
BOOST_AUTO_TEST_CASE(driven_joint_holds_prescribed_angle) {
  const double mass = 2.0, L = 0.5, g = 9.81, t = 0.8;
  ModelBuilder b(3, "held");
  b.setGravity(Vec3(0, 0, -g));
  Body body;
  body.name = "arm";
  body.mass = mass;
  body.inertia = Vec3(0.01, 0.01, 0.01).asDiagonal();
  body.position = Vec3(0, 0, -L);
  const Index a = b.addBody(body);
  Joint j;
  j.name = "motor";
  j.type = JointType::kDrivenRevolute;
  j.marker1 = b.addMarker({"arm/hinge", a, Vec3(0, 0, L), xToY()});
  j.marker2 = b.addMarker({"ground/hinge", kGround, Vec3::Zero(), xToY()});
  j.motion.active = true;
  j.motion.angle = TimeFunction::ramp(0.0, 1.0, 0.0);  // theta = t rad
  b.addJoint(j);
  const Model m = b.finalize();
  const StaticsResult r = solve(m, {}, t);
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  // Rotation about world y by theta takes (0, 0, -L) to (-L sin, 0, -L cos).
  test::checkClose(bodyPosition(m, r.state, 0), Vec3(-L * std::sin(t), 0, -L * std::cos(t)), 1e-10,
                   "arm position");
  const auto R = computeJointReactions(m, buildAssemblyPlan(m), r.state.q, t, r.state.lambda);
  // The motor must cancel gravity's moment about the hinge, (0, -m g L sin, 0), at the body
  // origin; the reaction force acts at the hinge, so compare moments about the hinge.
  const Vec3 moment = R[0].torque_world;
  BOOST_TEST(moment.y() == mass * g * L * std::sin(t), boost::test_tools::tolerance(1e-9));
}

// Planar pendulum with a torsion spring (rest angle 90 deg from hanging): k (theta - theta_r) =
// -m g L sin(theta), solved independently by bisection.
BOOST_AUTO_TEST_CASE(torsion_spring_pendulum_2d) {
  const double mass = 1.5, L = 0.8, g = 9.81, k = 20.0, rest = M_PI / 2;
  ModelBuilder b(2, "torsion");
  b.setGravity(Vec3(0, -g, 0));
  Body body;
  body.name = "bar";
  body.mass = mass;
  body.inertia(2, 2) = 0.0;  // point mass at the body origin
  body.position = Vec3(0.0, -L, 0.0);
  const Index p = b.addBody(body);
  const Index hinge = b.addMarker({"bar/hinge", p, Vec3(0, L, 0), Quat::Identity()});
  const Index pivot = b.addMarker({"ground/pivot", kGround, Vec3::Zero(), Quat::Identity()});
  Joint j;
  j.name = "hinge";
  j.type = JointType::kRevolute;
  j.marker1 = hinge;
  j.marker2 = pivot;
  b.addJoint(j);
  b.addRotationalSpring({"torsion", hinge, pivot, k, 0.0, rest});
  const Model m = b.finalize();
  const StaticsResult r = solve(m);
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  // theta: rotation of the bar from hanging; residual k (theta - rest) + m g L sin(theta) = 0.
  double lo = 0.0, hi = rest;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (k * (mid - rest) + mass * g * L * std::sin(mid) < 0.0 ? lo : hi) = mid;
  }
  BOOST_TEST(r.state.q(2) == 0.5 * (lo + hi), boost::test_tools::tolerance(1e-9));
}

namespace {

/// Two pendulums of the paper's geometry (L = 4 m, from 30 deg), hinged 10 m apart: body 0
/// of `heavy` kg, body 1 of `light` kg; an optional spring of `stiffness` N/m from the light
/// pendulum's hinge to its bob, at its rest length (its line passes through the hinge).
std::string twoPendulums(double heavy, double light, double stiffness = 0.0) {
  std::ostringstream os;
  os << std::setprecision(17) << "name: two_pendulums\ndimension: 3\ngravity: [0, 0, -9.81]\n"
     << "bodies:\n";
  for (int k = 0; k < 2; ++k)
    os << "  - {name: bob" << k << ", mass: " << (k == 0 ? heavy : light)
       << ", inertia: [0, 0, 0], position: [" << -2.0 + 10.0 * k
       << ", 0, -3.4641016151377544], orientation: {axis: [0, 1, 0], angle_deg: 30}}\n";
  os << "markers:\n";
  for (int k = 0; k < 2; ++k)
    os << "  - {name: ground/hinge" << k << ", body: ground, position: [" << 10.0 * k
       << ", 0, 0], orientation: {axis: [0, 0, 1], angle_deg: 90}}\n"
       << "  - {name: bob" << k << "/hinge, body: bob" << k
       << ", position: [0, 0, 4.0], orientation: {axis: [0, 0, 1], angle_deg: 90}}\n"
       << "  - {name: bob" << k << "/centre, body: bob" << k << ", position: [0, 0, 0]}\n";
  os << "joints:\n";
  for (int k = 0; k < 2; ++k)
    os << "  - {name: hinge" << k << ", type: revolute, marker1: bob" << k
       << "/hinge, marker2: ground/hinge" << k << "}\n";
  if (stiffness > 0.0)
    os << "forces:\n  - {name: rod, type: spring, marker1: bob1/centre, marker2: ground/hinge1, "
       << "stiffness: " << stiffness << ", rest_length: 4.0}\n";
  return os.str();
}

/// Angle of pendulum k from the downward vertical, rad.
double angleFromVertical(const Model& m, const State& s, Index k) {
  const Vec3 arm = bodyPosition(m, s, k) - Vec3(10.0 * k, 0, 0);
  return std::atan2(std::abs(arm.x()), -arm.z());
}

}  // namespace

// The force test divided every residual by the largest force in the model: a 1 g pendulum
// beside a 1000 t one "converged after 0 Newton iterations", left at 30 deg. Each body is now
// judged against the forces on it, so both must hang straight down (to the tolerance: a moment
// residual of 1e-9 of the bob's forces times its 4 m size turns it by ~1e-9 rad).
BOOST_AUTO_TEST_CASE(light_pendulum_beside_a_heavy_one_reaches_equilibrium) {
  const Model m = loadMechanismString(twoPendulums(1e6, 1e-3), "two_pendulums").model;
  const StaticsResult r = solve(m);
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_TEST(r.history.size() - 1 >= 3u);
  BOOST_TEST(angleFromVertical(m, r.state, 0) < 1e-8);
  BOOST_TEST(angleFromVertical(m, r.state, 1) < 1e-8);
  BOOST_TEST(r.warnings.empty());
}

// Where statics stops is part of its answer: for the paper's pendulum, and for tolerances from
// loose to below round-off, the bob's angle must be within the tolerance's reach (a few times
// the tolerance: see above), and a tighter tolerance never gives a worse answer. A stopping test
// loosened 10^4 times fails the first check (the iteration stops ~1e-5 rad short).
BOOST_AUTO_TEST_CASE(statics_stops_at_its_tolerance_not_before) {
  const Model m = loadMechanismFile(kInputs + "pendulum.yaml").model;
  double previous = INFINITY;
  for (const double tol : {1e-6, 1e-9, 1e-12, 1e-15, 1e-18}) {
    StaticsOptions o;
    o.force_tolerance = tol;
    o.position_tolerance = tol;
    const StaticsResult r = solve(m, o);
    BOOST_REQUIRE_MESSAGE(r.status.ok(), "tolerance " << tol << ": " << r.status.message);
    const double angle = angleFromVertical(m, r.state, 0);
    BOOST_TEST_MESSAGE("tolerance " << tol << ": " << r.history.size() - 1 << " iterations, angle "
                                    << angle << " rad");
    BOOST_TEST(angle <= 10.0 * std::max(tol, kRoundoffTolerance), "tolerance " << tol);
    BOOST_TEST(angle <= std::max(previous, 1e-15), "tolerance " << tol);
    previous = angle;
  }
}

// The 10^6-link chain's converged state was refused because the test, relative to one link's
// weight, sank below round-off as N grew: the top link carries N weights, and its residual is
// their round-off. Against each link's own forces the test is N-independent; at 2e4 links a
// force tolerance of 1e-13 is within reach (the old test needed ~3e-12) and so is a position
// tolerance of 1e-14 of a link's size.
BOOST_AUTO_TEST_CASE(long_chain_converges_at_a_tolerance_near_round_off) {
  CatenaryChainOptions c;
  c.links = 20000;
  StaticsOptions o;
  o.force_tolerance = 1e-13;
  o.position_tolerance = 1e-14;
  const StaticsResult r = solve(buildCatenaryChain(c), o);
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_TEST(r.history.back().force_residual <= 1e-13);
}

// A spring of 1e20 N/m along the pendulum's rod, at its rest length: its force is 1e20 times
// the round-off of the rod's length (the hinge force came out 32768 N instead of the bob's
// 147 N weight, reported as converged). Round-off cannot resolve this equilibrium: statics must
// say so, by failing with that reason or by a warning beside its answer. At 1e3 N/m all is well
// and nothing is said.
BOOST_AUTO_TEST_CASE(stiff_spring_that_round_off_cannot_resolve_is_reported) {
  for (const double k : {1e3, 1e20}) {
    const Model m = loadMechanismString(twoPendulums(15.0, 15.0, k), "spring").model;
    const StaticsResult r = solve(m);
    BOOST_TEST_CONTEXT("k = " << k) {
      if (k < 1e6) {
        BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
        BOOST_TEST(r.warnings.empty());
        BOOST_TEST(angleFromVertical(m, r.state, 1) < 1e-8);
        continue;
      }
      BOOST_TEST_MESSAGE("k = " << k << ": " << (r.status.ok() ? "converged" : r.status.message));
      BOOST_REQUIRE(!r.warnings.empty());
      BOOST_TEST(r.warnings[0].find("body 'bob1'") != std::string::npos, r.warnings[0]);
      if (!r.status.ok())
        BOOST_TEST(r.status.message.find("round-off") != std::string::npos, r.status.message);
    }
  }
}
