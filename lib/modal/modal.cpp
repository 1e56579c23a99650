#include "modal/modal.hpp"

#include <Eigen/Eigenvalues>
#include <chrono>
#include <cmath>
#include <numbers>
#include <sstream>
#include <vector>

#include "mobility/constraint_rank.hpp"
#include "assembly/assemble.hpp"
#include "solvers/eigen_solver.hpp"
#include "solvers/sparse_qr.hpp"

namespace catena {
namespace {

using Triplets = std::vector<Eigen::Triplet<double, int>>;

/// Appends the entries of A, scaled, at block offset (r0, c0); transposed if asked.
void addBlock(Triplets& t, const SparseMatrixCSR& A, int r0, int c0, double scale,
              bool transpose = false) {
  for (int r = 0; r < A.outerSize(); ++r)
    for (SparseMatrixCSR::InnerIterator it(A, r); it; ++it) {
      const int i = transpose ? static_cast<int>(it.col()) : r;
      const int j = transpose ? r : static_cast<int>(it.col());
      t.emplace_back(r0 + i, c0 + j, scale * it.value());
    }
}

SparseMatrixCSR fromTriplets(int n, const Triplets& t) {
  SparseMatrixCSR A(n, n);
  A.setFromTriplets(t.begin(), t.end());
  A.makeCompressed();
  return A;
}

double maxAbs(const SparseMatrixCSR& A) {
  return A.nonZeros() ? values(A).cwiseAbs().maxCoeff() : 0.0;
}

/// Normal of the best-fitting plane through the bodies' positions if they are (nearly) planar.
Vec3 planeNormal(const Model& m, const State& s) {
  if (m.dimension == 2) return Vec3::UnitZ();
  const Index nb = static_cast<Index>(m.bodies.size());
  if (nb < 3) return Vec3::Zero();
  Vec3 c = Vec3::Zero();
  for (Index b = 0; b < nb; ++b) c += s.q.segment<3>(m.qOffset(b));
  c /= static_cast<double>(nb);
  Mat3 cov = Mat3::Zero();
  for (Index b = 0; b < nb; ++b) {
    const Vec3 d = s.q.segment<3>(m.qOffset(b)) - c;
    cov += d * d.transpose();
  }
  Eigen::SelfAdjointEigenSolver<Mat3> es(cov);
  const Vec3 ev = es.eigenvalues();  // ascending
  if (ev(0) > 1e-6 * ev(2)) return Vec3::Zero();
  return es.eigenvectors().col(0);
}

/// Dominant direction of a mode shape (mass-weighted translations of the body origins) and the
/// number of sign changes of that component along the bodies.
void classify(const Model& m, const Vec3& normal, Mode& mode) {
  const int nvb = m.nv_body, nt = m.dimension;  // translation entries per body
  const Index nb = static_cast<Index>(m.bodies.size());
  // Reference direction: in-plane components are measured along the dominant in-plane axis.
  auto translation = [&](Index b) {
    Vec3 t = Vec3::Zero();
    for (int k = 0; k < nt; ++k) t(k) = mode.shape_re(b * nvb + k);
    return t;
  };
  Mat3 energy = Mat3::Zero();
  for (Index b = 0; b < nb; ++b) {
    const Vec3 t = translation(b);
    energy += m.bodies[b].mass * t * t.transpose();
  }
  const double total = energy.trace();
  if (total <= 0.0) {
    mode.direction = "rotation";
    return;
  }
  Vec3 axis;
  if (normal.squaredNorm() > 0.0 && m.dimension == 3) {
    const double out = normal.dot(energy * normal) / total;
    if (out >= 0.5) {
      mode.direction = "out-of-plane";
      axis = normal;
    } else {
      mode.direction = "in-plane";
      const Mat3 P = Mat3::Identity() - normal * normal.transpose();
      Eigen::SelfAdjointEigenSolver<Mat3> es(P * energy * P);
      axis = es.eigenvectors().col(2);
    }
  } else {
    Eigen::SelfAdjointEigenSolver<Mat3> es(energy);
    axis = es.eigenvectors().col(2);
    Eigen::Index k;
    axis.cwiseAbs().maxCoeff(&k);
    mode.direction = std::string(1, "xyz"[k]);
  }
  // Sign changes of the component along the axis, ignoring bodies that barely move.
  double largest = 0.0;
  for (Index b = 0; b < nb; ++b) largest = std::max(largest, std::abs(axis.dot(translation(b))));
  int sign = 0;
  mode.nodes = 0;
  for (Index b = 0; b < nb; ++b) {
    const double c = axis.dot(translation(b));
    if (std::abs(c) < 0.05 * largest) continue;
    const int sc = c > 0.0 ? 1 : -1;
    if (sign != 0 && sc != sign) ++mode.nodes;
    sign = sc;
  }
}

/// n_v - rank(C_q): the threshold of analyzeConstraintRank (relative to the longest row).
Index degreesOfFreedom(const SparseMatrixCSR& Cq) {
  if (Cq.rows() == 0) return Cq.cols();
  double longest = 0.0;
  for (int r = 0; r < Cq.outerSize(); ++r) longest = std::max(longest, Cq.row(r).norm());
  if (longest == 0.0) return Cq.cols();
  return Cq.cols() - sparseQrRank(Cq, kDefaultRankTolerance * longest, true).rank;
}

/// Relative size below which the coordinate part (phi, and s phi when damped) of an eigenvector
/// of unit norm counts as vanished: the pair lives in the multipliers (an infinite eigenvalue
/// that round-off made finite). A mode's multiplier part is within cond(C_q) of its coordinate
/// part, since the constraint rows are scaled to the stiffness.
constexpr double kVanishedCoordinates = 1e-6;
/// Relative residual of the scalar equation phi^H (s^2 M + s D + K_t) phi = 0 above which an
/// eigenpair is not a mode: its eigenvalue is not carried by its coordinate part. A converged
/// mode meets it to the eigensolver's tolerance times the conditioning.
constexpr double kRayleighTolerance = 1e-6;
/// Fraction of |M| |phi|^2 below which phi^H M phi counts as zero: the motion has no mass
/// (1e-29 for the pendulum's spurious pairs, above 0.5 for its mode and the chains' modes).
constexpr double kMasslessMotion = 1e-8;

/// Why the eigenpair (s, x) is not a mode of the mechanism, or "" if it is one.
std::string rejection(const EigenPair& e, std::complex<double> s, bool damped, int nv,
                      const SparseMatrixCSR& K, const SparseMatrixCSR& D,
                      const SparseMatrixCSR& M) {
  const int ncoord = damped ? 2 * nv : nv;
  const double all = std::hypot(e.re.norm(), e.im.norm());
  const double coord = std::hypot(e.re.head(ncoord).norm(), e.im.head(ncoord).norm());
  if (!(coord > kVanishedCoordinates * all)) {
    std::ostringstream os;
    os << "coordinate part " << coord / all << " of the eigenvector";
    return os.str();
  }
  using VecC = Eigen::VectorXcd;
  auto apply = [&](const SparseMatrixCSR& A) -> VecC {
    const VecX re = A * e.re.head(nv), im = A * e.im.head(nv);
    VecC y(nv);
    for (int i = 0; i < nv; ++i) y(i) = {re(i), im(i)};
    return y;
  };
  VecC phi(nv);
  for (int i = 0; i < nv; ++i) phi(i) = {e.re(i), e.im(i)};
  const std::complex<double> k = phi.dot(apply(K)), d = phi.dot(apply(D)), mm = phi.dot(apply(M));
  const double scale =
      (std::norm(s) * maxAbs(M) + std::abs(s) * maxAbs(D) + maxAbs(K)) * phi.squaredNorm();
  const double r = std::abs(s * s * mm + s * d + k);
  if (!(r <= kRayleighTolerance * scale)) {
    std::ostringstream os;
    os << "|phi^H (s^2 M + s D + K) phi| = " << r / scale << " relative";
    return os.str();
  }
  // A motion of massless (and undamped) coordinates only: an infinite eigenvalue, whose
  // Rayleigh quotient above is 0 / 0. A mode moves mass (or a damper).
  const double inertial = std::norm(s) * std::abs(mm) + std::abs(s) * std::abs(d);
  const double inertial_scale =
      (std::norm(s) * maxAbs(M) + std::abs(s) * maxAbs(D)) * phi.squaredNorm();
  if (!(inertial > kMasslessMotion * inertial_scale)) {
    std::ostringstream os;
    os << "a motion without mass (phi^H M phi = " << std::abs(mm) / (maxAbs(M) * phi.squaredNorm())
       << " of |M| |phi|^2)";
    return os.str();
  }
  return "";
}

}  // namespace

ModalResult solveModal(const Model& m, const AssemblyPlan& plan, const State& eq,
                       const ModalOptions& o) {
  ModalResult out;
  const auto t0 = std::chrono::steady_clock::now();
  const int nv = static_cast<int>(m.nv), nc = static_cast<int>(m.nc);
  SparseMatrixCSR Cq = makeConstraintMatrix(plan), K = makeBodyMatrix(plan),
                  D = makeBodyMatrix(plan), Kc = makeBodyMatrix(plan), M = makeBodyMatrix(plan);
  assembleConstraints(m, plan, eq.q, eq.t, nullptr, &Cq);
  assembleForceJacobians(m, plan, eq.q, eq.v, eq.t, nullptr, K, D);
  assembleMass(m, plan, eq.q, M);
  if (o.constraint_stiffness) {
    assembleConstraintStiffness(m, plan, eq.q, eq.t, eq.lambda, Kc);
    values(K) += values(Kc);
  }
  out.damped = o.damped || maxAbs(D) > 0.0;
  out.requested = o.modes;
  out.dof = degreesOfFreedom(Cq);
  const int wanted = static_cast<int>(o.limit_to_dof ? std::min<Index>(o.modes, out.dof) : o.modes);
  if (wanted < o.modes) {
    std::ostringstream os;
    os << "the mechanism has " << out.dof << " degree" << (out.dof == 1 ? "" : "s")
       << " of freedom at the equilibrium (n_v " << nv << " - rank(C_q) " << nv - out.dof
       << "): " << wanted << " mode" << (wanted == 1 ? "" : "s") << " of the " << o.modes
       << " requested";
    out.note = os.str();
  }
  if (wanted == 0) {
    out.status = Status::success();
    out.assembly_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
  }
  const double two_pi = 2.0 * std::numbers::pi;
  // Constraint rows on the scale of the stiffness (or of the mass at the target).
  const double sigma = std::pow(two_pi * o.target_hz, 2);
  const double kscale = std::max({maxAbs(K), sigma * maxAbs(M), 1e-300});
  const double cmax = maxAbs(Cq);
  out.constraint_scale = cmax > 0.0 ? kscale / cmax : 1.0;
  const double a = out.constraint_scale;

  Triplets ta, tb;
  int n;
  EigenOptions eo;
  // Damped: conjugate pairs count twice.
  eo.count = out.damped ? 2 * wanted : wanted;
  eo.tolerance = o.tolerance;
  eo.prefix = o.petsc_prefix;
  if (!out.damped) {
    n = nv + nc;
    addBlock(ta, K, 0, 0, 1.0);
    addBlock(ta, Cq, 0, nv, a, true);
    addBlock(ta, Cq, nv, 0, a);
    addBlock(tb, M, 0, 0, 1.0);
    eo.target = sigma;
  } else {
    // x = (phi, v, lambda): v = s phi; -K phi - D v - C^T lambda = s M v; C phi = 0.
    n = 2 * nv + nc;
    for (int i = 0; i < nv; ++i) {
      ta.emplace_back(i, nv + i, 1.0);
      tb.emplace_back(i, i, 1.0);
    }
    addBlock(ta, K, nv, 0, -1.0);
    addBlock(ta, D, nv, nv, -1.0);
    addBlock(ta, Cq, nv, 2 * nv, -a, true);
    addBlock(ta, Cq, 2 * nv, 0, a);
    addBlock(tb, M, nv, nv, 1.0);
    eo.target = 0.0;
  }
  const SparseMatrixCSR pa = fromTriplets(n, ta), pb = fromTriplets(n, tb);
  out.assembly_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const EigenResult er = solveGeneralizedEigen(pa, pb, eo);
  out.factor_seconds = er.setup_seconds;
  out.solve_seconds = er.solve_seconds;
  out.solves = er.solves;
  out.status = er.status;
  out.iterations = er.iterations;
  out.method = er.method;
  out.plane_normal = planeNormal(m, eq);
  for (const EigenPair& e : er.pairs) {
    Mode mode;
    if (!out.damped) {
      // mu = -s^2: keep the root with Im s >= 0 (and Re s >= 0 when s is real).
      std::complex<double> s = std::sqrt(-e.value);
      if (s.imag() < 0.0 || (s.imag() == 0.0 && s.real() < 0.0)) s = -s;
      mode.s = s;
    } else {
      if (e.value.imag() < 0.0) continue;  // keep one of each conjugate pair
      mode.s = e.value;
    }
    const std::string why = rejection(e, mode.s, out.damped, nv, K, D, M);
    if (!why.empty()) {
      ++out.rejected;
      continue;
    }
    mode.residual = e.residual;
    mode.natural_frequency_hz = std::abs(mode.s) / two_pi;
    mode.frequency_hz = std::abs(mode.s.imag()) / two_pi;
    mode.damping_ratio = std::abs(mode.s) > 0.0 ? -mode.s.real() / std::abs(mode.s) : 0.0;
    mode.shape_re = e.re.head(nv);
    mode.shape_im = e.im.head(nv);
    classify(m, out.plane_normal, mode);
    out.modes.push_back(std::move(mode));
    if (static_cast<int>(out.modes.size()) == wanted) break;
  }
  if (out.status.ok() && static_cast<int>(out.modes.size()) < wanted) {
    std::ostringstream os;
    os << "the eigensolver found " << out.modes.size() << " of the " << wanted
       << " modes the mechanism has near the target (" << out.rejected
       << " eigenpairs rejected: their coordinate part vanished or did not carry the eigenvalue)";
    out.status = Status::failure(Status::Code::kNotConverged, os.str());
  }
  return out;
}

}  // namespace catena
