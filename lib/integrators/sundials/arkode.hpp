#pragma once
/// @file arkode.hpp
/// The SUNDIALS layer (context.hpp) for ARKODE's explicit ERKStep: the objects of a run, its
/// start and the names of its flags. Used by the MCS dynamics and the rotation-matrix two-step
/// integrator. Internal to lib/integrators and lib/formulations.

#include <arkode/arkode_erkstep.h>

#include <memory>
#include <string>

#include "integrators/sundials/context.hpp"
#include "integrators/sundials/error_log.hpp"
#include "integrators/sundials/output_times.hpp"

namespace catena::sundials {

struct ErkFree {
  void operator()(void* mem) const { ERKStepFree(&mem); }
};

/// Everything one ERKStep run allocates, freed in reverse order (ERKStep, state, context).
struct ErkObjects {
  Context ctx;
  Vector y;
  std::unique_ptr<void, ErkFree> mem;

  /// Makes y a serial vector of n entries: false if memory is exhausted (or the context could
  /// not be made).
  bool makeSerialState(Index n) {
    if (ctx.ok()) y = serialVector(n, ctx);
    return y != nullptr;
  }
};

/// What an ERKStep run is given besides its state: the Butcher table, scalar tolerances, the most
/// steps, and a fixed step (0: adaptive).
struct ErkSettings {
  ARKODE_ERKTableID table = ARKODE_DORMAND_PRINCE_7_4_5;
  double rtol = 0.0, atol = 0.0;
  long max_steps = 0;
  double fixed_step = 0.0;
};

/// Creates ERKStep on `ark` (y filled with the state at t0) with `rhs` and sets: SUNDIALS'
/// errors into data.log, user data &data, the settings, `postprocess` after every step, and
/// Lagrange interpolation. The callers' outputs are step ends (stop times), never interpolated,
/// and their postprocess changes the state (a projection, a new MCS chart): ARKODE's default
/// Hermite interpolant evaluated the right-hand side once more at every output, at t - h/3, on a
/// state mixing the step's start with its processed end; Lagrange keeps past solutions only.
/// Data: the driver's user data, with a member `ErrorLog log`. The guard tells which call failed.
template <class Data>
SetupGuard startErk(ErkObjects& ark, Data& data, ARKRhsFn rhs, ARKPostProcessFn postprocess,
                    double t0, const ErkSettings& s) {
  SetupGuard g;
  ark.mem.reset(ERKStepCreate(rhs, t0, ark.y.get(), ark.ctx.get()));
  if (!g.allocated(ark.mem != nullptr, "ERKStepCreate")) return g;
  void* mem = ark.mem.get();
  CATENA_SUNDIALS_CALL(g, ERKStepSetErrHandlerFn(mem, recordError, &data.log));
  CATENA_SUNDIALS_CALL(g, ERKStepSetUserData(mem, &data));
  CATENA_SUNDIALS_CALL(g, ERKStepSetTableNum(mem, s.table));
  CATENA_SUNDIALS_CALL(g, ERKStepSStolerances(mem, s.rtol, s.atol));
  CATENA_SUNDIALS_CALL(g, ERKStepSetMaxNumSteps(mem, s.max_steps));
  CATENA_SUNDIALS_CALL(g, ERKStepSetPostprocessStepFn(mem, postprocess));
  CATENA_SUNDIALS_CALL(g, ERKStepSetInterpolantType(mem, ARK_INTERP_LAGRANGE));
  if (s.fixed_step > 0.0) CATENA_SUNDIALS_CALL(g, ERKStepSetFixedStep(mem, s.fixed_step));
  return g;
}

/// ARKODE's name of a return flag (ARK_TOO_MUCH_WORK, ...), or the number.
inline std::string arkodeFlagName(int flag) {
  return flagName(ERKStepGetReturnFlagName, flag);
}

/// Advances ERKStep from t to the next output time (a stop time; ARK_NORMAL, t becomes it), or
/// by one step if times.dt = 0 (ARK_ONE_STEP). Returns ARKODE's flag; t is unchanged on a
/// failure (flag < 0).
inline int advance(ErkObjects& ark, OutputTimes& times, double& t) {
  void* mem = ark.mem.get();
  return times.advance(
      t, [&](double tout) { return ERKStepSetStopTime(mem, tout); },
      [&](double tout, double* tret, bool to_output) {
        return ERKStepEvolve(mem, tout, ark.y.get(), tret, to_output ? ARK_NORMAL : ARK_ONE_STEP);
      });
}

}  // namespace catena::sundials
