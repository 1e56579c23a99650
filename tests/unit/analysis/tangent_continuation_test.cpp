#define BOOST_TEST_MODULE tangent_continuation
// Continuation of the tangent basis (mobility/tangent_continuation.hpp):
// - the rates Omega1, Omega21, R1' against central differences of a sign-fixed QR along smooth
//   paths A(s), in the QRCP paper's three shapes (m < n full rank, redundant rows, m > n);
// - the stepping (exponential map and Cayley, then Procrustes): orthonormal and tangent after
//   every step, and converging to the continuous transport T' = -A_p^+ A_p' T (paper 1 eq. 27),
//   integrated independently with RK4;
// - the planar pendulum of the QRCP paper (sec. 3.1, A = [2x 2z; 2x 2z]) in closed form;
// - the split at a singular configuration on the double and triple four-bars.
#include "mobility/tangent_continuation.hpp"

#include <Eigen/QR>
#include <cmath>

#include "assembly/assemble.hpp"
#include "model/generators.hpp"
#include "model/state.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {

MatX randomMatrix(test::Random& rnd, Index rows, Index cols) {
  MatX M(rows, cols);
  for (Index i = 0; i < M.size(); ++i) M(i) = rnd.uniform();
  return M;
}

/// A(s) = W (B0 + s B1 + s^2 B2): m x n of rank r for every s (generic), W = I if m = r.
struct Path {
  MatX W, B0, B1, B2;
  MatX at(double s) const { return W * (B0 + s * B1 + s * s * B2); }
  MatX rate(double s) const { return W * (B1 + 2.0 * s * B2); }
};

Path randomPath(test::Random& rnd, Index m, Index n, Index r) {
  Path p;
  p.W = m == r ? MatX(MatX::Identity(m, m)) : randomMatrix(rnd, m, r);
  p.B0 = randomMatrix(rnd, r, n);
  p.B1 = randomMatrix(rnd, r, n);
  p.B2 = randomMatrix(rnd, r, n);
  return p;
}

/// Thin QR of A_p^T (the rows `rows` of A, no pivoting), signs fixed so that diag(R) > 0:
/// unique, hence smooth along a path. Independent of factorTangent (plain Householder QR).
struct Thin {
  MatX Q1, R1;
};
Thin fixedRowsQr(const MatX& A, const std::vector<Index>& rows, Index r) {
  MatX ApT(A.cols(), r);
  for (Index i = 0; i < r; ++i) ApT.col(i) = A.row(rows[i]).transpose();
  const Eigen::HouseholderQR<MatX> qr(ApT);
  Thin t;
  t.Q1 = qr.householderQ() * MatX::Identity(A.cols(), r);
  t.R1 = qr.matrixQR().topRows(r).triangularView<Eigen::Upper>();
  for (Index i = 0; i < r; ++i)
    if (t.R1(i, i) < 0.0) {
      t.R1.row(i) *= -1.0;
      t.Q1.col(i) *= -1.0;
    }
  return t;
}

/// One continuation step from (F, T) at A to the factorization of A_next.
MatX continueStep(const TangentFactors& F, const MatX& T, const MatX& A, const MatX& A_next,
                  double h, ContinuationMap map, TangentFactors& F_next) {
  F_next = factorTangent(A_next);
  const MatX T_ev = evolveTangent(F, T, (A_next - A) / h, h, map);
  const ContinuedTangent ct = continueTangent(F_next.Q1, F_next.T, T_ev);
  BOOST_REQUIRE_MESSAGE(ct.status.ok(), ct.status.message);
  return ct.T;
}

/// The paper's planar pendulum with the duplicated constraint: x = l cos th, z = -l sin th
/// (eq. 37), A = [2x 2z; 2x 2z] (eq. 30), and its rate at th' = w.
MatX pendulumA(double l, double th) {
  const double x = l * std::cos(th), z = -l * std::sin(th);
  MatX A(2, 2);
  A << 2 * x, 2 * z, 2 * x, 2 * z;
  return A;
}
MatX pendulumRate(double l, double th, double w) {
  const double xd = -l * std::sin(th) * w, zd = -l * std::cos(th) * w;
  MatX dA(2, 2);
  dA << 2 * xd, 2 * zd, 2 * xd, 2 * zd;
  return dA;
}

/// C_q of a four-bar lattice at its generated (assembled) configuration.
MatX fourBarJacobian(const FourBarLatticeOptions& o) {
  const Model m = buildFourBarLattice(o);
  const AssemblyPlan plan = buildAssemblyPlan(m);
  SparseMatrixCSR Cq = makeConstraintMatrix(plan);
  assembleConstraints(m, plan, initialState(m).q, 0.0, nullptr, &Cq);
  return MatX(Cq);
}

}  // namespace

BOOST_AUTO_TEST_CASE(factors_are_sign_fixed_and_reconstruct_the_pivot_rows) {
  test::Random rnd(3);
  struct Shape {
    Index m, n, r;
  };
  for (const Shape& s : {Shape{4, 9, 4}, Shape{8, 9, 6}, Shape{9, 9, 8}, Shape{14, 10, 8}}) {
    const MatX A = randomPath(rnd, s.m, s.n, s.r).at(0.2);
    const TangentFactors F = factorTangent(A);
    const std::string tag = std::to_string(s.m) + " x " + std::to_string(s.n);
    BOOST_REQUIRE_EQUAL(F.rank, s.r);
    BOOST_TEST(F.T.cols() == s.n - s.r);
    MatX Q(s.n, s.n);
    Q << F.Q1, F.T;
    test::checkClose(MatX(Q.transpose() * Q), MatX::Identity(s.n, s.n), 1e-13, tag + ": Q");
    test::checkClose(MatX(A * F.T), MatX::Zero(s.m, s.n - s.r), 1e-12, tag + ": A T");
    MatX ApT(s.n, s.r);
    for (Index i = 0; i < s.r; ++i) ApT.col(i) = A.row(F.pivot_rows[i]).transpose();
    test::checkClose(MatX(F.Q1 * F.R1), ApT, 1e-13, tag + ": A_p^T = Q1 R1");
    BOOST_TEST(F.R1.diagonal().minCoeff() > 0.0, tag);
    BOOST_TEST(MatX(F.R1.triangularView<Eigen::StrictlyLower>()).cwiseAbs().maxCoeff() == 0.0);
    BOOST_TEST(F.r1_diagonal.size() == std::min(s.m, s.n));
  }
}

BOOST_AUTO_TEST_CASE(rates_match_central_differences_of_the_qr) {
  test::Random rnd(11);
  struct Shape {
    Index m, n, r;
    const char* what;
  };
  const double s0 = 0.3, eps = 1e-5;
  for (const Shape& s : {Shape{4, 9, 4, "m < n, full rank (paper 1 eqs. 24-26)"},
                         Shape{7, 9, 5, "m < n, 2 redundant rows (paper 2 sec. 2.5)"},
                         Shape{9, 9, 7, "m = n, rank n - 2 (paper 2 appendix B)"},
                         Shape{14, 10, 8, "m > n, rank n - 2 (paper 2 appendix C)"}}) {
    const Path p = randomPath(rnd, s.m, s.n, s.r);
    const TangentFactors F = factorTangent(p.at(s0));
    BOOST_REQUIRE_EQUAL(F.rank, s.r);
    const QrRates rates = computeQrRates(F, F.T, p.rate(s0));
    // The same pivot rows on both sides keep Q1(s), R1(s) smooth.
    const Thin c = fixedRowsQr(p.at(s0), F.pivot_rows, s.r);
    const Thin a = fixedRowsQr(p.at(s0 + eps), F.pivot_rows, s.r);
    const Thin b = fixedRowsQr(p.at(s0 - eps), F.pivot_rows, s.r);
    test::checkClose(F.Q1, c.Q1, 1e-12, std::string(s.what) + ": Q1 unique");
    const MatX dQ1 = (a.Q1 - b.Q1) / (2.0 * eps), dR1 = (a.R1 - b.R1) / (2.0 * eps);
    test::checkClose(rates.omega1, MatX(F.Q1.transpose() * dQ1), 1e-7,
                     std::string(s.what) + ": Omega1 = Q1^T Q1'");
    test::checkClose(rates.omega21, MatX(F.T.transpose() * dQ1), 1e-7,
                     std::string(s.what) + ": Omega21 = T^T Q1'");
    test::checkClose(rates.dR1, dR1, 1e-6, std::string(s.what) + ": R1'");
    test::checkClose(MatX(rates.omega1 + rates.omega1.transpose()), MatX::Zero(s.r, s.r), 1e-14,
                     std::string(s.what) + ": Omega1 skew");
    // The redundant rows carry no extra information along a constant-rank path:
    // T^T A'^T P2 = Omega21 R12 with R12 = Q1^T A_red^T.
    if (s.m > s.r) {
      MatX dAredT(s.n, s.m - s.r), AredT(s.n, s.m - s.r);
      for (Index i = s.r; i < s.m; ++i) {
        dAredT.col(i - s.r) = p.rate(s0).row(F.pivot_rows[i]).transpose();
        AredT.col(i - s.r) = p.at(s0).row(F.pivot_rows[i]).transpose();
      }
      test::checkClose(MatX(F.T.transpose() * dAredT),
                       MatX(rates.omega21 * (F.Q1.transpose() * AredT)), 1e-10,
                       std::string(s.what) + ": redundant columns");
    }
    // Omega of eq. 26 is skew and reproduces Q' = Q Omega on the Q1 block.
    const MatX omega = assembleOmega(rates);
    test::checkClose(MatX(omega + omega.transpose()), MatX::Zero(s.n, s.n), 1e-14,
                     std::string(s.what) + ": Omega skew");
    MatX Q(s.n, s.n);
    Q << F.Q1, F.T;
    test::checkClose(MatX((Q * omega).leftCols(s.r)), dQ1, 1e-7,
                     std::string(s.what) + ": Q1' = (Q Omega)_1");
  }
}

BOOST_AUTO_TEST_CASE(steps_stay_orthonormal_tangent_and_converge_to_the_transport) {
  test::Random rnd(5);
  const Path p = randomPath(rnd, 6, 10, 5);  // one redundant row, f = 5
  const double s_end = 1.0;
  // Reference: T' = -Q1 R1^{-T} A_p' T (eq. 27) by RK4 with 4000 steps, rows fixed at s = 0.
  const TangentFactors F0 = factorTangent(p.at(0.0));
  const Index r = F0.rank;
  BOOST_REQUIRE_EQUAL(r, 5);
  auto rate = [&](double s, const MatX& T) {
    const Thin q = fixedRowsQr(p.at(s), F0.pivot_rows, r);
    MatX dApT(10, r);
    for (Index i = 0; i < r; ++i) dApT.col(i) = p.rate(s).row(F0.pivot_rows[i]).transpose();
    const MatX X = q.R1.triangularView<Eigen::Upper>().transpose().solve(dApT.transpose());
    return MatX(-q.Q1 * (X * T));
  };
  MatX T_ref = F0.T;
  const int fine = 4000;
  const double hf = s_end / fine;
  for (int k = 0; k < fine; ++k) {
    const double s = k * hf;
    const MatX k1 = rate(s, T_ref), k2 = rate(s + 0.5 * hf, T_ref + 0.5 * hf * k1),
               k3 = rate(s + 0.5 * hf, T_ref + 0.5 * hf * k2), k4 = rate(s + hf, T_ref + hf * k3);
    T_ref += hf / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
  }
  for (ContinuationMap map :
       {ContinuationMap::kExponential, ContinuationMap::kCayley, ContinuationMap::kProjection}) {
    double error[2];
    for (int level = 0; level < 2; ++level) {
      const int steps = level == 0 ? 20 : 40;
      const double h = s_end / steps;
      TangentFactors F = F0, F_next;
      MatX T = F0.T;
      double worst_orth = 0.0, worst_tangent = 0.0;
      for (int k = 0; k < steps; ++k) {
        const MatX A = p.at(k * h), A_next = p.at((k + 1) * h);
        T = continueStep(F, T, A, A_next, h, map, F_next);
        F = F_next;
        worst_orth = std::max(worst_orth, (T.transpose() * T - MatX::Identity(5, 5)).norm());
        worst_tangent = std::max(worst_tangent, (A_next * T).norm() / A_next.norm());
      }
      BOOST_TEST(worst_orth < 1e-13);
      BOOST_TEST(worst_tangent < 1e-14);
      error[level] = (T - T_ref).norm();
      BOOST_TEST_MESSAGE(continuationMapName(map)
                         << ", " << steps << " steps: |T - T_transport|_F = " << error[level]
                         << ", orthonormality " << worst_orth << ", |A T| / |A| " << worst_tangent);
    }
    // Second order: halving h divides the distance to the transport by about 4.
    BOOST_TEST(error[0] < 1e-2);
    BOOST_TEST(error[1] < error[0] / 3.0);
  }
}

BOOST_AUTO_TEST_CASE(planar_pendulum_of_the_qrcp_paper_in_closed_form) {
  const double l = 0.7, w = 2.5;  // m, rad/s
  // Eq. 30-33: rank 1, T = +-(-z, x) / l, R1 = 2 l once its sign is fixed.
  for (double th : {0.3, 1.9, -2.4}) {
    const TangentFactors F = factorTangent(pendulumA(l, th));
    BOOST_REQUIRE_EQUAL(F.rank, 1);
    const double x = l * std::cos(th), z = -l * std::sin(th);
    const Vec2 tangent(-z / l, x / l);
    BOOST_TEST(std::abs(std::abs(F.T.col(0).dot(tangent)) - 1.0) < 1e-14);
    BOOST_TEST(std::abs(F.R1(0, 0) - 2.0 * l) < 1e-14);
    BOOST_TEST((F.Q1.col(0) - Vec2(x / l, z / l)).norm() < 1e-14);
    // Omega21 = T^T Q1' with Q1' = (x', z') / l = -(sin th, cos th) th' (eq. 45-48: its
    // magnitude is |th'|, its sign that of the basis).
    const QrRates rates = computeQrRates(F, F.T, pendulumRate(l, th, w));
    const double expected = -w * F.T.col(0).dot(Vec2(std::sin(th), std::cos(th)));
    BOOST_TEST(std::abs(rates.omega21(0, 0) - expected) < 1e-14);
    BOOST_TEST(std::abs(std::abs(rates.omega21(0, 0)) - w) < 1e-14);
    BOOST_TEST(rates.omega1.size() == 1);
    BOOST_TEST(std::abs(rates.omega1(0, 0)) == 0.0);
    // Omega is constant along a uniform rotation: one exponential step is exact.
    const double h = 0.05;
    const MatX T_ev =
        evolveTangent(F, F.T, pendulumRate(l, th, w), h, ContinuationMap::kExponential);
    const double th1 = th + w * h;
    const Vec2 tangent1(std::sin(th1), std::cos(th1));
    BOOST_TEST(std::abs(std::abs(T_ev.col(0).dot(tangent1)) - 1.0) < 1e-14);
    const MatX T_cay = evolveTangent(F, F.T, pendulumRate(l, th, w), h, ContinuationMap::kCayley);
    BOOST_TEST(std::abs(std::abs(T_cay.col(0).dot(tangent1)) - 1.0) < 1e-4);  // O((w h)^3)
  }
  // Two revolutions in 400 steps: the continued T never changes sign against the physical
  // tangent (sin th, cos th) and comes back to itself; the factorization's own T flips.
  const int steps = 400;
  const double h = 4.0 * M_PI / w / steps;
  TangentFactors F = factorTangent(pendulumA(l, 0.0)), F_next;
  const MatX T0 = F.T;
  MatX T = T0;
  const double sign0 = T.col(0).dot(Vec2(0.0, 1.0)) > 0.0 ? 1.0 : -1.0;
  long continued_flips = 0, fresh_flips = 0, fresh_sign_changes = 0;
  double fresh_sign = sign0;
  for (int k = 0; k < steps; ++k) {
    const double th = k * h * w, th1 = (k + 1) * h * w;
    const MatX T_next = continueStep(F, T, pendulumA(l, th), pendulumA(l, th1), h,
                                     ContinuationMap::kExponential, F_next);
    const Vec2 tangent1(std::sin(th1), std::cos(th1));
    if ((T_next.col(0).dot(tangent1) > 0.0 ? 1.0 : -1.0) != sign0) ++continued_flips;
    fresh_flips += countSignFlips(F.T, F_next.T);
    const double s = F_next.T.col(0).dot(tangent1) > 0.0 ? 1.0 : -1.0;
    if (s != fresh_sign) ++fresh_sign_changes;
    fresh_sign = s;
    T = T_next;
    F = F_next;
  }
  BOOST_TEST_MESSAGE("planar pendulum, 2 revolutions in "
                     << steps << " steps: continued T " << continued_flips
                     << " flips, factorization's T " << fresh_flips << " flips");
  BOOST_TEST(continued_flips == 0);
  BOOST_TEST((T - T0).norm() < 1e-10);  // no holonomy for one degree of freedom
  // The factorization's flips, counted between consecutive bases, are the changes of sign
  // against the continuous physical tangent.
  BOOST_TEST(fresh_flips == fresh_sign_changes);
}

BOOST_AUTO_TEST_CASE(split_at_the_singular_configurations_of_the_four_bars) {
  struct Case {
    FourBarLatticeOptions o;
    Index rank_generic, rank_singular;
    const char* what;
  };
  FourBarLatticeOptions dbl;  // the double four-bar: rank 14 -> 12 (QRCP paper sec. 3.2)
  FourBarLatticeOptions tri;  // the modified triple four-bar, m > n: rank 14 -> 13 (sec. 3.4)
  tri.cells = 3;
  tri.merged_couplers = true;
  for (const Case& c :
       {Case{dbl, 14, 12, "double four-bar"}, Case{tri, 14, 13, "modified triple four-bar"}}) {
    const double eps = 1e-3;  // rad: the configuration before the singular one
    FourBarLatticeOptions before = c.o, at = c.o;
    before.crank_angle = eps;
    at.crank_angle = 0.0;
    const MatX A_before = fourBarJacobian(before), A_at = fourBarJacobian(at);
    const TangentFactors Fb = factorTangent(A_before);
    BOOST_REQUIRE_EQUAL(Fb.rank, c.rank_generic);
    const TangentFactors Fs = factorTangent(A_at, 1e-6);
    BOOST_REQUIRE_EQUAL(Fs.rank, c.rank_singular);
    const Index n = A_at.cols(), d = c.rank_generic - c.rank_singular;
    const ContinuedTangent ct = continueTangent(Fs.Q1, Fs.T, Fb.T);
    BOOST_REQUIRE(ct.status.ok());
    BOOST_REQUIRE_EQUAL(ct.T.cols(), 1 + d);
    BOOST_TEST(ct.continued == 1);
    test::checkClose(MatX(ct.T.transpose() * ct.T), MatX::Identity(1 + d, 1 + d), 1e-13,
                     std::string(c.what) + ": [continued new] orthonormal");
    test::checkClose(MatX(A_at * ct.T), MatX::Zero(A_at.rows(), 1 + d), 1e-12,
                     std::string(c.what) + ": all admissible at the singular configuration");
    // The continued motion is the unit vector of the singular tangent space closest to the old
    // one: the normalized projection P T_old (P = B B^T).
    const VecX projected = Fs.T * (Fs.T.transpose() * Fb.T.col(0));
    test::checkClose(MatX(ct.T.col(0)), MatX(projected.normalized()), 1e-12,
                     std::string(c.what) + ": continued = P T_old / |P T_old|");
    BOOST_TEST(ct.cosines(0) > 1.0 - eps * eps);
    // ... which is the parallelogram motion at horizontal cranks (sec. 3.2, Fig. 3): cranks
    // turn alike, their centres rise by h/2 per radian, the couplers by h, no rotation of the
    // couplers and no horizontal motion.
    const Model m = buildFourBarLattice(at);
    VecX motion = VecX::Zero(n);
    for (Index b = 0; b < static_cast<Index>(m.bodies.size()); ++b) {
      const bool crank = m.bodies[b].name.rfind("crank", 0) == 0;
      motion(3 * b + 1) = crank ? 0.5 : 1.0;
      motion(3 * b + 2) = crank ? 1.0 : 0.0;
    }
    BOOST_TEST(std::abs(std::abs(ct.T.col(0).dot(motion.normalized())) - 1.0) < 2.0 * eps * eps);
    // Any other unit vector of the singular tangent space is farther from the old motion.
    test::Random rnd(9);
    for (int k = 0; k < 20; ++k) {
      VecX coefficients(Fs.T.cols());
      for (Index i = 0; i < coefficients.size(); ++i) coefficients(i) = rnd.uniform();
      const VecX other = Fs.T * coefficients.normalized();
      BOOST_TEST((ct.T.col(0) - Fb.T.col(0)).norm() <= (other - Fb.T.col(0)).norm() + 1e-15);
    }
  }
}

// Nothing to continue: no motion before (a zero-DOF start) or none now. The 0 x 0 eigenproblem of
// the principal cosines crashed (a zero-DOF model under --formulation mcs, SIGSEGV).
BOOST_AUTO_TEST_CASE(empty_bases_continue_to_the_new_basis) {
  const MatX Q = Eigen::HouseholderQR<MatX>(MatX::Random(4, 4)).householderQ();
  for (const int f_new : {0, 2}) {
    for (const int f_old : {0, 2}) {
      if (f_new > 0 && f_old > 0) continue;
      const MatX Q1 = Q.leftCols(4 - f_new), B = Q.rightCols(f_new);
      const MatX T_old = Q.rightCols(f_old);
      const ContinuedTangent ct = continueTangent(Q1, B, T_old);
      BOOST_TEST_CONTEXT("f_old " << f_old << ", f_new " << f_new) {
        BOOST_TEST(ct.status.ok());
        BOOST_TEST(ct.continued == 0);
        BOOST_TEST(ct.T.cols() == f_new);
        if (f_new > 0) BOOST_TEST((ct.T - B).norm() == 0.0);
      }
    }
  }
}
