#pragma once
/// @file mechanism0_reference.hpp
/// The natural-coordinates paper's independent check of Mechanism0 (sec. 4.1.2): the same
/// mechanism in the unconstrained coordinates q = (theta, r, phi) (theta: rod OA from the
/// downward vertical; r: spring length; phi: spring AB from the downward vertical), as the ODE
///   q' = M(q)^-1 p,   p' = dL/dq (q, q'),
/// integrated by ARKODE (reference_odes.hpp). M is the paper's (printed correctly there); the
/// forces dL/dq are derived here by hand from the paper's energies (its printed T_AB lost
/// parentheses: the last term is mu/6 (r'^2 + r^2 phi'^2)), with a = mu/2 + m, delta = phi - theta:
///   dL/dtheta = a L (-cos(delta) theta' r' + r sin(delta) theta' phi')
///               - (M/2 + mu + m) g L sin(theta)
///   dL/dr     = a L cos(delta) theta' phi' + (mu/3 + m) r phi'^2 + a g cos(phi) - k (r - ell)
///   dL/dphi   = a L (cos(delta) theta' r' - r sin(delta) theta' phi') - a g r sin(phi).
/// An optional constant torque tau on OA (the paper's eq. (33), V = -tau theta) adds tau to
/// dL/dtheta. Shares no code with catena's Lagrangian
/// facility; the unit tests check M and dL/dq against AD of the Cartesian Lagrangian.

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <vector>

#include "reference_odes.hpp"

namespace catena::reference {

struct Mechanism0Params {
  double L = 2.0, M = 1.0, k = 1000.0, ell = 1.0, mu = 0.5, m = 0.1, g = 9.81;
  double tau = 0.0;  ///< N m, on OA (eq. 33)
};

inline Eigen::Matrix3d mechanism0MassMatrix(const Mechanism0Params& P, const Eigen::Vector3d& q) {
  const double r = q(1), delta = q(2) - q(0), a = P.mu / 2 + P.m;
  Eigen::Matrix3d M;
  M << (P.M / 3 + P.mu + P.m) * P.L * P.L, a * P.L * std::sin(delta),
      a * P.L * r * std::cos(delta),                   //
      a * P.L * std::sin(delta), P.mu / 3 + P.m, 0.0,  //
      a * P.L * r * std::cos(delta), 0.0, (P.mu / 3 + P.m) * r * r;
  return M;
}

inline Eigen::Vector3d mechanism0Force(const Mechanism0Params& P, const Eigen::Vector3d& q,
                                       const Eigen::Vector3d& qd) {
  const double th = q(0), r = q(1), ph = q(2), delta = ph - th, a = P.mu / 2 + P.m;
  const double thd = qd(0), rd = qd(1), phd = qd(2);
  const double c = std::cos(delta), s = std::sin(delta);
  return {a * P.L * (-c * thd * rd + r * s * thd * phd) -
              (P.M / 2 + P.mu + P.m) * P.g * P.L * std::sin(th) + P.tau,
          a * P.L * c * thd * phd + (P.mu / 3 + P.m) * r * phd * phd + a * P.g * std::cos(ph) -
              P.k * (r - P.ell),
          a * P.L * (c * thd * rd - r * s * thd * phd) - a * P.g * r * std::sin(ph)};
}

/// Points A, B and their velocities in the plane [m, m/s] at (theta, r, phi) and rates.
struct Mechanism0Points {
  Eigen::Vector2d A, B, Ad, Bd;
};

inline Mechanism0Points mechanism0Points(const Mechanism0Params& P, const Eigen::Vector3d& q,
                                         const Eigen::Vector3d& qd) {
  const double th = q(0), r = q(1), ph = q(2);
  const Eigen::Vector2d e(std::sin(ph), -std::cos(ph)), e_perp(std::cos(ph), std::sin(ph));
  Mechanism0Points x;
  x.A = P.L * Eigen::Vector2d(std::sin(th), -std::cos(th));
  x.Ad = P.L * qd(0) * Eigen::Vector2d(std::cos(th), std::sin(th));
  x.B = x.A + r * e;
  x.Bd = x.Ad + qd(1) * e + r * qd(2) * e_perp;
  return x;
}

/// (A, B, A', B') as an 8 x times.size() matrix (rows A_x, A_y, B_x, B_y, then the rates) from
/// the ODE in (theta, r, phi) started at q0, qd0; `angles` (if given) receives (theta, r, phi).
inline Eigen::MatrixXd mechanism0ThetaRPhi(const Mechanism0Params& P, const Eigen::Vector3d& q0,
                                           const Eigen::Vector3d& qd0,
                                           const std::vector<double>& times,
                                           const OdeOptions& options = {},
                                           Eigen::MatrixXd* angles = nullptr) {
  auto rhs = [&P](double, const Eigen::VectorXd& y) {
    const Eigen::Vector3d q = y.head<3>();
    const Eigen::Vector3d qd = mechanism0MassMatrix(P, q).ldlt().solve(y.tail<3>());
    Eigen::VectorXd f(6);
    f << qd, mechanism0Force(P, q, qd);
    return f;
  };
  Eigen::VectorXd y0(6);
  y0 << q0, mechanism0MassMatrix(P, q0) * qd0;
  const Eigen::MatrixXd Y = integrateOde(rhs, 0.0, y0, times, options);
  if (angles) *angles = Y.topRows(3);
  Eigen::MatrixXd X(8, Y.cols());
  for (Eigen::Index k = 0; k < Y.cols(); ++k) {
    const Eigen::Vector3d q = Y.col(k).head<3>();
    const Eigen::Vector3d qd = mechanism0MassMatrix(P, q).ldlt().solve(Y.col(k).tail<3>());
    const Mechanism0Points x = mechanism0Points(P, q, qd);
    X.col(k) << x.A, x.B, x.Ad, x.Bd;
  }
  return X;
}

/// The reference of the paper's IVP (Fig. 3: hanging, spring at rest length, A' = (1, 0),
/// B' = 0), i.e. (theta, r, phi) = (0, ell, 0) with rates (1/L, 0, -1/ell); as
/// mechanism0ThetaRPhi.
inline Eigen::MatrixXd mechanism0PaperReference(const Mechanism0Params& P,
                                                const std::vector<double>& times,
                                                Eigen::MatrixXd* angles = nullptr) {
  return mechanism0ThetaRPhi(P, Eigen::Vector3d(0.0, P.ell, 0.0),
                             Eigen::Vector3d(1.0 / P.L, 0.0, -1.0 / P.ell), times, {}, angles);
}

/// Largest |(A, B) - reference| (m) and |(A', B') - reference| (m/s) over a run of the paper's
/// IVP: q[k], v[k] = (A_x, A_y, B_x, B_y) and their rates at times[k].
struct Mechanism0Errors {
  double x = 0.0, v = 0.0;
};
inline Mechanism0Errors mechanism0Errors(const Mechanism0Params& P,
                                         const std::vector<double>& times,
                                         const std::vector<Eigen::VectorXd>& q,
                                         const std::vector<Eigen::VectorXd>& v) {
  const Eigen::MatrixXd ref = mechanism0PaperReference(P, times);
  Mechanism0Errors e;
  for (std::size_t k = 0; k < times.size(); ++k) {
    const Eigen::Index c = static_cast<Eigen::Index>(k);
    e.x = std::max(e.x, (q[k] - ref.col(c).head(4)).norm());
    e.v = std::max(e.v, (v[k] - ref.col(c).tail(4)).norm());
  }
  return e;
}

}  // namespace catena::reference
