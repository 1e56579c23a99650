#define BOOST_TEST_MODULE natural_model
// Natural coordinates (lib/formulations/natural/, docs/natural-coordinates.md): the frame
// matrix U = S R^-1 against the paper's Example 2; the paper's examples read from inputs/natural/
// with the coordinate and equation counts of its Table 4; the closed-chain robot's kinematics
// (consistent configuration, 6 DOF); Mechanism0 and the free top from YAML against the
// hand-written functors of the Lagrangian facility; the AD derivatives of every example against
// central differences; YAML errors naming file and line.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <random>
#include <sstream>

#include "formulations/lagrangian/examples/free_top.hpp"
#include "formulations/lagrangian/examples/mechanism0.hpp"
#include "formulations/lagrangian/lagrangian_ad.hpp"
#include "formulations/natural/natural_mechanism.hpp"
#include "formulations/natural/natural_yaml.hpp"

using namespace catena;
using namespace catena::natural;

namespace {

NaturalInput load(const std::string& stem) {
  return loadNaturalInput(std::string(CATENA_SOURCE_DIR) + "/inputs/natural/" + stem + ".yaml");
}

/// L and C of a model in doubles.
void evaluate(const NaturalModel& m, const VecX& q, const VecX& v, double& L, VecX& C) {
  C.resize(m.nc);
  evaluateNaturalMechanism(m, q, v, L, C);
}

std::mt19937 rng(20240607);
VecX random(Index n, double scale = 1.0) {
  std::uniform_real_distribution<double> u(-scale, scale);
  VecX x(n);
  for (Index i = 0; i < n; ++i) x(i) = u(rng);
  return x;
}

}  // namespace

BOOST_AUTO_TEST_CASE(frame_matrix_matches_paper_example_2) {
  // A, B points, c a vector: A_local = (2, 0, 0), c_local = (sqrt 3, 1, 0).
  const Eigen::Matrix<double, 3, 2> U = computeFrameMatrix(
      3, PvKind::kPoint, PvKind::kVector, Vec3(2, 0, 0), Vec3(std::sqrt(3.0), 1, 0));
  Eigen::Matrix<double, 3, 2> expected;
  expected << -0.5, std::sqrt(3.0) / 2, 0.5, -std::sqrt(3.0) / 2, 0.0, 1.0;
  BOOST_TEST((U - expected).norm() < 1e-15, "U =\n" << U);
  BOOST_CHECK_THROW(
      computeFrameMatrix(3, PvKind::kPoint, PvKind::kPoint, Vec3(1, 0, 0), Vec3(1, 0, 0)), Error);
}

BOOST_AUTO_TEST_CASE(paper_examples_have_table_4_counts) {
  struct Case {
    const char* stem;
    Index nq, nc;
  };
  // RSCR and robot (b): the paper's Table 4 (NPNCs); the others by the construction.
  for (const Case& c : {Case{"mechanism0", 4, 1}, Case{"free_top", 6, 3}, Case{"rscr", 7, 6},
                        Case{"closed_chain_robot", 18, 12}, Case{"bar_double_pendulum", 12, 6},
                        Case{"mechanism0_torque", 5, 2}}) {
    const NaturalInput in = load(c.stem);
    BOOST_TEST(in.model.nq == c.nq, c.stem);
    BOOST_TEST(in.model.nc == c.nc, c.stem);
    BOOST_TEST_MESSAGE(c.stem << ": nq " << in.model.nq << ", nc " << in.model.nc
                              << ", DAE size (GGL 3 nq + 2 nc) "
                              << 3 * in.model.nq + 2 * in.model.nc);
  }
}

BOOST_AUTO_TEST_CASE(closed_chain_robot_is_consistent_with_6_dof) {
  const NaturalInput in = load("closed_chain_robot");
  const NaturalModel& m = in.model;
  VecX C;
  MatX C_q;
  computeNaturalConstraints(m, in.problem.q0, C, C_q);
  BOOST_TEST(C.cwiseAbs().maxCoeff() < 1e-15, "C = " << C.transpose());
  Eigen::FullPivLU<MatX> lu(C_q);
  lu.setThreshold(1e-10);
  BOOST_TEST(lu.rank() == 12);
  BOOST_TEST(m.nq - lu.rank() == 6);
  // Assignments: D = C + B - A (parallelogram), E = C + 0.1 u2 + 0.05 u1.
  const std::vector<Vec3> x = computeNaturalPositions(m, in.problem.q0);
  auto at = [&](const char* name) { return x[static_cast<std::size_t>(m.findPv(name))]; };
  BOOST_TEST((at("u2") - Vec3(0, 1, 0)).norm() < 1e-15);
  BOOST_TEST((at("A") - Vec3(0, 0.15, 0)).norm() < 1e-15);
  BOOST_TEST((at("D") - Vec3(0, -0.15, 0.6)).norm() < 1e-15);
  BOOST_TEST((at("E") - Vec3(0, 0.25, 0.65)).norm() < 1e-15);
  // C_q by AD against central differences at a random q.
  const VecX q = in.problem.q0 + random(m.nq, 0.1);
  computeNaturalConstraints(m, q, C, C_q);
  double worst = 0.0;
  for (Index j = 0; j < m.nq; ++j) {
    const double h = 1e-6;
    VecX qp = q, qm = q, Cp, Cm;
    MatX J;
    qp(j) += h;
    qm(j) -= h;
    computeNaturalConstraints(m, qp, Cp, J);
    computeNaturalConstraints(m, qm, Cm, J);
    worst = std::max(worst, ((Cp - Cm) / (2 * h) - C_q.col(j)).cwiseAbs().maxCoeff());
  }
  BOOST_TEST(worst < 1e-8);
}

BOOST_AUTO_TEST_CASE(mechanism0_and_free_top_equal_the_hand_written_functors) {
  const NaturalInput m0 = load("mechanism0");
  const NaturalInput top = load("free_top");
  double worst_m0 = 0.0, worst_top = 0.0;
  for (int trial = 0; trial < 10; ++trial) {
    // The rod's body kinetic energy equals M/6 |A'|^2 on the manifold |A| = L with A' tangent
    // (off it the frame sees only the tangential part of A').
    const double th = random(1, 3.0)(0);
    VecX q = random(4, 3.0), v = random(4, 2.0);
    q.head(2) = 2.0 * Vec2(std::sin(th), -std::cos(th));
    v.head(2) = v(0) * Vec2(std::cos(th), std::sin(th));
    double L = 0, Lref = 0;
    VecX C, Cref;
    evaluate(m0.model, q, v, L, C);
    lagrangian::evaluateLagrangian(lagrangian::examples::Mechanism0{}, q, v, Lref, Cref);
    worst_m0 = std::max({worst_m0, std::abs(L - Lref), (C - Cref).cwiseAbs().maxCoeff()});
    // Off the constraint manifold too: both use omega = (w.v', u.w', v.u').
    const VecX q6 = random(6), v6 = random(6);
    evaluate(top.model, q6, v6, L, C);
    lagrangian::evaluateLagrangian(lagrangian::examples::FreeTop{}, q6, v6, Lref, Cref);
    worst_top = std::max({worst_top, std::abs(L - Lref), (C - Cref).cwiseAbs().maxCoeff()});
  }
  BOOST_TEST(worst_m0 < 1e-10, "Mechanism0: " << worst_m0);
  BOOST_TEST(worst_top < 1e-12, "free top: " << worst_top);
}

BOOST_AUTO_TEST_CASE(ad_derivatives_match_central_differences) {
  for (const char* stem :
       {"mechanism0", "free_top", "rscr", "bar_double_pendulum", "mechanism0_torque"}) {
    const NaturalInput in = load(stem);
    const auto model = std::make_shared<const NaturalModel>(in.model);
    const auto sys = makeNaturalLagrangianSystem(model);
    const Index n = model->nq, nc = model->nc;
    const VecX q = in.problem.q0 + random(n, 0.05), v = random(n);
    lagrangian::LagrangianSecondOrder d2;
    d2.resize(n, nc);
    sys.evaluateSecond(q, v, d2);
    lagrangian::LagrangianFirstOrder d1;
    d1.resize(n, nc);
    sys.evaluateFirst(q, v, d1);
    const double h = 1e-5;
    double e_first = 0.0, e_second = 0.0, scale = 1.0;
    for (Index j = 0; j < 2 * n; ++j) {
      VecX qp = q, qm = q, vp = v, vm = v;
      (j < n ? qp(j) : vp(j - n)) += h;
      (j < n ? qm(j) : vm(j - n)) -= h;
      double Lp, Lm;
      VecX Cp, Cm;
      evaluate(*model, qp, vp, Lp, Cp);
      evaluate(*model, qm, vm, Lm, Cm);
      const double dL = (Lp - Lm) / (2 * h);
      e_first = std::max(e_first, std::abs(dL - (j < n ? d1.L_q(j) : d1.L_v(j - n))));
      if (j < n)
        e_first = std::max(e_first, ((Cp - Cm) / (2 * h) - d1.C_q.col(j)).cwiseAbs().maxCoeff());
      scale = std::max(scale, std::abs(dL));
      // Second derivatives: differences of the AD gradients.
      lagrangian::LagrangianFirstOrder gp, gm;
      gp.resize(n, nc);
      gm.resize(n, nc);
      sys.evaluateFirst(qp, vp, gp);
      sys.evaluateFirst(qm, vm, gm);
      const VecX dLq = (gp.L_q - gm.L_q) / (2 * h), dLv = (gp.L_v - gm.L_v) / (2 * h);
      if (j < n) {
        e_second = std::max(e_second, (dLq - d2.L_qq.col(j)).cwiseAbs().maxCoeff());
        e_second = std::max(e_second, (dLv - d2.L_qv.row(j).transpose()).cwiseAbs().maxCoeff());
        for (Index i = 0; i < nc; ++i)
          e_second = std::max(e_second, ((gp.C_q.row(i) - gm.C_q.row(i)).transpose() / (2 * h) -
                                         d2.C_qq[static_cast<std::size_t>(i)].col(j))
                                            .cwiseAbs()
                                            .maxCoeff());
      } else {
        e_second = std::max(e_second, (dLv - d2.L_vv.col(j - n)).cwiseAbs().maxCoeff());
      }
    }
    BOOST_TEST_MESSAGE(stem << ": first-order error " << e_first << ", second-order error "
                            << e_second << " (scale " << scale << ")");
    BOOST_TEST(e_first < 1e-6 * scale, stem << ": " << e_first);
    BOOST_TEST(e_second < 1e-5 * scale, stem << ": " << e_second);
    BOOST_TEST(std::abs(d1.L - d2.L) < 1e-14 * std::max(1.0, std::abs(d1.L)));
  }
}

BOOST_AUTO_TEST_CASE(large_model_takes_the_dynamic_ad_path) {
  // nq = 18 > kMaxPaddedNaturalCoordinates: the dynamic-size AD (natural_ad_dynamic_test).
  const NaturalInput in = load("closed_chain_robot");
  const auto sys = makeNaturalLagrangianSystem(std::make_shared<const NaturalModel>(in.model));
  BOOST_TEST(sys.nq == 18);
  BOOST_TEST(sys.nc == 12);
  lagrangian::LagrangianFirstOrder d1;
  d1.resize(sys.nq, sys.nc);
  sys.evaluateFirst(in.problem.q0, VecX::Zero(sys.nq), d1);
  VecX C;
  MatX C_q;
  computeNaturalConstraints(in.model, in.problem.q0, C, C_q);
  BOOST_TEST((d1.C - C).cwiseAbs().maxCoeff() == 0.0);
  BOOST_TEST((d1.C_q - C_q).cwiseAbs().maxCoeff() == 0.0);
}

BOOST_AUTO_TEST_CASE(yaml_errors_name_file_and_line) {
  struct Bad {
    const char* text;
    int line;
    const char* needle;
  };
  const std::string head = "formulation: natural\ndimension: 2\nfixed:\n  O: {point: [0, 0]}\n";
  const std::string tail = "problem:\n  positions: {A: [1, 0]}\n";
  for (const Bad& b : {
           Bad{"moving:\n  A: point\nbodies:\n  OA: {basis: [O, X], geometry: [[1]]}\n", 8,
               "'X' is not defined"},
           Bad{"moving:\n  A: pointt\n", 6, "must be 'point' or 'vector'"},
           Bad{"moving:\n  A: point\nbodies:\n  OA: {basis: [O, A], geometry: [[1]], mas: 1}\n", 8,
               "unknown key 'mas'"},
           Bad{"moving:\n  A: point\nbodies:\n  OA: {basis: [A, O], geometry: [[0]]}\n", 8,
               "r11 != 0"},
           Bad{"moving:\n  A: point\nparticles:\n  A: -1\n", 8, "mass must be > 0"},
           Bad{"moving:\n  A: point\nbodies:\n  OA: {basis: [O, A], geometry: [[1]]}\n"
               "angles:\n  th: {body: OB}\n",
               10, "'OB' is not a body"},
           Bad{"moving:\n  A: point\nbodies:\n  OA: {basis: [O, A], geometry: [[1]]}\n"
               "angles:\n  th: {body: OA}\n  th2: {body: OA, torque: 1}\n",
               11, "already has the angle 'th'"},
           Bad{"moving:\n  A: point\nbodies:\n  OA: {basis: [O, A], geometry: [[1]]}\n"
               "angles:\n  th: {body: OA, torque: x}\n",
               10, "must be a finite number"},
       }) {
    std::istringstream in(head + b.text + tail);
    try {
      readNaturalInput(in, "bad.yaml");
      BOOST_ERROR("no error for: " << b.text);
    } catch (const InputError& e) {
      BOOST_TEST(e.line() == b.line, e.what());
      BOOST_TEST(std::string(e.what()).find(b.needle) != std::string::npos, e.what());
      BOOST_TEST(std::string(e.what()).find("bad.yaml:") == 0, e.what());
    }
  }
}
