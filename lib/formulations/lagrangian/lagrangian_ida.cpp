#include "formulations/lagrangian/lagrangian_ida.hpp"

#include "integrators/sundials/ida_glue.hpp"
#include "integrators/sundials/sundials_glue.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace catena::lagrangian {

namespace {

using Clock = std::chrono::steady_clock;

struct IdaRun {
  IdaRun(const LagrangianSystem& s, LagrangianForm form) : sys(s), layout(s, form), ws(s) {}
  const LagrangianSystem& sys;
  LagrangianDaeLayout layout;
  LagrangianDaeWorkspace ws;
  std::string callback_error, ida_error;
};

int residualCallback(sunrealtype, N_Vector y, N_Vector yp, N_Vector r, void* user) {
  auto& run = *static_cast<IdaRun*>(user);
  return formulations::guardedCallback(run.callback_error, "the residual", [&] {
    const Index N = run.layout.size();
    computeLagrangianDaeResidual(run.sys, run.layout, run.ws,
                                 Eigen::Map<const VecX>(N_VGetArrayPointer(y), N),
                                 Eigen::Map<const VecX>(N_VGetArrayPointer(yp), N),
                                 Eigen::Map<VecX>(N_VGetArrayPointer(r), N));
    return 0;
  });
}

int jacobianCallback(sunrealtype, sunrealtype c_j, N_Vector y, N_Vector, N_Vector, SUNMatrix J,
                     void* user, N_Vector, N_Vector, N_Vector) {
  auto& run = *static_cast<IdaRun*>(user);
  return formulations::guardedCallback(run.callback_error, "the Jacobian", [&] {
    const Index N = run.layout.size();
    // SUNDenseMatrix is column-major with leading dimension N: an Eigen map.
    computeLagrangianDaeJacobian(run.sys, run.layout, run.ws,
                                 Eigen::Map<const VecX>(N_VGetArrayPointer(y), N), c_j,
                                 Eigen::Map<MatX>(SUNDenseMatrix_Data(J), N, N));
    return 0;
  });
}

void errorHandler(int, const char*, const char* function, char* msg, void* user) {
  static_cast<IdaRun*>(user)->ida_error = std::string(function) + ": " + msg;
}

}  // namespace

LagrangianRunResult integrateLagrangianIda(const LagrangianSystem& sys,
                                           const LagrangianState& initial,
                                           const LagrangianIdaOptions& options,
                                           const LagrangianObserver& observer) {
  const auto start = Clock::now();
  LagrangianRunResult result;
  const bool ggl = options.form == LagrangianForm::kStabilizedIndex2;
  result.method = std::string("Lagrangian (AD) momentum form, IDA ") +
                  (ggl ? "index-2 GGL" : "index-3") + " (dense)";
  result.state = initial;
  IdaRun run(sys, options.form);
  const LagrangianDaeLayout& ly = run.layout;
  const Index n = ly.n, m = ly.m, N = ly.size();
  auto finish = [&](Status st) {
    result.status = std::move(st);
    result.stats.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
  };
  LagrangianFirstOrder drift;
  drift.resize(n, m);
  auto observe = [&](const LagrangianState& s) {
    sys.evaluateFirst(s.q, s.v, drift);
    if (m > 0) {
      LagrangianRunStats& st = result.stats;
      st.max_position_drift = std::max(st.max_position_drift, drift.C.cwiseAbs().maxCoeff());
      st.max_velocity_drift =
          std::max(st.max_velocity_drift, (drift.C_q * s.v).cwiseAbs().maxCoeff());
    }
    return observer ? observer(s) : true;
  };
  if (initial.q.size() != n || initial.v.size() != n || initial.p.size() != n ||
      initial.lambda.size() != m || initial.vdot.size() != n || initial.pdot.size() != n)
    return finish(Status::failure(Status::Code::kInvalidInput,
                                  "IDA: the initial state does not match the system's sizes "
                                  "(use computeConsistentLagrangianState)"));
  if (!(options.t_end > initial.t))
    return finish(Status::failure(Status::Code::kInvalidInput, "IDA: t_end must exceed t0"));
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
  y.segment(ly.q(), n) = initial.q;
  y.segment(ly.v(), n) = initial.v;
  y.segment(ly.p(), n) = initial.p;
  y.segment(ly.lambda(), m) = initial.lambda;  // mu = 0
  yp.segment(ly.q(), n) = initial.v;
  yp.segment(ly.v(), n) = initial.vdot;
  yp.segment(ly.p(), n) = initial.pdot;
  // id marks the components in the error test (IDASetSuppressAlg); IDACalcIC is not used (the
  // DAE has index 2 or 3; the consistent point comes from computeConsistentLagrangianState).
  id.setZero();
  id.segment(ly.q(), n).setOnes();
  if (ggl) id.segment(ly.v(), 2 * n).setOnes();
  atol.setConstant(options.atol);
  atol.segment(ly.lambda(), N - ly.lambda()).setConstant(options.multiplier_atol);
  // Index 3: v and p are index-2 variables whose Newton corrections are O(1/h) inaccurate near
  // t0; with a tight atol the corrector never converges (TOOLCHAIN.md, pitfall 7).
  if (!ggl) atol.segment(ly.v(), 2 * n).setConstant(options.multiplier_atol);

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
  if (flag == IDA_SUCCESS && options.initial_step >= 0.0)
    flag = IDASetInitStep(ida.mem, options.initial_step > 0.0 ? options.initial_step
                                                              : 1e-6 * (options.t_end - initial.t));
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
    LagrangianRunStats& st = result.stats;
    if (IDAGetNumSteps(ida.mem, &k) == IDA_SUCCESS) st.steps = k;
    if (IDAGetNumResEvals(ida.mem, &k) == IDA_SUCCESS) st.residual_evaluations = k;
    if (IDAGetNumErrTestFails(ida.mem, &k) == IDA_SUCCESS) st.error_test_failures = k;
    if (IDAGetNumNonlinSolvIters(ida.mem, &k) == IDA_SUCCESS) st.newton_iterations = k;
    if (IDAGetNumNonlinSolvConvFails(ida.mem, &k) == IDA_SUCCESS) st.convergence_failures = k;
    if (IDAGetNumJacEvals(ida.mem, &k) == IDA_SUCCESS) st.jacobian_evaluations = k;
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
    LagrangianState& s = result.state;
    s.t = t;
    s.q = y.segment(ly.q(), n);
    s.v = y.segment(ly.v(), n);
    s.p = y.segment(ly.p(), n);
    s.lambda = y.segment(ly.lambda(), m);
    s.vdot = yp.segment(ly.v(), n);
    s.pdot = yp.segment(ly.p(), n);
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

}  // namespace catena::lagrangian
