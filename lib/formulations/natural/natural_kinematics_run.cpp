#include "formulations/natural/natural_kinematics_run.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include <Eigen/QR>

#include "formulations/natural/natural_mechanism.hpp"

namespace catena::natural {

namespace {

/// Columns of C_q: the free coordinates (solved for) and the drivers.
struct Columns {
  std::vector<Index> free, driven;
};

MatX columns(const MatX& A, const std::vector<Index>& cols) {
  MatX out(A.rows(), static_cast<Index>(cols.size()));
  for (std::size_t j = 0; j < cols.size(); ++j) out.col(static_cast<Index>(j)) = A.col(cols[j]);
  return out;
}

std::vector<std::string> worstRows(const NaturalModel& m, const VecX& C) {
  std::vector<Index> rows(static_cast<std::size_t>(C.size()));
  std::iota(rows.begin(), rows.end(), Index{0});
  std::sort(rows.begin(), rows.end(),
            [&C](Index a, Index b) { return std::abs(C(a)) > std::abs(C(b)); });
  std::vector<std::string> out;
  for (std::size_t k = 0; k < std::min<std::size_t>(3, rows.size()); ++k) {
    std::ostringstream os;
    os << m.constraintName(rows[k]) << ": residual " << C(rows[k]);
    out.push_back(os.str());
  }
  return out;
}

/// The minimum-norm least-squares solver of C_q in the free columns, with its rank. A pivot
/// counts if it exceeds rank_tolerance times the largest entry of the whole C_q (drivers
/// included), so that one free column going to zero (a rod at full reach) is a rank drop.
struct FreeSolver {
  Eigen::CompleteOrthogonalDecomposition<MatX> cod;
  FreeSolver(const MatX& C_q, const Columns& c, double rank_tolerance) : cod(columns(C_q, c.free)) {
    const double scale = C_q.size() ? C_q.cwiseAbs().maxCoeff() : 0.0;
    if (cod.maxPivot() > 0.0) cod.setThreshold(rank_tolerance * scale / cod.maxPivot());
  }
  Index rank() const { return cod.rank(); }
};

std::string overdetermined(std::size_t rank, Index nc) {
  std::ostringstream os;
  os << "the drivers (the problem's fixed coordinates) over-determine the mechanism: C_q in "
     << "the free coordinates has rank " << rank << " < " << nc
     << " constraints (fix fewer or other coordinates, or remove redundant constraints)";
  return os.str();
}

/// Newton steps in the free coordinates until max |C| <= tolerance. Returns the iterations
/// used, or -1 if it did not converge (C holds the last residual).
int solvePositions(const NaturalModel& m, const Columns& c, const NaturalKinematicsOptions& o,
                   VecX& q, VecX& C, MatX& C_q) {
  for (int it = 0; it <= o.max_iterations; ++it) {
    computeNaturalConstraints(m, q, C, C_q);
    if (C.size() == 0 || C.lpNorm<Eigen::Infinity>() <= o.tolerance) return it;
    if (it == o.max_iterations || !C.allFinite()) break;
    const VecX dx = FreeSolver(C_q, c, o.rank_tolerance).cod.solve(-C);
    for (std::size_t j = 0; j < c.free.size(); ++j) q(c.free[j]) += dx(static_cast<Index>(j));
  }
  return -1;
}

}  // namespace

bool isMassless(const NaturalModel& m) {
  for (const NaturalBody& b : m.bodies)
    if (b.mass != 0.0 || !b.inertia.isZero()) return false;
  for (const NaturalSpring& s : m.springs)
    if (s.mass != 0.0) return false;
  return m.particles.empty();
}

NaturalKinematicsResult runNaturalKinematics(const NaturalModel& m, const NaturalProblem& p,
                                             const NaturalKinematicsOptions& o,
                                             const NaturalKinematicsObserver& observer) {
  NaturalKinematicsResult r;
  Columns cols;
  for (Index i = 0; i < m.nq; ++i)
    (p.fixed[static_cast<std::size_t>(i)] ? cols.driven : cols.free).push_back(i);
  VecX v_driven(static_cast<Index>(cols.driven.size()));
  for (std::size_t j = 0; j < cols.driven.size(); ++j)
    v_driven(static_cast<Index>(j)) = p.v0(cols.driven[j]);
  const double h = o.output_interval > 0.0 ? o.output_interval : (o.t_end - p.t0) / 100.0;

  r.t = p.t0;
  r.q = p.q0;
  r.v = VecX::Zero(m.nq);
  if (static_cast<Index>(cols.free.size()) < m.nc) {
    r.status = Status::failure(Status::Code::kInvalidInput, overdetermined(cols.free.size(), m.nc));
    return r;
  }
  VecX C;
  MatX C_q;
  // Positions and velocities at r.t with the drivers set; false (and r.status) on failure.
  auto solve = [&](bool first) {
    const int its = solvePositions(m, cols, o, r.q, C, C_q);
    if (its < 0) {
      std::ostringstream os;
      os << "the position analysis did not converge at t = " << r.t << " s (max |C| "
         << C.lpNorm<Eigen::Infinity>() << " after " << o.max_iterations
         << " Newton steps): the drivers moved the mechanism out of its reach, or the step "
            "is too large";
      r.status = Status::failure(Status::Code::kNotConverged, os.str());
      r.worst_rows = worstRows(m, C);
      return false;
    }
    r.stats.newton_iterations += its;
    const FreeSolver s(C_q, cols, o.rank_tolerance);
    if (first) {
      r.stats.rank = s.rank();
      r.stats.free_dof = static_cast<Index>(cols.free.size()) - s.rank();
    } else if (s.rank() < r.stats.rank) {
      std::ostringstream os;
      os << "singular configuration at t = " << r.t << " s: the rank of C_q in the free "
         << "coordinates dropped from " << r.stats.rank << " to " << s.rank()
         << " (the drivers cannot move the mechanism through it)";
      r.status = Status::failure(Status::Code::kSingular, os.str());
      return false;
    }
    const VecX rhs = -columns(C_q, cols.driven) * v_driven;
    const VecX vf = s.cod.solve(rhs);
    for (std::size_t j = 0; j < cols.free.size(); ++j)
      r.v(cols.free[j]) = vf(static_cast<Index>(j));
    for (std::size_t j = 0; j < cols.driven.size(); ++j)
      r.v(cols.driven[j]) = v_driven(static_cast<Index>(j));
    r.stats.max_position_drift = std::max(r.stats.max_position_drift, C.lpNorm<Eigen::Infinity>());
    r.stats.max_velocity_drift =
        std::max(r.stats.max_velocity_drift, (C_q * r.v).lpNorm<Eigen::Infinity>());
    return true;
  };
  if (!solve(true)) return r;
  if (r.stats.rank < m.nc) {
    r.status = Status::failure(Status::Code::kInvalidInput,
                               overdetermined(static_cast<std::size_t>(r.stats.rank), m.nc));
    return r;
  }
  if (observer && !observer(r.t, r.q, r.v)) return r;
  while (r.t < o.t_end - 1e-12 * std::max(1.0, std::abs(o.t_end))) {
    const double t_next = std::min(o.t_end, r.t + h);
    const double dt = t_next - r.t;
    r.q += dt * r.v;  // predictor; the drivers land exactly on q_d(t0) + v_d (t - t0)
    for (std::size_t j = 0; j < cols.driven.size(); ++j)
      r.q(cols.driven[j]) =
          p.q0(cols.driven[j]) + v_driven(static_cast<Index>(j)) * (t_next - p.t0);
    r.t = t_next;
    if (!solve(false)) return r;
    ++r.stats.steps;
    if (observer && !observer(r.t, r.q, r.v)) return r;
  }
  return r;
}

}  // namespace catena::natural
