#include "integrators/rk_dynamics.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "analysis/scales.hpp"
#include "core/check.hpp"
#include "integrators/branch_watch.hpp"
#include "integrators/initial_state.hpp"
#include "integrators/kkt_solves.hpp"
#include "integrators/redundant_rows.hpp"
#include "integrators/singular_passage.hpp"
#include "integrators/sundials/arkode.hpp"

namespace catena {

std::string rkTableName(RkTable t) {
  switch (t) {
    case RkTable::kDormandPrince54:
      return "dp54";
    case RkTable::kVerner65:
      return "verner65";
    case RkTable::kFehlberg78:
      return "fehlberg78";
  }
  return "?";
}

RkTable parseRkTable(const std::string& name) {
  for (RkTable t : {RkTable::kDormandPrince54, RkTable::kVerner65, RkTable::kFehlberg78})
    if (rkTableName(t) == name) return t;
  throw Error("unknown Runge-Kutta table '" + name + "' (dp54, verner65 or fehlberg78)");
}

namespace {

ARKODE_ERKTableID arkodeTable(RkTable t) {
  switch (t) {
    case RkTable::kDormandPrince54:
      return ARKODE_DORMAND_PRINCE_7_4_5;
    case RkTable::kVerner65:
      return ARKODE_VERNER_8_5_6;
    case RkTable::kFehlberg78:
      return ARKODE_FEHLBERG_13_7_8;
  }
  return ARKODE_VERNER_8_5_6;
}

/// The method as reported: the table and how the KKT systems are solved (KktSolves::solver()).
std::string methodName(RkTable t, const std::string& kkt) {
  const char* table = t == RkTable::kDormandPrince54 ? "Dormand-Prince 5(4)"
                      : t == RkTable::kVerner65      ? "Verner 6(5)"
                                                     : "Fehlberg 8(7)";
  return std::string("explicit Runge-Kutta ") + table + ", index 1 with projection (" + kkt + ")";
}

/// What ARKODE's callbacks see: the model, the KKT solves and the state of one stage.
struct RkRun {
  RkRun(const Model& m, const AssemblyPlan& p, const RkOptions& o)
      : model(m), plan(p), options(o), kkt(m, p, o.petsc_prefix), length(lengthScale(m)) {
    s.q.resize(m.nq);
    s.v.resize(m.nv);
    s.lambda.resize(m.nc);
    vdot.resize(m.nv);
  }
  const Model& model;
  const AssemblyPlan& plan;
  const RkOptions& options;
  KktSolves kkt;
  const double length;  ///< m
  State s;              ///< the last state loaded (quaternions normalized)
  VecX vdot;
  long projections = 0;
  double step_end = 0.0;                           ///< s, the end of the last accepted step
  double smallest_step = 0.0, largest_step = 0.0;  ///< s
  /// The smallest retained pivot of C_q^T's QRCP at the start and the rank there, and the
  /// collapsed steps until the next look at it (approachesSingular).
  double start_pivot = 0.0;
  Index rank = -1;
  long steps_to_next_look = 0;
  sundials::ErrorLog log;

  /// Called once per accepted step, at its end t.
  void accepted(double t) {
    const double h = t - step_end;
    smallest_step = smallest_step > 0.0 ? std::min(smallest_step, h) : h;
    largest_step = std::max(largest_step, h);
    step_end = t;
  }

  double projectionTolerance() const {
    return options.projection_tolerance > 0.0 ? options.projection_tolerance : options.rtol;
  }
  /// s from y at t (quaternions normalized in s only).
  void load(double t, const double* y) {
    s.t = t;
    s.q = Eigen::Map<const VecX>(y, model.nq);
    s.v = Eigen::Map<const VecX>(y + model.nq, model.nv);
    normalizeQuaternions(model, s.q);
  }
  /// s from y at t, v' in vdot and the multipliers in s.lambda. An output's state is the next
  /// step's first stage: a call at the state of the last solve (t, normalized q and v bit for
  /// bit) reuses its results instead of solving again.
  Status accelerationsAt(double t, const double* y) {
    load(t, y);
    if (t == cached.t && s.q == cached.q && s.v == cached.v) {
      vdot = cached_vdot;
      s.lambda = cached.lambda;
      return Status::success();
    }
    const Status st = kkt.accelerations(s, vdot, s.lambda);
    cached.t = st.ok() ? t : NAN;
    if (st.ok()) {
      cached = s;
      cached_vdot = vdot;
    }
    return st;
  }

 private:
  State cached{VecX(), VecX(), VecX(), NAN};  ///< the last solved state; t NaN: none
  VecX cached_vdot;
};

int rkRhsCallback(sunrealtype t, N_Vector y, N_Vector ydot, void* user) {
  auto& run = *static_cast<RkRun*>(user);
  return sundials::guarded(run.log.callback, "the right-hand side", [&] {
    const double* yd = N_VGetArrayPointer(y);
    const Status st = run.accelerationsAt(t, yd);
    if (!st.ok()) {
      run.log.callback = st;
      return -1;
    }
    double* d = N_VGetArrayPointer(ydot);
    positionRates(run.model, yd, run.s.v, d);
    Eigen::Map<VecX>(d + run.model.nq, run.model.nv) = run.vdot;
    return 0;
  });
}

/// Next to a singular configuration the index-1 form turns stiff (the accelerations of the
/// drift grow as the smallest pivot falls) and the explicit steps collapse: 35000 steps over the
/// last 0.02 s before a 10 x 10 spinning lattice's crossing at rtol 1e-8 (44 s), far more at
/// 1e-10. When an accepted step is below 1e-3 of the largest so far, every 100 such steps the
/// smallest retained pivot is computed; below the passage margin times its start value the run
/// stops there as singular, and withSingularPassages bridges the crossing. A collapse away from
/// a singular configuration (a stiff force) goes on as before.
bool approachesSingular(RkRun& run, double h) {
  if (!(h < 1e-3 * run.largest_step) || --run.steps_to_next_look > 0) return false;
  run.steps_to_next_look = 100;
  const double pivot = smallestRetainedPivot(run.model, run.plan, run.s.q, run.s.t, run.rank);
  return pivot < PassageOptions{}.margin * run.start_pivot;
}

int rkPostprocessCallback(sunrealtype t, N_Vector y, void* user) {
  auto& run = *static_cast<RkRun*>(user);
  return sundials::guarded(run.log.callback, "the projection", [&] {
    if (sundials::interruptedAt(run.log.callback, "Runge-Kutta", t)) return -1;
    double* yd = N_VGetArrayPointer(y);
    const double h = t - run.step_end;
    run.accepted(t);
    run.load(t, yd);
    if (approachesSingular(run, h)) {
      std::ostringstream os;
      os << "the steps collapsed to " << h << " s at t = " << t
         << " s next to a singular configuration (the smallest retained pivot of C_q^T fell "
            "below "
         << PassageOptions{}.margin << " of its start value)";
      run.log.callback = Status::failure(Status::Code::kSingular, os.str());
      return -1;
    }
    const double tol = run.projectionTolerance();
    const auto [cpos, cvel] = run.kkt.drift(run.s);
    if (cpos > tol * run.length || cvel > tol * std::max(1.0, maxAbs(run.s.v))) {
      const Status st = run.kkt.project(run.s, 1e-3 * tol * run.length, run.vdot);
      if (!st.ok()) {
        run.log.callback = st;
        return -1;
      }
      ++run.projections;
    }
    Eigen::Map<VecX>(yd, run.model.nq) = run.s.q;
    Eigen::Map<VecX>(yd + run.model.nq, run.model.nv) = run.s.v;
    return 0;
  });
}

/// One run on a model whose KKT matrix is regular at the start (else kSingular before the first
/// step, for withIndependentRows).
RkResult runRk(const Model& model, const AssemblyPlan& plan, const State& initial,
               const RkOptions& o, const TrajectoryObserver& observer) {
  RkResult out;
  State s = initial;
  if (s.lambda.size() != model.nc) s.lambda = VecX::Zero(model.nc);
  out.state = s;
  RkRun run(model, plan, o);
  out.method = methodName(o.table, run.kkt.solver());
  auto fail = [&](const Status& st, const State& at) {
    out.status = st;
    out.state = at;
    out.worst_rows = worstRowsAt(model, plan, at.q, at.t, 5);
    out.stats.factorizations = run.kkt.factorizations();
    out.stats.projections = run.projections;
    return out;
  };
  if (o.assemble_initial_state) {
    InitialStateResult r = assembleInitialState(model, plan, s);
    if (!r.status.ok()) {
      out.status = Status::failure(r.status.code, "Runge-Kutta: " + r.status.message);
      out.state = r.state;
      out.worst_rows = r.worst_rows;
      return out;
    }
    s = r.state;
  }
  normalizeQuaternions(model, s.q);
  {
    const Status st = run.kkt.accelerations(s, run.vdot, s.lambda);
    if (!st.ok())
      return fail(Status::failure(st.code, "Runge-Kutta: the accelerations at t0 = " +
                                               std::to_string(s.t) + " s: " + st.message),
                  s);
  }
  // Again after the first factorization, which may have found a singular mass block.
  out.method = methodName(o.table, run.kkt.solver());
  run.start_pivot = smallestRetainedPivot(model, plan, s.q, s.t, -1, &run.rank);
  BranchWatch branch(model, plan);
  auto emit = [&](const State& at) { return branch.add(at) && (!observer || observer(at)); };
  out.state = s;
  if (!emit(s)) return out;

  sundials::ErkObjects ark;
  if (!ark.makeSerialState(model.nq + model.nv))
    return fail(Status::failure(Status::Code::kResources, "Runge-Kutta: out of memory"), s);
  Eigen::Map<VecX> y = sundials::entries(ark.y);
  y.head(model.nq) = s.q;
  y.tail(model.nv) = s.v;
  const sundials::SetupGuard g =
      sundials::startErk(ark, run, rkRhsCallback, rkPostprocessCallback, s.t,
                         {arkodeTable(o.table), o.rtol, o.atol, o.max_steps, 0.0});
  if (!g.ok()) return fail(g.status("Runge-Kutta", sundials::arkodeFlagName, run.log), s);
  void* mem = ark.mem.get();
  int flag = o.max_step > 0.0 ? ERKStepSetMaxStep(mem, o.max_step) : ARK_SUCCESS;
  if (flag != ARK_SUCCESS)
    return fail(
        Status::failure(Status::Code::kInvalidInput, "Runge-Kutta: setting up ERKStep failed: " +
                                                         sundials::arkodeFlagName(flag)),
        s);
  auto collect = [&]() {
    long k = 0;
    if (ERKStepGetNumSteps(mem, &k) == ARK_SUCCESS) out.stats.steps = k;
    if (ERKStepGetNumRhsEvals(mem, &k) == ARK_SUCCESS) out.rhs_evaluations = k;
    if (ERKStepGetNumErrTestFails(mem, &k) == ARK_SUCCESS)
      out.stats.rejected_steps = out.stats.error_test_failures = k;
    double h = 0.0;
    if (ERKStepGetLastStep(mem, &h) == ARK_SUCCESS) out.stats.last_step = h;
    out.stats.factorizations = run.kkt.factorizations();
    out.stats.linear_solves = out.rhs_evaluations;
    out.stats.projections = run.projections;
    out.stats.smallest_step = run.smallest_step;
    out.stats.largest_step = run.largest_step;
  };
  // The last step reached (ARKODE leaves y there after a failure too).
  auto reached = [&]() {
    State at = out.state;
    ERKStepGetCurrentTime(mem, &at.t);
    at.q = y.head(model.nq);
    at.v = y.tail(model.nv);
    normalizeQuaternions(model, at.q);
    return at;
  };
  run.step_end = s.t;
  double t = s.t;
  sundials::OutputTimes times{s.t, o.t_end, o.output_interval};
  while (t < o.t_end) {
    // ARKODE's step limit holds per call; the run's holds over all of them.
    collect();
    if (out.stats.steps >= o.max_steps ||
        ERKStepSetMaxNumSteps(mem, o.max_steps - out.stats.steps) != ARK_SUCCESS) {
      const State at = reached();
      std::ostringstream os;
      os << "Runge-Kutta stopped at t = " << at.t << " s after max_steps = " << o.max_steps
         << " accepted steps (t_end = " << o.t_end
         << " s): raise max_steps or loosen rtol/atol; an explicit method on a stiff model "
            "(a stiff spring, a fast mode) needs steps of its fastest period: use --integrator "
            "ida or gen-alpha there";
      return fail(Status::failure(Status::Code::kNotConverged, os.str()), at);
    }
    flag = sundials::advance(ark, times, t);
    if (flag == ARK_TOO_MUCH_WORK) continue;  // at the run's limit: said above
    if (flag < 0) {
      collect();
      const State at = reached();
      return fail(run.log.stopped("Runge-Kutta", at.t, o.t_end, sundials::arkodeFlagName(flag)),
                  at);
    }
    State& at = out.state;
    const Status st = run.accelerationsAt(t, y.data());
    at = run.s;
    if (!st.ok()) {
      collect();
      return fail(Status::failure(st.code, "Runge-Kutta: the multipliers at t = " +
                                               std::to_string(t) + " s: " + st.message),
                  at);
    }
    if (!emit(at)) break;
  }
  collect();
  if (out.status.ok()) out.status = branch.status();
  return out;
}

}  // namespace

RkResult integrateRungeKutta(const Model& model, const AssemblyPlan& plan, const State& initial,
                             const RkOptions& o, const TrajectoryObserver& observer) {
  CATENA_CHECK(o.t_end > initial.t, "Runge-Kutta: t_end must exceed t0");
  CATENA_CHECK(o.rtol > 0.0 && o.atol > 0.0, "Runge-Kutta: rtol and atol must be positive");
  CATENA_CHECK(o.output_interval >= 0.0 && o.projection_tolerance >= 0.0,
               "Runge-Kutta: output_interval and projection_tolerance must not be negative");
  CATENA_CHECK(o.max_steps > 0, "Runge-Kutta: max_steps must be positive");
  CATENA_CHECK(o.max_step >= 0.0, "Runge-Kutta: max_step must not be negative");
  return withSingularPassages<RkResult>(
      model, plan, initial, o.t_end, passageOptions(o.rtol, o.output_interval), observer,
      [&](const State& start, bool resumed, double t_end, const TrajectoryObserver& segment) {
        RkOptions part = o;
        part.t_end = t_end;
        if (resumed) part.assemble_initial_state = true;
        return withIndependentRows<RkResult>(
            model, plan, start, segment,
            [&](const Model& m, const AssemblyPlan& p, const State& s,
                const TrajectoryObserver& obs, bool rerun) {
              RkOptions run = part;
              if (rerun) run.assemble_initial_state = false;
              return runRk(m, p, s, run, obs);
            });
      });
}

}  // namespace catena
