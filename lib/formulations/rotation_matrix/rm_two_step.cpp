#include "formulations/rotation_matrix/rm_two_step.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "formulations/rotation_matrix/rm_assembly.hpp"
#include "formulations/rotation_matrix/rm_body.hpp"
#include "formulations/rotation_matrix/rm_joints.hpp"
#include "integrators/sundials/arkode.hpp"

namespace catena::rm {
namespace {

Eigen::Map<const Mat3> rotation(const VecX& q, Index offset) {
  return Eigen::Map<const Mat3>(q.data() + offset + 3);
}

/// C_J,q q'' (m_J): the joints' accelerations (T1'' + R1'' p1) - (T2'' + R2'' p2).
void computeJointAccelerations(const RmModel& model, const VecX& qdd, VecX& out) {
  for (Index j = 0; j < static_cast<Index>(model.joints.size()); ++j) {
    const RmSphericalJoint& joint = model.joints[j];
    const Index o1 = model.qOffset(joint.body1);
    Vec3 a = qdd.segment<3>(o1) + rotation(qdd, o1) * joint.point1;
    if (joint.body2 != kGround) {
      const Index o2 = model.qOffset(joint.body2);
      a -= qdd.segment<3>(o2) + rotation(qdd, o2) * joint.point2;
    }
    out.segment<3>(kSphericalRows * j) = a;
  }
}

}  // namespace

RmTwoStepWorkspace::RmTwoStepWorkspace(const RmModel& model)
    : X(model.bodies.size()),
      Y(model.bodies.size()),
      Lambda(model.bodies.size()),
      S(model.m_joints, model.m_joints),
      qdd0(model.n),
      rhs(model.m_joints),
      lambda_joints(model.m_joints),
      lu(model.m_joints),
      M_inverse(MatX::Zero(model.n, model.n)),
      Cq(model.m, model.n),
      W(model.m, model.m),
      C(model.m),
      dq(model.n),
      w_lu(model.m) {
  for (Index b = 0; b < static_cast<Index>(model.bodies.size()); ++b) {
    const Index o = model.qOffset(b);
    M_inverse.block<12, 12>(o, o) = computeBodyMassMatrix(model.bodies[b]).inverse();
  }
}

void computeRmAccelerationsForJointMultipliers(const RmModel& model, const VecX& q, const VecX& v,
                                               const VecX& lambda_joints, RmTwoStepWorkspace& ws,
                                               VecX& qdd, VecX* orthogonality) {
  const Index nb = static_cast<Index>(model.bodies.size());
  for (Index b = 0; b < nb; ++b)
    computeBodyGravity(model.bodies[b], model.gravity, ws.X[b], ws.Y[b]);
  Vec3 X_ground;
  Mat3 Y_ground;
  for (Index j = 0; j < static_cast<Index>(model.joints.size()); ++j) {
    const RmSphericalJoint& joint = model.joints[j];
    const bool ground = joint.body2 == kGround;
    addSphericalForces(joint, lambda_joints.segment<3>(kSphericalRows * j), ws.X[joint.body1],
                       ws.Y[joint.body1], ground ? X_ground : ws.X[joint.body2],
                       ground ? Y_ground : ws.Y[joint.body2]);
  }
  qdd.resize(model.n);
  for (Index b = 0; b < nb; ++b) {
    const Index o = model.qOffset(b);
    Vec3 T_ddot;
    Mat3 R_ddot;
    computeBodyAcceleration(model.bodies[b], rotation(q, o), rotation(v, o), ws.X[b], ws.Y[b], true,
                            T_ddot, R_ddot, ws.Lambda[b]);
    qdd.segment<3>(o) = T_ddot;
    qdd.segment<9>(o + 3) = Eigen::Map<const Eigen::Matrix<double, 9, 1>>(R_ddot.data());
    if (orthogonality)
      orthogonality->segment<6>(model.orthogonalityRow(b)) = rowsFromSymmetric(ws.Lambda[b]);
  }
}

void computeRmJointSchurMatrix(const RmModel& model, const VecX& q, RmTwoStepWorkspace& ws) {
  const Index nj = static_cast<Index>(model.joints.size());
  ws.S.setZero(model.m_joints, model.m_joints);
  const Mat3 zero = Mat3::Zero();
  for (Index k = 0; k < nj; ++k) {
    const RmSphericalJoint& jk = model.joints[k];
    for (int c = 0; c < 3; ++c) {
      const Index col = kSphericalRows * k + c;
      Vec3 X[2] = {Vec3::Zero(), Vec3::Zero()};
      Mat3 Y[2] = {Mat3::Zero(), Mat3::Zero()};
      addSphericalForces(jk, Vec3::Unit(c), X[0], Y[0], X[1], Y[1]);
      const Index bodies[2] = {jk.body1, jk.body2};
      for (int side = 0; side < 2; ++side) {
        const Index b = bodies[side];
        if (b == kGround) continue;
        // The linear part of step 1: no weight, no velocity term.
        Vec3 T_ddot;
        Mat3 R_ddot, Lambda;
        computeBodyAcceleration(model.bodies[b], rotation(q, model.qOffset(b)), zero, X[side],
                                Y[side], false, T_ddot, R_ddot, Lambda);
        for (Index i = 0; i < nj; ++i) {
          const RmSphericalJoint& ji = model.joints[i];
          if (ji.body1 == b)
            ws.S.block<3, 1>(kSphericalRows * i, col) += T_ddot + R_ddot * ji.point1;
          if (ji.body2 == b)
            ws.S.block<3, 1>(kSphericalRows * i, col) -= T_ddot + R_ddot * ji.point2;
        }
      }
    }
  }
}

Status computeRmAccelerationsTwoStep(const RmModel& model, const VecX& q, const VecX& v,
                                     RmTwoStepWorkspace& ws, VecX& qdd, VecX* lambda) {
  ws.lambda_joints.setZero();
  computeRmAccelerationsForJointMultipliers(model, q, v, ws.lambda_joints, ws, ws.qdd0);
  if (model.m_joints > 0) {
    // gamma_J = 0 for spherical joints (linear in q).
    computeJointAccelerations(model, ws.qdd0, ws.rhs);
    ws.rhs = -ws.rhs;
    computeRmJointSchurMatrix(model, q, ws);
    ws.lu.compute(ws.S);
    const double rcond = ws.lu.rcond();
    if (!(rcond > 1e-14)) {
      std::ostringstream os;
      os << "two-step elimination: the joint matrix S is singular (reciprocal condition " << rcond
         << "): dependent joints?";
      return Status::failure(Status::Code::kSingular, os.str());
    }
    ws.lambda_joints = ws.lu.solve(ws.rhs);
  }
  if (lambda) {
    lambda->resize(model.m);
    lambda->tail(model.m_joints) = ws.lambda_joints;
  }
  // The orthogonality multipliers go straight into lambda's head (the same row order).
  computeRmAccelerationsForJointMultipliers(model, q, v, ws.lambda_joints, ws, qdd, lambda);
  if (!qdd.allFinite())
    return Status::failure(Status::Code::kSingular,
                           "two-step elimination: non-finite accelerations");
  return Status::success();
}

Status computeRmAccelerationsKkt(const RmModel& model, const VecX& q, const VecX& v, VecX& qdd,
                                 VecX& lambda) {
  const Index n = model.n, m = model.m;
  MatX M, Cq;
  VecX f, gamma;
  assembleRmMassMatrix(model, M);
  assembleRmConstraints(model, q, nullptr, &Cq);
  assembleRmForces(model, f);
  assembleRmGamma(model, v, gamma);
  MatX K = MatX::Zero(n + m, n + m);
  K.topLeftCorner(n, n) = M;
  K.topRightCorner(n, m) = Cq.transpose();
  K.bottomLeftCorner(m, n) = Cq;
  VecX rhs(n + m);
  rhs << f, gamma;
  const Eigen::FullPivLU<MatX> lu(K);
  if (!lu.isInvertible())
    return Status::failure(Status::Code::kSingular, "rotation-matrix KKT matrix is singular");
  const VecX x = lu.solve(rhs);
  qdd = x.head(n);
  lambda = x.tail(m);
  return Status::success();
}

Status projectRmState(const RmModel& model, RmTwoStepWorkspace& ws, VecX& q, VecX& v,
                      double tolerance, int max_iterations) {
  const Index mo = model.m_orthogonality;
  auto converged = [&]() {
    const double ortho = mo ? ws.C.head(mo).cwiseAbs().maxCoeff() : 0.0;
    const double joints = model.m_joints ? ws.C.tail(model.m_joints).cwiseAbs().maxCoeff() : 0.0;
    return ortho <= tolerance && joints <= tolerance * model.length_scale;
  };
  int it = 0;
  for (;; ++it) {
    assembleRmConstraints(model, q, &ws.C, &ws.Cq);
    if (converged()) break;
    if (it == max_iterations) {
      std::ostringstream os;
      os << "projection onto the constraints did not converge in " << max_iterations
         << " iterations (|C| = " << ws.C.cwiseAbs().maxCoeff() << ")";
      return Status::failure(Status::Code::kNotConverged, os.str());
    }
    ws.W.noalias() = ws.Cq * ws.M_inverse * ws.Cq.transpose();
    ws.w_lu.compute(ws.W);
    ws.dq.noalias() = ws.M_inverse * (ws.Cq.transpose() * ws.w_lu.solve(ws.C));
    q -= ws.dq;
  }
  // Velocity projection with C_q at the projected q.
  ws.W.noalias() = ws.Cq * ws.M_inverse * ws.Cq.transpose();
  ws.w_lu.compute(ws.W);
  ws.C.noalias() = ws.Cq * v;
  ws.dq.noalias() = ws.M_inverse * (ws.Cq.transpose() * ws.w_lu.solve(ws.C));
  v -= ws.dq;
  return Status::success();
}

// ---------------------------------------------------------------------------------------------
// ARKODE adapter: the only part of this file that sees SUNDIALS.

namespace {

using Clock = std::chrono::steady_clock;

struct TwoStepRun {
  TwoStepRun(const RmModel& m, const RmTwoStepOptions& o)
      : model(m), options(o), ws(m), q(m.n), v(m.n), qdd(m.n) {}
  const RmModel& model;
  const RmTwoStepOptions& options;
  RmTwoStepWorkspace ws;
  VecX q, v, qdd;
  long projections = 0;
  sundials::ErrorLog log;
};

void load(TwoStepRun& run, N_Vector y) {
  const double* d = N_VGetArrayPointer(y);
  run.q = Eigen::Map<const VecX>(d, run.model.n);
  run.v = Eigen::Map<const VecX>(d + run.model.n, run.model.n);
}

int rhsCallback(sunrealtype, N_Vector y, N_Vector ydot, void* user) {
  auto& run = *static_cast<TwoStepRun*>(user);
  return sundials::guarded(run.log.callback, "the right-hand side", [&] {
    load(run, y);
    const Status st = computeRmAccelerationsTwoStep(run.model, run.q, run.v, run.ws, run.qdd);
    if (!st.ok()) {
      run.log.callback = st;
      return -1;
    }
    double* d = N_VGetArrayPointer(ydot);
    Eigen::Map<VecX>(d, run.model.n) = run.v;
    Eigen::Map<VecX>(d + run.model.n, run.model.n) = run.qdd;
    return 0;
  });
}

bool drifted(const TwoStepRun& run) {
  const double tol = run.options.projection_tolerance;
  if (tol <= 0.0) return true;
  const RmDrift d = computeRmDrift(run.model, run.q, run.v);
  const double vscale = std::max(1.0, run.v.cwiseAbs().maxCoeff());
  return d.orthogonality > tol || d.joints > tol * run.model.length_scale ||
         d.velocity > tol * vscale;
}

int postprocessCallback(sunrealtype, N_Vector y, void* user) {
  auto& run = *static_cast<TwoStepRun*>(user);
  return sundials::guarded(run.log.callback, "the projection", [&] {
    load(run, y);
    if (!drifted(run)) return 0;
    const double tol =
        run.options.projection_tolerance > 0.0 ? 1e-3 * run.options.projection_tolerance : 1e-13;
    const Status st = projectRmState(run.model, run.ws, run.q, run.v, tol);
    if (!st.ok()) {
      run.log.callback = st;
      return -1;
    }
    ++run.projections;
    double* d = N_VGetArrayPointer(y);
    Eigen::Map<VecX>(d, run.model.n) = run.q;
    Eigen::Map<VecX>(d + run.model.n, run.model.n) = run.v;
    return 0;
  });
}

}  // namespace

RmRunResult integrateRmTwoStep(const RmModel& model, const RmState& initial,
                               const RmTwoStepOptions& options, const RmObserver& observer) {
  const auto start = Clock::now();
  RmRunResult result;
  result.method =
      std::string("rotation-matrix two-step elimination, ARKODE ERKStep ") +
      (options.table == RmErkTable::kFehlberg78 ? "Fehlberg 7(8)" : "Dormand-Prince 5(4)");
  result.state = initial;
  TwoStepRun run(model, options);
  const Index n = model.n;
  auto finish = [&](Status st) {
    result.status = std::move(st);
    result.stats.projections = run.projections;
    result.stats.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
  };
  auto observe = [&](const RmState& s) {
    const RmDrift d = computeRmDrift(model, s.q, s.v);
    RmDrift& w = result.stats.max_drift;
    w.orthogonality = std::max(w.orthogonality, d.orthogonality);
    w.joints = std::max(w.joints, d.joints);
    w.velocity = std::max(w.velocity, d.velocity);
    return observer ? observer(s) : true;
  };
  if (!(options.t_end > initial.t))
    return finish(Status::failure(Status::Code::kInvalidInput, "two-step: t_end must exceed t0"));
  {
    const Status st = computeRmAccelerationsTwoStep(model, initial.q, initial.v, run.ws, run.qdd,
                                                    &result.state.lambda);
    if (!st.ok()) return finish(st);
  }
  if (!observe(result.state)) return finish(Status::success());

  sundials::ErkObjects ark;
  if (!ark.makeSerialState(2 * n))
    return finish(Status::failure(Status::Code::kResources, "two-step: out of memory"));
  double* yd = N_VGetArrayPointer(ark.y.get());
  Eigen::Map<VecX>(yd, n) = initial.q;
  Eigen::Map<VecX>(yd + n, n) = initial.v;
  const sundials::SetupGuard g =
      sundials::startErk(ark, run, rhsCallback, postprocessCallback, initial.t,
                         {options.table == RmErkTable::kFehlberg78 ? ARKODE_FEHLBERG_13_7_8
                                                                   : ARKODE_DORMAND_PRINCE_7_4_5,
                          options.rtol, options.atol, options.max_steps, 0.0});
  if (!g.ok()) return finish(g.status("two-step", sundials::arkodeFlagName, run.log));
  void* mem = ark.mem.get();
  int flag = ARK_SUCCESS;
  auto collectStats = [&]() {
    long k = 0;
    if (ERKStepGetNumSteps(mem, &k) == ARK_SUCCESS) result.stats.steps = k;
    if (ERKStepGetNumRhsEvals(mem, &k) == ARK_SUCCESS) result.stats.rhs_evaluations = k;
    if (ERKStepGetNumErrTestFails(mem, &k) == ARK_SUCCESS) result.stats.error_test_failures = k;
  };
  double t = initial.t;
  sundials::OutputTimes times{initial.t, options.t_end, options.output_interval};
  while (t < options.t_end) {
    if ((flag = sundials::advance(ark, times, t)) < 0) break;
    RmState& s = result.state;
    s.t = t;
    s.q = Eigen::Map<const VecX>(yd, n);
    s.v = Eigen::Map<const VecX>(yd + n, n);
    const Status st = computeRmAccelerationsTwoStep(model, s.q, s.v, run.ws, run.qdd, &s.lambda);
    if (!st.ok()) {
      collectStats();
      return finish(st);
    }
    if (!observe(s)) break;
  }
  collectStats();
  if (flag < 0)
    return finish(run.log.stopped(result.method, t, options.t_end, sundials::arkodeFlagName(flag)));
  return finish(Status::success());
}

}  // namespace catena::rm
