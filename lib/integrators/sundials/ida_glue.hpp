#pragma once
/// @file ida_glue.hpp
/// What every SUNDIALS IDA driver of catena needs around IDA, in one place: the owner of a run's
/// SUNDIALS objects, the error weights, the error handler that keeps IDA's last message for the
/// user, and the name of a return flag. Used by integrators/ida_dynamics.cpp and
/// integrators/distributed_dynamics.cpp (the only files that include it: DESIGN.md, SUNDIALS stays
/// behind the adapters).

#include <ida/ida.h>
#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nvector.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "integrators/dynamics.hpp"

namespace catena::ida_glue {

/// Owner of the SUNDIALS objects of one run, freed in reverse order of creation. A parallel run
/// passes SUNContext_Create a pointer to its communicator, which must outlive this owner
/// (declare it first).
struct IdaObjects {
  SUNContext ctx = nullptr;
  void* mem = nullptr;
  N_Vector y = nullptr, yp = nullptr, id = nullptr, work = nullptr;
  SUNMatrix J = nullptr;
  SUNLinearSolver ls = nullptr;
  IdaObjects() = default;
  IdaObjects(const IdaObjects&) = delete;
  IdaObjects& operator=(const IdaObjects&) = delete;
  ~IdaObjects() {
    if (mem) IDAFree(&mem);
    if (ls) SUNLinSolFree(ls);
    if (J) SUNMatDestroy(J);
    for (N_Vector v : {y, yp, id, work})
      if (v) N_VDestroy(v);
    if (ctx) SUNContext_Free(&ctx);
  }
};

/// IDA's work counters, summed over the IDA runs of one integration (a driver that re-initializes
/// IDA adds the finished run's counters before IDAReInit resets them), and the DynamicsStats
/// they give.
struct IdaCounters {
  long setups = 0, error_fails = 0, newton = 0, conv_fails = 0, jacobians = 0;
  void add(void* mem) {
    long n = 0;
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
};

/// IDA's error weights 1 / (rtol |y_i| + atol_i) times h^step_power_i, with step_power_i in
/// {0, 1, 2} (Hairer & Wanner, Vol. II, VII.3: the errors of index-2 and index-3 components are
/// measured by their effect on the positions over a step). The weights also drive IDA's Newton
/// convergence test, and there the scaling is what makes the higher-index components work at
/// all: their Newton corrections carry round-off ~eps / h^step_power, which fixed weights read
/// as divergence once h is small; IDA then halves h and makes it worse. Which component gets
/// which power is the formulation's (docs/dynamics-ida.md, "The error test and the Newton
/// weights"). Entries are those of IDA's vectors: a rank's owned entries in a parallel run.
struct ErrorWeights {
  double rtol = 0.0;
  VecX atol;
  Eigen::VectorXi step_power;
  double h_start = 0.0;  ///< stands for h before IDA has chosen the first step
  void* mem = nullptr;   ///< the IDA run (its current step)
};

/// IDAWFtolerances' callback for Data, the driver's IDA user data, with a member
/// `ErrorWeights weights`.
template <class Data>
int weightCallback(N_Vector y, N_Vector ewt, void* user) {
  const ErrorWeights& e = static_cast<Data*>(user)->weights;
  const double* yv = N_VGetArrayPointer(y);
  double* w = N_VGetArrayPointer(ewt);
  realtype h = 0.0;
  IDAGetCurrentStep(e.mem, &h);
  const double hs = h != 0.0 ? std::abs(h) : e.h_start;
  for (Index i = 0; i < e.atol.size(); ++i) {
    w[i] = 1.0 / (e.rtol * std::abs(yv[i]) + e.atol[i]);
    if (e.step_power[i] >= 1) w[i] *= hs;
    if (e.step_power[i] == 2) w[i] *= hs;
  }
  return 0;
}

/// IDA's error handler: keeps "function: message" of the last error in data->ida_message
/// (Data: the driver's callback data, user argument of IDASetErrHandlerFn). Warnings
/// (code >= 0) are not failures.
template <class Data>
void keepIdaError(int code, const char* /*module*/, const char* function, char* msg, void* user) {
  if (code >= 0) return;
  static_cast<Data*>(user)->ida_message =
      std::string(function ? function : "IDA") + ": " + (msg ? msg : "");
}

/// IDA's name of a return flag (IDA_CONV_FAIL, ...), or the number.
inline std::string idaFlagName(int flag) {
  char* name = IDAGetReturnFlagName(flag);  // allocated by SUNDIALS
  std::string s = name ? name : std::to_string(flag);
  std::free(name);
  return s;
}

/// "IDA failed at t = T with NAME (FLAG)", then IDA's own last message and a callback's, if any.
inline std::string idaFailureMessage(double t, int flag, const std::string& ida_message,
                                     const std::string& callback_message) {
  std::string s = "IDA failed at t = " + std::to_string(t) + " with " + idaFlagName(flag) + " (" +
                  std::to_string(flag) + ")";
  if (!ida_message.empty()) s += "; " + ida_message;
  if (!callback_message.empty()) s += "; " + callback_message;
  return s;
}

}  // namespace catena::ida_glue
