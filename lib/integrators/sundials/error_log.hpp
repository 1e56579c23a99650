#pragma once
/// @file error_log.hpp
/// The SUNDIALS layer (context.hpp): one error log per run, the one guard of C callbacks and the
/// one guard of set-up calls. Internal to lib/integrators and lib/formulations.

#include <sundials/sundials_linearsolver.h>

#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>

#include "core/status.hpp"
#include "core/termination.hpp"

namespace catena::sundials {

/// What went wrong in a run, for the Status the integrator returns: SUNDIALS' last error
/// (written by recordError), the last failure of a callback and that of a custom linear solver
/// (written by the callbacks, or by guarded for an exception).
struct ErrorLog {
  std::string solver;    ///< "function: message" of SUNDIALS' last error; empty: none
  Status callback;       ///< a callback's failure; an exception it threw is kInvalidInput
  Status linear_solver;  ///< a custom (PETSc) linear solver's last failure, cleared by a success

  /// "WHO failed at t = T s (t_end = E s) with FLAG: SUNDIALS' error (the callback's) (PETSc
  /// linear solver: its failure)", the sentence for a run that SUNDIALS stopped (flag: IDA's or
  /// ARKODE's name of its return).
  std::string failure(const std::string& who, double t, double t_end,
                      const std::string& flag) const {
    std::ostringstream os;
    os.precision(10);
    os << who << " failed at t = " << t << " s (t_end = " << t_end << " s) with " << flag;
    if (!solver.empty()) os << ": " << solver;
    if (!callback.ok()) os << " (" << callback.message << ")";
    if (!linear_solver.ok()) os << " (PETSc linear solver: " << linear_solver.message << ")";
    return os.str();
  }
  /// The Status of a run that SUNDIALS stopped: failure()'s sentence, with the code of the
  /// callback's failure if there is one, kNotConverged otherwise.
  Status stopped(const std::string& who, double t, double t_end, const std::string& flag) const {
    return Status::failure(callback.ok() ? Status::Code::kNotConverged : callback.code,
                           failure(who, t, t_end, flag));
  }
};

/// SUNDIALS' error handler (IDAErrHandlerFn, ARKErrHandlerFn), user data an ErrorLog: keeps the
/// last error (code < 0) in log->solver. Warnings (code >= 0) are not failures. Throws nothing
/// (a message that memory cannot hold is dropped).
inline void recordError(int code, const char* /*module*/, const char* function, char* msg,
                        void* log) noexcept {
  if (code >= 0) return;
  try {
    static_cast<ErrorLog*>(log)->solver =
        std::string(function ? function : "SUNDIALS") + ": " + (msg ? msg : "");
  } catch (...) {
  }
}

/// The one guard of C callbacks: runs `body`, which returns SUNDIALS' 0 (ok), a positive
/// (recoverable: the integrator retries, with a smaller step or a new matrix) or a negative code
/// (fatal), so that no exception crosses into C. An exception returns `fatal` (-1; a custom
/// linear solver's operations pass SUNLS_PACKAGE_FAIL_UNREC) and is kept in `failure` as
/// kInvalidInput with its message ("unknown exception in WHERE" if it is not a std::exception).
/// A callback's failure goes to its run's ErrorLog::callback.
template <class Body>
int guarded(Status& failure, const char* where, Body&& body, int fatal = -1) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    failure = Status::failure(Status::Code::kInvalidInput, e.what());
  } catch (...) {
    failure =
        Status::failure(Status::Code::kInvalidInput, std::string("unknown exception in ") + where);
  }
  return fatal;
}

/// For a step's post-processing hook (ARKODE): true, with `failure` stoppedOnRequest(who, t),
/// when a termination signal asks the run to stop after the step that ended at t
/// (core/termination.hpp); the hook then returns -1.
inline bool interruptedAt(Status& failure, const char* who, double t) {
  if (!stopRequested()) return false;
  failure = stoppedOnRequest(who, t);
  return true;
}

/// SUNDIALS' code for a failure st of a custom linear solver's set-up or solve: SUNLS_MEM_FAIL
/// for exhausted memory (fatal); otherwise recoverable, so that IDA retries with a new matrix or
/// a smaller step: SUNLS_LUFACT_FAIL (singular), SUNLS_CONV_FAIL (not converged),
/// SUNLS_PACKAGE_FAIL_REC (the rest).
inline int linearSolverFlag(const Status& st) {
  switch (st.code) {
    case Status::Code::kOk:
      return SUNLS_SUCCESS;
    case Status::Code::kResources:
      return SUNLS_MEM_FAIL;
    case Status::Code::kSingular:
      return SUNLS_LUFACT_FAIL;
    case Status::Code::kNotConverged:
      return SUNLS_CONV_FAIL;
    default:
      return SUNLS_PACKAGE_FAIL_REC;
  }
}

/// SUNDIALS' name of a return flag, from get_name (IDAGetReturnFlagName,
/// ERKStepGetReturnFlagName: a string it allocates), or the number.
inline std::string flagName(char* (*get_name)(long), int flag) {
  char* name = get_name(flag);
  std::string s = name ? name : std::to_string(flag);
  std::free(name);
  return s;
}

/// The one guard of set-up calls (CATENA_SUNDIALS_CALL): a call runs only while every earlier
/// one succeeded (returned 0); the first failure is kept with the name of its call.
class SetupGuard {
 public:
  bool ok() const { return call_.empty(); }
  /// Records `flag` of `call` (its source text: the name is what precedes '('): true if 0.
  bool check(int flag, const char* call) {
    if (flag == 0) return true;
    const std::string text(call);
    call_ = text.substr(0, text.find('('));
    flag_ = flag;
    return false;
  }
  /// Records an allocation (false: memory exhausted in `what`).
  bool allocated(bool ok, const char* what) {
    if (ok) return true;
    call_ = what;
    out_of_memory_ = true;
    return false;
  }
  /// The failure as a Status for WHO ("IDA", "MCS"): kResources for exhausted memory,
  /// kInvalidInput otherwise, with the call, the flag's name (flag_name(flag): idaFlagName,
  /// arkodeFlagName) and SUNDIALS' message.
  template <class FlagName>
  Status status(const std::string& who, FlagName&& flag_name, const ErrorLog& log) const {
    std::string s = who + ": setup failed in " + call_;
    if (out_of_memory_) return Status::failure(Status::Code::kResources, s + " (out of memory)");
    s += " (" + flag_name(flag_) + ")";
    if (!log.solver.empty()) s += ": " + log.solver;
    return Status::failure(Status::Code::kInvalidInput, s);
  }

 private:
  std::string call_;  ///< the call that failed; empty: none
  int flag_ = 0;
  bool out_of_memory_ = false;
};

}  // namespace catena::sundials

/// Runs the SUNDIALS set-up call `call` if every earlier call guarded by `guard` (a
/// sundials::SetupGuard) succeeded; true if it ran and returned 0.
#define CATENA_SUNDIALS_CALL(guard, call) ((guard).ok() && (guard).check((call), #call))
