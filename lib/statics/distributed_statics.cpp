#include "statics/distributed_statics.hpp"

#include <petscksp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

#include "analysis/scales.hpp"
#include "model/state.hpp"
#include "solvers/distributed_saddle_point.hpp"
#include "parallel/phase_timer.hpp"
#include "solvers/factorization.hpp"

namespace catena {
namespace {

struct Residual {
  double force, position, merit;
};

/// analysis/scales.hpp's lengthScale over the ranks: the bodies' start positions and the ground
/// markers (each held by one part) about their centroid.
double distributedLengthScale(const DistributedModel& dm) {
  const Model& m = dm.local();
  std::vector<Vec3> points;
  for (Index b = 0; b < dm.part().owned_bodies; ++b) points.push_back(m.bodies[b].position);
  for (const Marker& k : m.markers)
    if (k.body == kGround) points.push_back(k.position);
  Vec3 c = Vec3::Zero();
  for (const Vec3& p : points) c += p;
  const double count = dm.sum(static_cast<double>(points.size()));
  if (count == 0.0) return 1.0;
  c = dm.sum(c) / count;
  double r = 0.0;
  for (const Vec3& p : points) r = std::max(r, (p - c).norm());
  r = dm.max(r);
  return r > 0.0 ? r : 1.0;
}

/// analysis/scales.hpp's naturalNorm of an owned variation, over the ranks.
double naturalNorm(const DistributedModel& dm, const VecX& dq, double ls) {
  const double local = catena::naturalNorm(dm.local(), dq, ls);
  return std::sqrt(dm.sum(local * local));
}

/// C, C_q, f and C_q^T lambda at (q, lambda); the scaled residual norms over the ranks.
Residual evaluate(DistributedAssembly& as, const VecX& q, const VecX& lambda, double fs, double ls,
                  VecX& r) {
  const DistributedModel& dm = as.distributedModel();
  as.assembleConstraints(q, 0.0);
  as.assembleForces(q, 0.0);
  VecX cforce;
  as.constraintForces(lambda, cforce);
  r = as.f() - cforce;
  Residual res;
  res.force = dm.maxAbs(r) / fs;
  res.position = dm.maxAbs(as.C()) / ls;
  res.merit = dm.sum(r.squaredNorm()) / (fs * fs) + dm.sum(as.C().squaredNorm()) / (ls * ls);
  return res;
}

/// q += alpha dq on the owned bodies (manifold update), then the ghosts from their owners.
void applyOwnedVariation(const DistributedModel& dm, const VecX& dq, double alpha, VecX& q) {
  VecX full = VecX::Zero(dm.local().nv);
  full.head(dq.size()) = dq;
  applyVariation(dm.local(), full, alpha, q);
  dm.updateGhosts(q);
}

}  // namespace

DistributedStaticsResult solveDistributedStatics(DistributedAssembly& as, const StaticsOptions& o,
                                                 const SaddlePointSolverOptions& linear) {
  const DistributedModel& dm = as.distributedModel();
  const Model& m = dm.local();
  DistributedStaticsResult out;
  VecX q = initialState(m).q;
  dm.updateGhosts(q);
  VecX lambda = VecX::Zero(m.nc), r;
  auto finish = [&](DistributedSaddlePoint* kkt) {
    out.q = q;
    out.lambda = lambda;
    if (kkt) {
      out.factorizations += kkt->factorizations;
      out.solves += kkt->solves;
      out.krylov_iterations += kkt->krylov_iterations;
    }
    return out;
  };

  DistributedStaticsTimings& time = out.timings;

  // 1. Scales, and least-squares multipliers from [I C_q^T; C_q 0] (statics.cpp, step 1).
  {
    PhaseTimer timer(time.assembly);
    as.assembleForces(q, 0.0);
  }
  out.force_scale = std::max(dm.maxAbs(as.f()), 1e-300);
  out.length_scale = distributedLengthScale(dm);
  const double fs = out.force_scale, ls = out.length_scale;
  {
    PhaseTimer timer(time.assembly);
    as.assembleConstraints(q, 0.0);
  }
  SparseMatrixCSR I = as.localTangent();
  for (int row = 0; row < I.outerSize(); ++row)
    for (SparseMatrixCSR::InnerIterator it(I, row); it; ++it)
      it.valueRef() = (it.col() == row && row < dm.ownedVelocities()) ? 1.0 : 0.0;
  if (dm.globalNc() > 0) {
    std::optional<DistributedSaddlePoint> lsq;
    {
      PhaseTimer timer(time.setup);
      lsq.emplace(dm, I, as.localCq(), o.petsc_prefix, linear);
    }
    // The augmented Lagrangian: this system's Schur complement B B^T is far worse conditioned
    // than the Newton systems' (~N^2 on an N-link chain) and -(1/gamma) I approximates it only
    // for gamma large against its inverse, while a large gamma makes the velocity block harder
    // for the per-rank preconditioner across ranks (lattices). So gamma starts at the Newton
    // systems' and grows 1000-fold while FGMRES runs out of iterations, up to
    // least_squares_augmentation.
    const bool iterative = linear.method == SaddlePointSolverOptions::Method::kAugmentedLagrangian;
    Status st;
    VecX x, lam;
    for (double gamma = linear.augmentation;; gamma *= 1e3) {
      if (iterative) lsq->setAugmentation(std::min(gamma, linear.least_squares_augmentation));
      {
        PhaseTimer timer(time.factorization);
        st = lsq->factor(I, as.localCq(), 1.0, 1.0);
      }
      if (st.ok()) {
        PhaseTimer timer(time.solve);
        st = lsq->solve(as.f(), VecX::Zero(m.nc), x, lam);
      }
      if (!iterative || st.code != Status::Code::kNotConverged ||
          gamma >= linear.least_squares_augmentation)
        break;
    }
    out.factorizations += lsq->factorizations;
    out.solves += lsq->solves;
    out.krylov_iterations += lsq->krylov_iterations;
    if (!st.ok()) {
      out.status = Status::failure(
          st.code, "distributed statics: the least-squares estimate of the multipliers failed (" +
                       st.message + ")");
      return finish(nullptr);
    }
    lambda = lam;
  }

  // 2. Damped Newton (statics.cpp, step 2).
  std::optional<DistributedSaddlePoint> kkt_storage;
  {
    PhaseTimer timer(time.setup);
    kkt_storage.emplace(dm, as.localTangent(), as.localCq(), o.petsc_prefix, linear);
  }
  DistributedSaddlePoint& kkt = *kkt_storage;
  out.linear_solver = kkt.package();
  Residual res{};
  {
    PhaseTimer timer(time.assembly);
    res = evaluate(as, q, lambda, fs, ls, r);
  }
  out.history.push_back({res.force, res.position, 0.0});
  double alpha = 1.0, alpha_pred = 1.0, norm_prev = 0.0, norm_bar = 0.0;
  VecX dq_bar, dq, lam, bar_lam;
  for (int it = 0; it < o.max_iterations; ++it) {
    if (res.force <= o.force_tolerance && res.position <= o.position_tolerance) {
      out.status = Status::success();
      return finish(&kkt);
    }
    double scale = 1.0, amax = 0.0;
    {
      PhaseTimer timer(time.assembly);
      as.assembleTangent(q, 0.0, lambda, o.constraint_stiffness);
      const double cmax = dm.max([&] {
        double c = 0.0;
        for (int k = 0; k < as.localCq().nonZeros(); ++k)
          c = std::max(c, std::abs(as.localCq().valuePtr()[k]));
        return c;
      }());
      amax = as.maxAbsTangent();
      scale = (amax > 0.0 && cmax > 0.0) ? amax / cmax : 1.0;
    }
    Status st;
    {
      PhaseTimer timer(time.factorization);
      st = kkt.factor(as.localTangent(), as.localCq(), scale, amax);
    }
    if (st.ok()) {
      PhaseTimer timer(time.solve);
      st = kkt.solve(r, VecX(-as.C()), dq, lam);
    }
    if (!st.ok()) {
      std::ostringstream os;
      os << "distributed statics: "
         << (st.code == Status::Code::kSingular ? "singular tangent" : "the Newton system's solve")
         << " at iteration " << it << " (" << st.message << ")";
      out.status = Status::failure(st.code, os.str());
      break;
    }
    const double norm_dq = naturalNorm(dm, dq, ls);
    if (it > 0 && norm_prev > 0.0 && norm_dq > 0.0) {
      const double d = naturalNorm(dm, VecX(dq_bar - dq), ls);
      alpha_pred = d > 0.0 ? std::min(1.0, alpha * norm_prev * norm_bar / (d * norm_dq)) : 1.0;
    }
    const double rotation = dm.max(largestRotation(dm.local(), dq));
    alpha = std::max(std::min(alpha_pred, o.max_rotation_step / rotation), o.min_step);
    VecX trial_q, trial_lambda;
    Residual tres{};
    bool accepted = false;
    for (int trial_it = 0; trial_it < 40; ++trial_it) {
      trial_q = q;
      applyOwnedVariation(dm, dq, alpha, trial_q);
      trial_lambda = lambda + alpha * lam;
      {
        PhaseTimer timer(time.assembly);
        tres = evaluate(as, trial_q, trial_lambda, fs, ls, r);
      }
      if (!std::isfinite(tres.merit)) {
        alpha *= 0.5;
        continue;
      }
      Status sb;
      {
        PhaseTimer timer(time.solve);
        sb = kkt.solve(r, VecX(-as.C()), dq_bar, bar_lam);
      }
      norm_bar = sb.ok() ? naturalNorm(dm, dq_bar, ls) : INFINITY;
      if (norm_dq <= 1e-15 || norm_bar <= (1.0 - 0.25 * alpha) * norm_dq ||
          (tres.force <= o.force_tolerance && tres.position <= o.position_tolerance)) {
        accepted = true;
        break;
      }
      if (alpha <= o.min_step) break;
      const double h =
          2.0 * naturalNorm(dm, VecX(dq_bar - (1.0 - alpha) * dq), ls) / (alpha * alpha * norm_dq);
      alpha = std::max(o.min_step, std::min(0.5 * alpha, h > 0.0 ? 1.0 / h : 0.5 * alpha));
    }
    norm_prev = norm_dq;
    if (!accepted) {
      std::ostringstream os;
      os << "distributed statics: no damped Newton step reduces the correction at iteration " << it
         << " (force residual " << res.force << ", position residual " << res.position << ")";
      out.status = Status::failure(Status::Code::kNotConverged, os.str());
      break;
    }
    q = trial_q;
    lambda = trial_lambda;
    res = tres;
    out.history.push_back({res.force, res.position, alpha});
  }
  if (out.status.ok()) {
    if (res.force <= o.force_tolerance && res.position <= o.position_tolerance) return finish(&kkt);
    std::ostringstream os;
    os << "distributed statics did not converge in " << o.max_iterations
       << " iterations (force residual " << res.force << ", position residual " << res.position
       << ")";
    out.status = Status::failure(Status::Code::kNotConverged, os.str());
  }
  return finish(&kkt);
}

double lowestMarkerHeight(const DistributedModel& dm, const VecX& q) {
  const Model& m = dm.local();
  const double g = m.gravity.norm();
  const Vec3 up = g > 0.0 ? Vec3(-m.gravity / g) : Vec3::UnitZ();
  double z = std::numeric_limits<double>::infinity();
  for (Index k = 0; k < static_cast<Index>(m.markers.size()); ++k) {
    const Index b = m.markers[k].body;
    if (b >= 0 && b < dm.part().owned_bodies)
      z = std::min(z, markerPosition(m, q.data(), k).dot(up));
  }
  return -dm.max(-z);
}

JointReaction distributedJointReaction(const DistributedAssembly& as, const VecX& q, double t,
                                       const VecX& lambda, Index joint) {
  const DistributedModel& dm = as.distributedModel();
  const Model& m = dm.local();
  const Index local = joint - dm.part().first_joint;
  Eigen::Matrix<double, 12, 1> x = Eigen::Matrix<double, 12, 1>::Zero();
  if (local >= 0 && local < static_cast<Index>(m.joints.size())) {
    const JointReaction r = computeJointReactions(m, as.plan(), q, t, lambda)[local];
    x << r.force_joint, r.torque_joint, r.force_world, r.torque_world;
  }
  Eigen::Matrix<double, 12, 1> y;
  MPI_Allreduce(x.data(), y.data(), 12, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD);
  JointReaction r;
  r.force_joint = y.segment<3>(0);
  r.torque_joint = y.segment<3>(3);
  r.force_world = y.segment<3>(6);
  r.torque_world = y.segment<3>(9);
  return r;
}

}  // namespace catena
