#include "formulations/rotation_matrix/rm_dae_ida.hpp"

#include "integrators/sundials/ida_glue.hpp"
#include "integrators/sundials/sundials_glue.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "formulations/rotation_matrix/rm_assembly.hpp"
#include "formulations/rotation_matrix/rm_two_step.hpp"

namespace catena::rm {

RmGglWorkspace::RmGglWorkspace(const RmModel& model)
    : Cq(model.m, model.n), Cq_v(model.m, model.n), C(model.m) {
  assembleRmMassMatrix(model, M);
  assembleRmForces(model, f);
}

void computeRmGglResidual(const RmModel& model, RmGglWorkspace& ws, const Eigen::Ref<const VecX>& y,
                          const Eigen::Ref<const VecX>& yp, Eigen::Ref<VecX> F) {
  const Index n = model.n, m = model.m;
  assembleRmConstraints(model, y.segment(0, n), &ws.C, &ws.Cq);
  const auto v = y.segment(n, n);
  const auto lambda = y.segment(2 * n, m);
  const auto mu = y.segment(2 * n + m, m);
  F.segment(0, n) = yp.segment(0, n) - v;
  F.segment(0, n).noalias() += ws.Cq.transpose() * mu;
  F.segment(n, n).noalias() = ws.M * yp.segment(n, n);
  F.segment(n, n).noalias() += ws.Cq.transpose() * lambda;
  F.segment(n, n) -= ws.f;
  F.segment(2 * n, m) = ws.C;
  F.segment(2 * n + m, m).noalias() = ws.Cq * v;
}

void computeRmGglJacobian(const RmModel& model, RmGglWorkspace& ws, const Eigen::Ref<const VecX>& y,
                          double c_j, Eigen::Ref<MatX> J) {
  const Index n = model.n, m = model.m;
  assembleRmConstraints(model, y.segment(0, n), nullptr, &ws.Cq);
  // d(C_q v)/dq = C_q at v: the orthogonality rows are quadratic, the joints linear (the joint
  // rows of C_q(v) would add T-like terms, so they are zeroed).
  assembleRmConstraints(model, y.segment(n, n), nullptr, &ws.Cq_v);
  ws.Cq_v.bottomRows(model.m_joints).setZero();
  J.setZero();
  J.block(0, 0, n, n).diagonal().array() += c_j;
  addRmConstraintHessianTimes(model, y.segment(2 * n + m, m), 1.0, J.block(0, 0, n, n));
  J.block(0, n, n, n).diagonal().array() -= 1.0;
  J.block(0, 2 * n + m, n, m) = ws.Cq.transpose();
  addRmConstraintHessianTimes(model, y.segment(2 * n, m), 1.0, J.block(n, 0, n, n));
  J.block(n, n, n, n) = c_j * ws.M;
  J.block(n, 2 * n, n, m) = ws.Cq.transpose();
  J.block(2 * n, 0, m, n) = ws.Cq;
  J.block(2 * n + m, 0, m, n) = ws.Cq_v;
  J.block(2 * n + m, n, m, n) = ws.Cq;
}

// ---------------------------------------------------------------------------------------------
// IDA adapter: the only part of this file that sees SUNDIALS.

namespace {

using Clock = std::chrono::steady_clock;

struct IdaRun {
  IdaRun(const RmModel& m) : model(m), ws(m) {}
  const RmModel& model;
  RmGglWorkspace ws;
  std::string callback_error, ida_error;
};

int residualCallback(sunrealtype, N_Vector y, N_Vector yp, N_Vector r, void* user) {
  auto& run = *static_cast<IdaRun*>(user);
  return formulations::guardedCallback(run.callback_error, "the residual", [&] {
    const Index N = rmGglSize(run.model);
    computeRmGglResidual(run.model, run.ws, Eigen::Map<const VecX>(N_VGetArrayPointer(y), N),
                         Eigen::Map<const VecX>(N_VGetArrayPointer(yp), N),
                         Eigen::Map<VecX>(N_VGetArrayPointer(r), N));
    return 0;
  });
}

int jacobianCallback(sunrealtype, sunrealtype c_j, N_Vector y, N_Vector, N_Vector, SUNMatrix J,
                     void* user, N_Vector, N_Vector, N_Vector) {
  auto& run = *static_cast<IdaRun*>(user);
  return formulations::guardedCallback(run.callback_error, "the Jacobian", [&] {
    const Index N = rmGglSize(run.model);
    // SUNDenseMatrix stores columns contiguously with leading dimension N: an Eigen
    // column-major map.
    computeRmGglJacobian(run.model, run.ws, Eigen::Map<const VecX>(N_VGetArrayPointer(y), N), c_j,
                         Eigen::Map<MatX>(SUNDenseMatrix_Data(J), N, N));
    return 0;
  });
}

void errorHandler(int, const char*, const char* function, char* msg, void* user) {
  static_cast<IdaRun*>(user)->ida_error = std::string(function) + ": " + msg;
}

}  // namespace

RmRunResult integrateRmIda(const RmModel& model, const RmState& initial,
                           const RmIdaOptions& options, const RmObserver& observer) {
  const auto start = Clock::now();
  RmRunResult result;
  result.method = "rotation-matrix DAE, IDA index-2 GGL (dense)";
  result.state = initial;
  const Index n = model.n, m = model.m, N = rmGglSize(model);
  IdaRun run(model);
  auto finish = [&](Status st) {
    result.status = std::move(st);
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
    return finish(Status::failure(Status::Code::kInvalidInput, "IDA: t_end must exceed t0"));
  VecX vdot, lambda;
  {
    const Status st = computeRmAccelerationsKkt(model, initial.q, initial.v, vdot, lambda);
    if (!st.ok()) return finish(st);
  }
  result.state.lambda = lambda;
  if (!observe(result.state)) return finish(Status::success());

  formulations::DenseIda ida;
  if (SUNContext_Create(nullptr, &ida.ctx) != 0)
    return finish(Status::failure(Status::Code::kResources, "SUNContext_Create failed"));
  ida.y = N_VNew_Serial(N, ida.ctx);
  ida.yp = N_VNew_Serial(N, ida.ctx);
  ida.id = N_VNew_Serial(N, ida.ctx);
  ida.atol = N_VNew_Serial(N, ida.ctx);
  if (!ida.y || !ida.yp || !ida.id || !ida.atol)
    return finish(Status::failure(Status::Code::kResources, "N_VNew_Serial failed"));
  Eigen::Map<VecX> y(N_VGetArrayPointer(ida.y), N), yp(N_VGetArrayPointer(ida.yp), N);
  Eigen::Map<VecX> id(N_VGetArrayPointer(ida.id), N), atol(N_VGetArrayPointer(ida.atol), N);
  y.setZero();
  yp.setZero();
  y.segment(0, n) = initial.q;
  y.segment(n, n) = initial.v;
  y.segment(2 * n, m) = lambda;  // mu = 0
  yp.segment(0, n) = initial.v;
  yp.segment(n, n) = vdot;
  id.head(2 * n).setOnes();
  id.tail(2 * m).setZero();
  atol.head(2 * n).setConstant(options.atol);
  atol.tail(2 * m).setConstant(options.multiplier_atol);

  ida.mem = IDACreate(ida.ctx);
  if (!ida.mem) return finish(Status::failure(Status::Code::kResources, "IDACreate failed"));
  int flag = IDASetErrHandlerFn(ida.mem, errorHandler, &run);
  if (flag == IDA_SUCCESS) flag = IDAInit(ida.mem, residualCallback, initial.t, ida.y, ida.yp);
  if (flag == IDA_SUCCESS) flag = IDASetUserData(ida.mem, &run);
  if (flag == IDA_SUCCESS) flag = IDASVtolerances(ida.mem, options.rtol, ida.atol);
  if (flag == IDA_SUCCESS) flag = IDASetId(ida.mem, ida.id);
  if (flag == IDA_SUCCESS) flag = IDASetSuppressAlg(ida.mem, SUNTRUE);
  if (flag == IDA_SUCCESS) flag = IDASetMaxOrd(ida.mem, options.max_order);
  if (flag == IDA_SUCCESS) flag = IDASetMaxNumSteps(ida.mem, options.max_steps);
  if (flag == IDA_SUCCESS) {
    ida.J = SUNDenseMatrix(N, N, ida.ctx);
    ida.ls = ida.J ? SUNLinSol_Dense(ida.y, ida.J, ida.ctx) : nullptr;
    flag = ida.ls ? IDASetLinearSolver(ida.mem, ida.ls, ida.J) : IDA_MEM_FAIL;
  }
  if (flag == IDA_SUCCESS) flag = IDASetJacFn(ida.mem, jacobianCallback);
  if (flag != IDA_SUCCESS)
    return finish(
        Status::failure(Status::Code::kInvalidInput, "IDA setup failed: " + run.ida_error));

  auto collectStats = [&]() {
    long k = 0;
    if (IDAGetNumSteps(ida.mem, &k) == IDA_SUCCESS) result.stats.steps = k;
    if (IDAGetNumResEvals(ida.mem, &k) == IDA_SUCCESS) result.stats.rhs_evaluations = k;
    if (IDAGetNumErrTestFails(ida.mem, &k) == IDA_SUCCESS) result.stats.error_test_failures = k;
    if (IDAGetNumNonlinSolvIters(ida.mem, &k) == IDA_SUCCESS) result.stats.newton_iterations = k;
    if (IDAGetNumNonlinSolvConvFails(ida.mem, &k) == IDA_SUCCESS)
      result.stats.convergence_failures = k;
    if (IDAGetNumJacEvals(ida.mem, &k) == IDA_SUCCESS) result.stats.jacobian_evaluations = k;
  };
  double t = initial.t;
  const double dt = options.output_interval;
  long k = 0;
  while (t < options.t_end) {
    const double tout = dt > 0.0
                            ? std::min(options.t_end, initial.t + static_cast<double>(++k) * dt)
                            : options.t_end;
    if ((flag = IDASetStopTime(ida.mem, tout)) != IDA_SUCCESS) break;
    double tret = t;
    flag = IDASolve(ida.mem, tout, &tret, ida.y, ida.yp, dt > 0.0 ? IDA_NORMAL : IDA_ONE_STEP);
    if (flag < 0) break;
    t = tret;
    RmState& s = result.state;
    s.t = t;
    s.q = y.segment(0, n);
    s.v = y.segment(n, n);
    s.lambda = y.segment(2 * n, m);
    if (!observe(s)) break;
  }
  collectStats();
  if (flag < 0) {
    return finish(
        Status::failure(Status::Code::kNotConverged,
                        ida_glue::idaFailureMessage(t, flag, run.ida_error, run.callback_error)));
  }
  return finish(Status::success());
}

}  // namespace catena::rm
