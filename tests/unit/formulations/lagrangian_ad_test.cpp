#define BOOST_TEST_MODULE lagrangian_ad
// The Lagrangian facility's algorithmic differentiation (formulations/lagrangian/
// lagrangian_ad.hpp) against central differences of the plain-double evaluation, at seeded
// random (q, v), on every example mechanism: dL/dq, dL/dv, C_q from the first-order sweep;
// L_qq, L_qv, L_vv and the constraint Hessians from the nested sweep. Then two physics oracles:
// Mechanism0's Cartesian Lagrangian composed with the (theta, r, phi) chart gives the paper's
// mass matrix and the hand-derived forces of the reference ODE (mechanism0_reference.hpp), and
// the free top's Lagrangian is the rigid-body kinetic energy of a rotation at Omega.
#include <cmath>

#include "formulations/lagrangian/examples/free_top.hpp"
#include "formulations/lagrangian/examples/mechanism0.hpp"
#include "formulations/lagrangian/lagrangian_ad.hpp"
#include "lagrangian_examples.hpp"
#include "mechanism0_reference.hpp"
#include "test_support.hpp"

using namespace catena;
using namespace catena::lagrangian;

namespace {

constexpr double kStep = 1e-6;

void randomPoint(test::Random& rnd, Index n, VecX& q, VecX& v) {
  q.resize(n);
  v.resize(n);
  for (Index i = 0; i < n; ++i) {
    q(i) = rnd.uniform(0.3, 1.5) * (rnd.uniform() < 0 ? -1.0 : 1.0);
    v(i) = rnd.uniform(-2.0, 2.0);
  }
}

/// Central differences of the first-order evaluation: gradients (L, C) and Hessians.
void checkSystem(const LagrangianSystem& sys, unsigned seed) {
  BOOST_TEST_MESSAGE("system " << sys.name);
  test::Random rnd(seed);
  const Index n = sys.nq, m = sys.nc;
  LagrangianFirstOrder d1, dp, dm;
  LagrangianSecondOrder d2;
  d1.resize(n, m);
  dp.resize(n, m);
  dm.resize(n, m);
  d2.resize(n, m);
  for (int trial = 0; trial < 3; ++trial) {
    VecX q, v;
    randomPoint(rnd, n, q, v);
    sys.evaluateFirst(q, v, d1);
    sys.evaluateSecond(q, v, d2);
    VecX fdLq(n), fdLv(n);
    MatX fdCq(m, n), fdLqq(n, n), fdLqv(n, n), fdLvv(n, n), fdLvq(n, n);
    std::vector<MatX> fdCqq(static_cast<std::size_t>(m), MatX(n, n));
    for (Index j = 0; j < n; ++j) {
      for (int which = 0; which < 2; ++which) {  // 0: q_j, 1: v_j
        VecX qp = q, qm = q, vp = v, vm = v;
        (which == 0 ? qp : vp)(j) += kStep;
        (which == 0 ? qm : vm)(j) -= kStep;
        sys.evaluateFirst(qp, vp, dp);
        sys.evaluateFirst(qm, vm, dm);
        const double dL = (dp.L - dm.L) / (2 * kStep);
        const VecX gq = (dp.L_q - dm.L_q) / (2 * kStep), gv = (dp.L_v - dm.L_v) / (2 * kStep);
        if (which == 0) {
          fdLq(j) = dL;
          fdCq.col(j) = (dp.C - dm.C) / (2 * kStep);
          fdLqq.col(j) = gq;
          fdLvq.col(j) = gv;  // d(L_v)/dq_j
          for (Index i = 0; i < m; ++i)
            fdCqq[static_cast<std::size_t>(i)].col(j) =
                (dp.C_q.row(i) - dm.C_q.row(i)).transpose() / (2 * kStep);
        } else {
          fdLv(j) = dL;
          fdLqv.col(j) = gq;  // d(L_q)/dv_j
          fdLvv.col(j) = gv;
        }
      }
    }
    // Central differences lose ~eps |f| / h: scale the tolerance by the differenced function
    // (Mechanism0's stiff spring makes |L| ~ 1e3).
    const double tolL = 1e-7 * std::max(1.0, std::abs(d1.L));
    const double tolG =
        1e-7 * std::max({1.0, d1.L_q.cwiseAbs().maxCoeff(), d1.L_v.cwiseAbs().maxCoeff()});
    test::checkClose(d1.L_q, fdLq, tolL, sys.name + ": dL/dq");
    test::checkClose(d1.L_v, fdLv, tolL, sys.name + ": dL/dv");
    test::checkClose(d1.C_q, fdCq, 1e-7, sys.name + ": C_q");
    test::checkClose(d2.L_qq, fdLqq, tolG, sys.name + ": L_qq");
    test::checkClose(d2.L_qv, fdLqv, tolG, sys.name + ": L_qv");
    test::checkClose(d2.L_qv.transpose(), fdLvq, tolG, sys.name + ": L_vq");
    test::checkClose(d2.L_vv, fdLvv, tolG, sys.name + ": L_vv");
    for (Index i = 0; i < m; ++i)
      test::checkClose(d2.C_qq[static_cast<std::size_t>(i)], fdCqq[static_cast<std::size_t>(i)],
                       1e-7, sys.name + ": C_qq[" + std::to_string(i) + "]");
    // The nested sweep's first-order parts equal the first-order sweep's.
    BOOST_TEST(std::abs(d2.L - d1.L) <= 1e-14 * std::max(1.0, std::abs(d1.L)));
    test::checkClose(d2.L_q, d1.L_q, 1e-14, sys.name + ": nested L_q");
    test::checkClose(d2.L_v, d1.L_v, 1e-14, sys.name + ": nested L_v");
    test::checkClose(d2.C, d1.C, 1e-14, sys.name + ": nested C");
    test::checkClose(d2.C_q, d1.C_q, 1e-14, sys.name + ": nested C_q");
  }
}

/// Mechanism0's Cartesian Lagrangian seen through the chart (theta, r, phi) -> (A, B).
struct Mechanism0Chart {
  static constexpr int nq = 3, nc = 0;
  examples::Mechanism0 cartesian;
  template <class S>
  void operator()(const LVec<S, 3>& q, const LVec<S, 3>& qd, S& L, LVec<S, 0>&) const {
    using std::cos;
    using std::sin;
    const S th = q(0), r = q(1), ph = q(2);
    const double Lr = cartesian.L;
    LVec<S, 4> x, xd;
    x << Lr * sin(th), -Lr * cos(th), Lr * sin(th) + r * sin(ph), -Lr * cos(th) - r * cos(ph);
    xd << Lr * cos(th) * qd(0), Lr * sin(th) * qd(0),
        Lr * cos(th) * qd(0) + sin(ph) * qd(1) + r * cos(ph) * qd(2),
        Lr * sin(th) * qd(0) - cos(ph) * qd(1) + r * sin(ph) * qd(2);
    LVec<S, 1> C;
    C(0) = S(0.0);
    cartesian(x, xd, L, C);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(ad_derivatives_match_central_differences_on_every_example) {
  unsigned seed = 11;
  for (const LagrangianSystem& sys : test::lagrangianExamples()) checkSystem(sys, seed++);
}

BOOST_AUTO_TEST_CASE(mechanism0_chart_gives_the_papers_mass_matrix_and_the_reference_forces) {
  const Mechanism0Chart chart{};
  const reference::Mechanism0Params P{};
  const LagrangianSystem sys = makeLagrangianSystem(chart, "Mechanism0 (theta, r, phi)");
  LagrangianSecondOrder d;
  d.resize(3, 0);
  test::Random rnd(5);
  for (int trial = 0; trial < 5; ++trial) {
    const Vec3 q(rnd.uniform(-2, 2), rnd.uniform(0.5, 1.5), rnd.uniform(-2, 2));
    const Vec3 qd = rnd.vec3(2.0);
    sys.evaluateSecond(q, qd, d);
    test::checkClose(d.L_vv, reference::mechanism0MassMatrix(P, q), 1e-13, "mass matrix");
    test::checkClose(d.L_q, reference::mechanism0Force(P, q, qd), 1e-12, "dL/dq");
    // Momentum p = M(q) q' (the paper's sec. 4.1.2).
    test::checkClose(d.L_v, reference::mechanism0MassMatrix(P, q) * qd, 1e-12, "p = M q'");
  }
}

BOOST_AUTO_TEST_CASE(free_top_lagrangian_is_the_rigid_body_kinetic_energy) {
  const examples::FreeTop top{1.0, 2.0, 3.5};
  test::Random rnd(9);
  for (int trial = 0; trial < 5; ++trial) {
    const Mat3 Q = rnd.quat().toRotationMatrix();
    const Vec3 Omega = rnd.vec3(2.0);  // world angular velocity
    VecX q(6), qd(6), C;
    q << Q.col(0), Q.col(1);
    qd << Omega.cross(Q.col(0)), Omega.cross(Q.col(1));
    double L = 0.0;
    evaluateLagrangian(top, q, qd, L, C);
    const Vec3 w = Q.transpose() * Omega;
    const Vec3 I(top.Iu, top.Iv, top.Iw);
    BOOST_TEST(std::abs(L - 0.5 * w.dot(I.asDiagonal() * w)) <= 1e-13);
    BOOST_TEST(C.cwiseAbs().maxCoeff() <= 1e-14);
    test::checkClose(top.angularMomentum(q, qd), Q * (I.asDiagonal() * w), 1e-13,
                     "angular momentum");
  }
}
