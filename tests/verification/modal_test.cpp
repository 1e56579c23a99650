#define BOOST_TEST_MODULE modal
// Modes at static equilibria: the paper's pendulum (eigenvalues +-i sqrt(g/L) below the hinge,
// +-sqrt(g/L) above it), against closed forms.
#include "modal/modal.hpp"
#include "modal/modal_system.hpp"

#include <cmath>
#include <complex>
#include <numbers>

#include "assembly/assemble.hpp"
#include "io/yaml_loader.hpp"
#include "model/generators.hpp"
#include "model/model_builder.hpp"
#include "statics/statics.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <algorithm>
#include <fstream>
#include <sstream>
#include "petsc_fixture.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {

const std::string kInputs = std::string(CATENA_SOURCE_DIR) + "/inputs/";

/// The modes of model m at the equilibrium statics finds from its initial state.
ModalResult modesOf(const Model& m, const ModalOptions& o) {
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const StaticsResult eq = solveStatics(m, plan, initialState(m));
  BOOST_REQUIRE_MESSAGE(eq.status.ok(), eq.status.message);
  return solveModal(m, plan, eq.state, o);
}

ModalResult modesAtEquilibrium(const std::string& file, ModalOptions o = {}) {
  return modesOf(loadMechanismFile(kInputs + file).model, o);
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

namespace {

/// Lowest undamped frequencies (Hz) by a second route that does not touch PETSc or SLEPc: a
/// dense orthonormal basis N of the null space of C_q (SVD), then the dense generalized
/// eigenproblem N^T K_t N x = mu N^T M N x.
std::vector<double> denseNullSpaceFrequencies(const Model& m, const State& eq, int count) {
  const AssemblyPlan plan = buildAssemblyPlan(m);
  SparseMatrixCSR Cq = makeConstraintMatrix(plan), K = makeBodyMatrix(plan),
                  D = makeBodyMatrix(plan), Kc = makeBodyMatrix(plan), M = makeBodyMatrix(plan);
  assembleConstraints(m, plan, eq.q, eq.t, nullptr, &Cq);
  assembleForceJacobians(m, plan, eq.q, eq.v, eq.t, nullptr, K, D);
  assembleConstraintStiffness(m, plan, eq.q, eq.t, eq.lambda, Kc);
  assembleMass(m, plan, eq.q, M);
  Eigen::JacobiSVD<MatX> svd(MatX(Cq), Eigen::ComputeFullV);
  const auto& sv = svd.singularValues();
  int rank = 0;
  for (Eigen::Index i = 0; i < sv.size(); ++i) rank += sv(i) > 1e-10 * sv(0);
  const MatX N = svd.matrixV().rightCols(m.nv - rank);
  const MatX Kr = N.transpose() * (MatX(K) + MatX(Kc)) * N, Mr = N.transpose() * MatX(M) * N;
  Eigen::GeneralizedEigenSolver<MatX> ges(Kr, Mr);
  std::vector<double> f;
  for (Eigen::Index i = 0; i < ges.eigenvalues().size(); ++i) {
    const std::complex<double> mu = ges.eigenvalues()(i);
    BOOST_TEST(std::abs(mu.imag()) <= 1e-8 * std::abs(mu));  // conservative: real spectrum
    f.push_back(std::sqrt(mu.real()) / (2 * M_PI));
  }
  std::sort(f.begin(), f.end());
  f.resize(count);
  return f;
}

}  // namespace

// Two routes to the chain's lowest frequencies: SLEPc on the augmented pencil, and a dense
// solve on the null space of C_q.
BOOST_AUTO_TEST_CASE(chain_frequencies_agree_with_dense_null_space_solve) {
  CatenaryChainOptions co;
  co.links = 12;
  NodeChainOptions no;
  no.nodes_per_leg = 6;
  for (int variant = 0; variant < 2; ++variant) {
    const Model m = variant == 0 ? buildCatenaryChain(co) : [&] {
      ModelBuilder b(3, "node_chain");
      b.setGravity(Vec3(0, 0, -9.81));
      addNodeChain(b, no);
      return b.finalize();
    }();
    const AssemblyPlan plan = buildAssemblyPlan(m);
    const StaticsResult eq = solveStatics(m, plan, initialState(m));
    BOOST_REQUIRE_MESSAGE(eq.status.ok(), eq.status.message);
    ModalOptions o;
    o.modes = 6;
    const ModalResult r = solveModal(m, plan, eq.state, o);
    BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
    const std::vector<double> dense = denseNullSpaceFrequencies(m, eq.state, o.modes);
    for (int k = 0; k < o.modes; ++k)
      BOOST_TEST(r.modes[k].frequency_hz == dense[k], boost::test_tools::tolerance(1e-8));
  }
}

// The same input gives the same modes, shapes and signs on every run.
BOOST_AUTO_TEST_CASE(modes_are_deterministic) {
  CatenaryChainOptions co;
  co.links = 10;
  const Model m = buildCatenaryChain(co);
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const StaticsResult eq = solveStatics(m, plan, initialState(m));
  BOOST_REQUIRE(eq.status.ok());
  const ModalResult a = solveModal(m, plan, eq.state), b = solveModal(m, plan, eq.state);
  BOOST_REQUIRE_EQUAL(a.modes.size(), b.modes.size());
  for (std::size_t k = 0; k < a.modes.size(); ++k) {
    BOOST_TEST(a.modes[k].s == b.modes[k].s);
    BOOST_TEST(test::bitwiseEqual(a.modes[k].shape_re, b.modes[k].shape_re));
  }
}

// Tangent-stiffness paper, Table 3 and Fig. 5: the anchor chain as its authors build it.
BOOST_AUTO_TEST_CASE(anchor_chain_reproduces_table_3) {
  const double table3[] = {0.240, 0.309, 0.504, 0.551};  // Hz
  const char* direction[] = {"out-of-plane", "in-plane", "in-plane", "out-of-plane"};
  const bool bending[] = {false, false, true, true};
  ModalOptions o;
  o.modes = 4;
  const ModalResult r = modesAtEquilibrium("anchor_chain.yaml", o);
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_REQUIRE_EQUAL(r.modes.size(), 4u);
  for (int k = 0; k < 4; ++k) {
    BOOST_TEST(std::abs(r.modes[k].frequency_hz - table3[k]) <= 0.01 * table3[k],
               "mode " << k + 1 << ": " << r.modes[k].frequency_hz << " Hz vs " << table3[k]);
    BOOST_TEST(r.modes[k].direction == direction[k]);
    BOOST_TEST((r.modes[k].nodes > 0) == bending[k], "mode " << k + 1 << " nodes");
  }
}

// A slider on a prismatic joint with a spring-damper: s = -c/2m +- i sqrt(k/m - (c/2m)^2),
// through the damped (first-order) pencil.
BOOST_AUTO_TEST_CASE(damped_oscillator_matches_closed_form) {
  const double mass = 2.0, k = 800.0, c = 12.0;
  ModelBuilder b(3, "damped");
  Body body;
  body.name = "slider";
  body.mass = mass;
  body.inertia = Vec3(0.1, 0.1, 0.1).asDiagonal();
  body.position = Vec3(1.0, 0, 0);
  const Index s = b.addBody(body);
  Joint j;
  j.name = "rail";
  j.type = JointType::kPrismatic;  // slides along x
  j.marker1 = b.addMarker({"slider/rail", s, Vec3::Zero(), Quat::Identity()});
  j.marker2 = b.addMarker({"ground/rail", kGround, Vec3(1.0, 0, 0), Quat::Identity()});
  b.addJoint(j);
  b.addSpring({"spring", j.marker1,
               b.addMarker({"ground/anchor", kGround, Vec3::Zero(), Quat::Identity()}), k, c, 1.0,
               0.0});
  const Model m = b.finalize();
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const StaticsResult eq = solveStatics(m, plan, initialState(m));
  BOOST_REQUIRE_MESSAGE(eq.status.ok(), eq.status.message);
  ModalOptions o;
  o.modes = 1;
  const ModalResult r = solveModal(m, plan, eq.state, o);
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_TEST(r.damped);
  const double sigma = c / (2 * mass), wd = std::sqrt(k / mass - sigma * sigma);
  BOOST_TEST(r.modes[0].s.real() == -sigma, boost::test_tools::tolerance(1e-8));
  BOOST_TEST(r.modes[0].s.imag() == wd, boost::test_tools::tolerance(1e-8));
  BOOST_TEST(r.modes[0].damping_ratio == sigma / std::sqrt(k / mass),
             boost::test_tools::tolerance(1e-8));
}

namespace {

std::string readInput(const std::string& file) {
  std::ifstream in(kInputs + file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ModalResult modesOfText(const std::string& text, ModalOptions o) {
  return modesOf(loadMechanismString(text, "test").model, o);
}

}  // namespace

// The pencil of a one-DOF pendulum has one finite eigenvalue; the others are infinite and live
// in the multipliers. Asked for four modes (the CLI's default), it returned three that do not
// exist (2036 Hz, damping +-0.707) as success. It must return the one mode and say why.
BOOST_AUTO_TEST_CASE(pendulum_has_one_mode_however_many_are_asked) {
  for (const bool damped : {false, true}) {
    ModalOptions o;
    o.modes = 4;
    o.damped = damped;
    const ModalResult r = modesAtEquilibrium("pendulum.yaml", o);
    BOOST_TEST_CONTEXT("damped " << damped) {
      BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
      BOOST_TEST(r.dof == 1);
      BOOST_TEST(r.requested == 4);
      BOOST_REQUIRE_EQUAL(r.modes.size(), 1u);
      BOOST_TEST(r.note.find("1 degree of freedom") != std::string::npos, r.note);
      BOOST_TEST(r.modes[0].s.imag() == std::sqrt(9.81 / 4.0), boost::test_tools::tolerance(1e-6));
      BOOST_TEST(std::abs(r.modes[0].s.real()) < 1e-9);
    }
  }
}

// With its revolute turned into a fix the pendulum cannot move: no modes at all (it printed
// four, every one of them spurious).
BOOST_AUTO_TEST_CASE(zero_dof_model_has_no_modes) {
  std::string text = readInput("pendulum.yaml");
  const auto at = text.find("type: revolute");
  BOOST_REQUIRE(at != std::string::npos);
  text.replace(at, std::string("type: revolute").size(), "type: fix");
  for (const bool damped : {false, true}) {
    ModalOptions o;
    o.damped = damped;
    const ModalResult r = modesOfText(text, o);
    BOOST_TEST_CONTEXT("damped " << damped) {
      BOOST_TEST(r.status.ok(), r.status.message);
      BOOST_TEST(r.dof == 0);
      BOOST_TEST(r.modes.empty());
      BOOST_TEST(r.note.find("0 degrees of freedom") != std::string::npos, r.note);
    }
  }
}

// Without the limit to the DOF the eigensolver returns, for the pendulum, the one mode and
// three eigenpairs of the multiplier space (2036 Hz, damping +-0.707): each of those must be
// rejected, and the run must fail, since it did not find the modes asked for.
BOOST_AUTO_TEST_CASE(eigenpairs_of_the_multiplier_space_are_rejected) {
  for (const bool damped : {false, true}) {
    ModalOptions o;
    o.modes = 4;
    o.damped = damped;
    o.limit_to_dof = false;
    const ModalResult r = modesAtEquilibrium("pendulum.yaml", o);
    BOOST_TEST_CONTEXT("damped " << damped) {
      BOOST_TEST(!r.status.ok());
      BOOST_TEST(r.rejected >= 1);
      BOOST_REQUIRE_EQUAL(r.modes.size(), 1u);
      BOOST_TEST(r.modes[0].s.imag() == std::sqrt(9.81 / 4.0), boost::test_tools::tolerance(1e-6));
    }
  }
}

// inputs/README.md: an independent thin-rod model of the 20-link catenary chain gives 0.2435,
// 0.3225, 0.4428, 0.5789 Hz, out-of-plane bending below in-plane bending (modes 1 and 3
// out-of-plane, 2 and 4 in-plane). Its values are given to 4 digits: agreement within 6e-5 Hz.
BOOST_AUTO_TEST_CASE(catenary_chain_agrees_with_the_thin_rod_model) {
  ModalOptions o;
  o.modes = 4;
  const ModalResult r = modesAtEquilibrium("catenary_chain.yaml", o);
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_REQUIRE_EQUAL(r.modes.size(), 4u);
  const double thin_rod[] = {0.2435, 0.3225, 0.4428, 0.5789};
  const char* direction[] = {"out-of-plane", "in-plane", "out-of-plane", "in-plane"};
  for (int k = 0; k < 4; ++k) {
    BOOST_TEST(std::abs(r.modes[k].frequency_hz - thin_rod[k]) <= 6e-5,
               "mode " << k + 1 << ": " << r.modes[k].frequency_hz << " Hz");
    BOOST_TEST(r.modes[k].direction == direction[k]);
  }
}

// The classification of mode shapes (direction, nodes) off the x-z plane: the same chain hung in
// the y-z plane and in a vertical plane at 45 deg has the same frequencies and the same
// directions (out-of-plane, in-plane, ...) and node counts as in the x-z plane.
BOOST_AUTO_TEST_CASE(mode_classification_does_not_depend_on_the_chain_plane) {
  auto modes = [](const Vec3& horizontal) {
    CatenaryChainOptions c;
    c.end_b = 10.0 * horizontal;
    c.sag_point = 5.0 * horizontal + Vec3(0, 0, -6);
    ModalOptions o;
    o.modes = 4;
    const ModalResult r = modesOf(buildCatenaryChain(c), o);
    BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
    BOOST_REQUIRE_EQUAL(r.modes.size(), 4u);
    return r;
  };
  const ModalResult xz = modes(Vec3::UnitX()), yz = modes(Vec3::UnitY()),
                    tilted = modes(Vec3(1, 1, 0).normalized());
  for (const ModalResult* r : {&yz, &tilted})
    for (int k = 0; k < 4; ++k) {
      BOOST_TEST(r->modes[k].frequency_hz == xz.modes[k].frequency_hz,
                 boost::test_tools::tolerance(1e-9));
      BOOST_TEST(r->modes[k].direction == xz.modes[k].direction);
      BOOST_TEST(r->modes[k].nodes == xz.modes[k].nodes);
    }
  BOOST_TEST(xz.modes[0].direction == "out-of-plane");
  BOOST_TEST(xz.modes[1].direction == "in-plane");
}

// In 2D: a planar pendulum hanging at rest swings along x with no node, at sqrt(g/L).
BOOST_AUTO_TEST_CASE(planar_pendulum_mode_is_classified_in_2d) {
  const double L = 2.0, g = 9.81;
  ModelBuilder b(2, "planar_pendulum");
  b.setGravity(Vec3(0, -g, 0));
  Body bob;
  bob.name = "bob";
  bob.mass = 1.0;
  bob.position = Vec3(0, -L, 0);
  const Index body = b.addBody(bob);
  Joint j;
  j.name = "hinge";
  j.type = JointType::kRevolute;
  j.marker1 = b.addMarker({"bob/hinge", body, Vec3(0, L, 0), Quat::Identity()});
  j.marker2 = b.addMarker({"ground/hinge", kGround, Vec3::Zero(), Quat::Identity()});
  b.addJoint(j);
  const ModalResult r = modesOf(b.finalize(), {});
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_TEST(r.dof == 1);
  BOOST_REQUIRE_EQUAL(r.modes.size(), 1u);
  BOOST_TEST(r.modes[0].direction == "x");
  BOOST_TEST(r.modes[0].nodes == 0);
  BOOST_TEST(r.modes[0].s.imag() == std::sqrt(g / L), boost::test_tools::tolerance(1e-9));
}

// A damped mode's shape comes in whatever complex phase the eigensolver chose; its direction and
// node count must not depend on it. The catenary chain's four lowest modes, each turned by
// phases that put its motion partly or wholly into the imaginary part, with round-off of 1e-10
// of its size added to both parts, classify as the real modes do. (The real part alone named
// the damped pendulum's swing after the wrong axis on one machine: the eigensolver's phase had
// put its motion into the imaginary part, and the real part was round-off.)
BOOST_AUTO_TEST_CASE(mode_classification_does_not_depend_on_the_phase) {
  const Model m = buildCatenaryChain({});
  ModalOptions o;
  o.modes = 4;
  const ModalResult r = modesOf(m, o);
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  const StaticsResult eq = solveStatics(m, buildAssemblyPlan(m), initialState(m));  // the q of r
  ModalSystem sys;
  sys.model = &m;
  sys.owned_bodies = static_cast<Index>(m.bodies.size());
  sys.q = &eq.state.q;
  const Vec3 normal = planeNormal(sys);
  for (const Mode& real : r.modes)
    for (const double phase : {0.3, 1.2, 0.5 * std::numbers::pi, 2.9}) {
      const Index n = real.shape_re.size();
      const double noise = 1e-10 * real.shape_re.cwiseAbs().maxCoeff();
      Eigen::VectorXcd shape = std::polar(1.0, phase) * real.shape_re.cast<std::complex<double>>();
      for (Index k = 0; k < n; ++k)
        shape(k) += noise * std::complex<double>(std::sin(1.7 * static_cast<double>(k) + 0.4),
                                                 std::cos(2.3 * static_cast<double>(k)));
      Mode turned = real;
      turned.shape_re = shape.real();
      turned.shape_im = shape.imag();
      turned.direction.clear();
      turned.nodes = -1;
      classify(sys, normal, turned);
      BOOST_TEST(turned.direction == real.direction, "phase " << phase);
      BOOST_TEST(turned.nodes == real.nodes, "phase " << phase);
    }
}
