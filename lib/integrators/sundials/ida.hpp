#pragma once
/// @file ida.hpp
/// The SUNDIALS layer (context.hpp) for IDA: the objects of a run, the one way of setting its
/// error weights and tolerances, its start, its counters and the names of its flags. Used by the
/// mixed-basis IDA (serial and distributed), the Lagrangian IDA and the rotation-matrix IDA.
/// Internal to lib/integrators and lib/formulations.

#include <ida/ida.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <cmath>
#include <string>
#include <utility>

#include "integrators/dynamics.hpp"
#include "integrators/sundials/context.hpp"
#include "integrators/sundials/error_log.hpp"
#include "integrators/sundials/output_times.hpp"

namespace catena::sundials {

struct IdaFree {
  void operator()(void* mem) const { IDAFree(&mem); }
};

/// Everything one IDA run allocates, freed in reverse order (IDA, solver, matrix, vectors,
/// context). `work` is for IDAGetDky; a driver that does not interpolate leaves it null.
struct IdaObjects {
  IdaObjects() = default;
  explicit IdaObjects(Context c) : ctx(std::move(c)) {}
  Context ctx;
  Vector y, yp, id, work;
  Matrix J;
  LinearSolver ls;
  std::unique_ptr<void, IdaFree> mem;

  /// Makes y, yp, id (and work if `with_work`) serial vectors of n entries: false if memory
  /// is exhausted (or the context could not be made).
  bool makeSerialVectors(Index n, bool with_work) {
    if (!ctx.ok()) return false;
    y = serialVector(n, ctx);
    yp = serialVector(n, ctx);
    id = serialVector(n, ctx);
    if (with_work) work = serialVector(n, ctx);
    return y && yp && id && (work || !with_work);
  }
  /// A dense run of n unknowns: y, yp and id serial vectors, all zero, J a dense n x n matrix
  /// and ls SUNDIALS' dense LU on it. False if memory is exhausted.
  bool makeDense(Index n) {
    if (!makeSerialVectors(n, false)) return false;
    for (Vector* v : {&y, &yp, &id}) N_VConst(0.0, v->get());
    J.reset(SUNDenseMatrix(n, n, ctx.get()));
    if (J) ls.reset(SUNLinSol_Dense(y.get(), J.get(), ctx.get()));
    return J && ls;
  }
};

/// IDA's error weights, the one way catena sets IDA's tolerances: w_i = 1 / (rtol |y_i| +
/// atol_i) (IDASVtolerances' value, to the bit) times h^p_i, p_i in {0, 1, 2}, so that IDA's
/// error and Newton tests measure index-2 and index-3 components by their effect on the
/// positions over a step (Hairer & Wanner, Vol. II, VII.3; docs/dynamics-ida.md, "The error test
/// and the Newton weights"). Entries: those of IDA's vectors (a rank's owned ones in parallel).
struct ErrorWeights {
  double rtol = 0.0;
  VecX atol;                   ///< per component, positive
  Eigen::VectorXi step_power;  ///< p_i per component; empty: all 0
  double h_start = 0.0;        ///< stands for h before IDA has chosen the first step
  void* mem = nullptr;         ///< the IDA run (its current step); set by startIda
};

/// IDAWFtolerances' callback for Data, the driver's IDA user data, with a member
/// `ErrorWeights weights`.
template <class Data>
int weightCallback(N_Vector y, N_Vector ewt, void* user) {
  const ErrorWeights& e = static_cast<Data*>(user)->weights;
  const double* yv = N_VGetArrayPointer(y);
  double* w = N_VGetArrayPointer(ewt);
  for (Index i = 0; i < e.atol.size(); ++i) w[i] = 1.0 / (e.rtol * std::abs(yv[i]) + e.atol[i]);
  if (e.step_power.size() == 0) return 0;
  realtype h = 0.0;
  IDAGetCurrentStep(e.mem, &h);
  const double hs = h != 0.0 ? std::abs(h) : e.h_start;
  for (Index i = 0; i < e.atol.size(); ++i) {
    if (e.step_power[i] >= 1) w[i] *= hs;
    if (e.step_power[i] == 2) w[i] *= hs;
  }
  return 0;
}

/// Creates IDA on `ida` (y, yp and id filled, J and ls made) and sets what every catena IDA run
/// sets: SUNDIALS' errors into data.log, IDAInit at t0 with `residual`, user data &data, the
/// weights data.weights (weightCallback), the components with id 0 out of the error test, the
/// linear solver ls on J with `jacobian`, the maximum order and number of steps. Data: the
/// driver's user data, with members `ErrorLog log` and `ErrorWeights weights`. The guard tells
/// which call failed.
template <class Data>
SetupGuard startIda(IdaObjects& ida, Data& data, IDAResFn residual, IDALsJacFn jacobian, double t0,
                    int max_order, long max_steps) {
  SetupGuard g;
  ida.mem.reset(IDACreate(ida.ctx.get()));
  if (!g.allocated(ida.mem != nullptr, "IDACreate")) return g;
  void* mem = ida.mem.get();
  data.weights.mem = mem;
  CATENA_SUNDIALS_CALL(g, IDASetErrHandlerFn(mem, recordError, &data.log));
  CATENA_SUNDIALS_CALL(g, IDAInit(mem, residual, t0, ida.y.get(), ida.yp.get()));
  CATENA_SUNDIALS_CALL(g, IDASetUserData(mem, &data));
  CATENA_SUNDIALS_CALL(g, IDAWFtolerances(mem, weightCallback<Data>));
  CATENA_SUNDIALS_CALL(g, IDASetId(mem, ida.id.get()));
  CATENA_SUNDIALS_CALL(g, IDASetSuppressAlg(mem, SUNTRUE));
  CATENA_SUNDIALS_CALL(g, IDASetMaxNumSteps(mem, max_steps));
  CATENA_SUNDIALS_CALL(g, IDASetMaxOrd(mem, max_order));
  CATENA_SUNDIALS_CALL(g, IDASetLinearSolver(mem, ida.ls.get(), ida.J.get()));
  CATENA_SUNDIALS_CALL(g, IDASetJacFn(mem, jacobian));
  return g;
}

/// Sets the step limits of a run from t0: stop at t_end, steps at most max_step (0: no limit)
/// and at least min_step (0: 1e-12 of the span), the first step h0 (s).
inline void limitSteps(SetupGuard& g, void* mem, double t0, double t_end, double max_step,
                       double min_step, double h0) {
  CATENA_SUNDIALS_CALL(g, IDASetStopTime(mem, t_end));
  if (max_step > 0.0) CATENA_SUNDIALS_CALL(g, IDASetMaxStep(mem, max_step));
  CATENA_SUNDIALS_CALL(g, IDASetMinStep(mem, min_step > 0.0 ? min_step : 1e-12 * (t_end - t0)));
  CATENA_SUNDIALS_CALL(g, IDASetInitStep(mem, h0));
}

/// IDA's work counters, summed over the IDA runs of one integration (a driver that re-initializes
/// IDA adds the finished run's counters before IDAReInit resets them).
struct IdaCounters {
  long steps = 0, residuals = 0, setups = 0, error_fails = 0, newton = 0, conv_fails = 0,
       jacobians = 0;
  IdaCounters() = default;
  explicit IdaCounters(void* mem) { add(mem); }
  void add(void* mem) {
    long n = 0;
    if (IDAGetNumSteps(mem, &n) == IDA_SUCCESS) steps += n;
    if (IDAGetNumResEvals(mem, &n) == IDA_SUCCESS) residuals += n;
    if (IDAGetNumLinSolvSetups(mem, &n) == IDA_SUCCESS) setups += n;
    if (IDAGetNumErrTestFails(mem, &n) == IDA_SUCCESS) error_fails += n;
    if (IDAGetNumNonlinSolvIters(mem, &n) == IDA_SUCCESS) newton += n;
    if (IDAGetNumNonlinSolvConvFails(mem, &n) == IDA_SUCCESS) conv_fails += n;
    if (IDAGetNumJacEvals(mem, &n) == IDA_SUCCESS) jacobians += n;
  }
  /// Newton iterations, Jacobians, factorizations (IDA's linear solver set-ups), linear solves
  /// (one per Newton iteration), error-test and convergence failures, rejected steps.
  void fill(DynamicsStats& stats) const {
    stats.newton_iterations = newton;
    stats.jacobian_evaluations = jacobians;
    stats.factorizations = setups;
    stats.linear_solves = newton;
    stats.error_test_failures = error_fails;
    stats.convergence_failures = conv_fails;
    stats.rejected_steps = error_fails + conv_fails;
  }
  /// The same into a formulation's run statistics S (members steps, error_test_failures,
  /// newton_iterations, convergence_failures, jacobian_evaluations, and `residuals`).
  template <class S>
  void fill(S& s, long S::*residuals) const {
    s.steps = steps;
    s.*residuals = this->residuals;
    s.error_test_failures = error_fails;
    s.newton_iterations = newton;
    s.convergence_failures = conv_fails;
    s.jacobian_evaluations = jacobians;
  }
};

/// IDA's name of a return flag (IDA_CONV_FAIL, ...), or the number.
inline std::string idaFlagName(int flag) {
  return flagName(IDAGetReturnFlagName, flag);
}

/// Advances IDA from t to the next output time (a stop time; IDA_NORMAL, which returns at it),
/// or by one step if times.dt = 0 (IDA_ONE_STEP). Returns IDA's flag; t is the time reached,
/// unchanged on a failure (flag < 0).
inline int advance(IdaObjects& ida, OutputTimes& times, double& t) {
  void* mem = ida.mem.get();
  return times.advance(
      t, [&](double tout) { return IDASetStopTime(mem, tout); },
      [&](double tout, double* tret, bool to_output) {
        return IDASolve(mem, tout, tret, ida.y.get(), ida.yp.get(),
                        to_output ? IDA_NORMAL : IDA_ONE_STEP);
      });
}

/// IDA's residual and Jacobian callbacks for a dense formulation, both guarded. Run, IDA's user
/// data, has `ErrorLog log` and the members residual(y, y', F) (F(t, y, y')) and
/// jacobian(y, c_j, J) (J = dF/dy + c_j dF/dy', column-major as SUNDenseMatrix stores it),
/// which take Eigen maps of IDA's arrays.
template <class Run>
int denseResidual(realtype, N_Vector y, N_Vector yp, N_Vector r, void* user) {
  auto& run = *static_cast<Run*>(user);
  return guarded(run.log.callback, "the residual", [&] {
    const auto n = static_cast<Index>(N_VGetLength(y));
    run.residual(Eigen::Map<const VecX>(N_VGetArrayPointer(y), n),
                 Eigen::Map<const VecX>(N_VGetArrayPointer(yp), n),
                 Eigen::Map<VecX>(N_VGetArrayPointer(r), n));
    return 0;
  });
}
template <class Run>
int denseJacobian(realtype, realtype c_j, N_Vector y, N_Vector, N_Vector, SUNMatrix J, void* user,
                  N_Vector, N_Vector, N_Vector) {
  auto& run = *static_cast<Run*>(user);
  return guarded(run.log.callback, "the Jacobian", [&] {
    const auto n = static_cast<Index>(N_VGetLength(y));
    run.jacobian(Eigen::Map<const VecX>(N_VGetArrayPointer(y), n), c_j,
                 Eigen::Map<MatX>(SUNDenseMatrix_Data(J), n, n));
    return 0;
  });
}

}  // namespace catena::sundials
