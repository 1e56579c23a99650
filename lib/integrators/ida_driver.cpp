#include "integrators/ida_driver.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/check.hpp"
#include "integrators/sundials/ida.hpp"
#include "parallel/phase_timer.hpp"
#include "solvers/sparse_linear_solver.hpp"

namespace catena {
namespace {

/// What the C callbacks see (IDA's user data, the linear solver's content).
struct CallbackData {
  IdaSystem* system = nullptr;
  IdaTimings* timings = nullptr;
  /// log.linear_solver: the last failure of the Newton solves, cleared by a success: a run that
  /// then fails says why its Newton systems could not be solved.
  sundials::ErrorLog log;
  sundials::ErrorWeights weights;  ///< h-scaled for index 3 and GGL (errorWeights)
  int last_flag = SUNLS_SUCCESS;
  void* mem = nullptr;            ///< IDA's, once it exists
  long convergence_failures = 0;  ///< IDA's count at the last Newton matrix
};

// Callbacks catch everything (STYLE.md rule 6) and return the same on every rank: 0 ok,
// 1 recoverable (IDA cuts the step), -1 fatal. A non-finite residual (a quaternion driven to
// zero by a wild Newton iterate, say) is recoverable.
int residualCallback(realtype t, N_Vector y, N_Vector yp, N_Vector r, void* user) {
  auto* data = static_cast<CallbackData*>(user);
  PhaseTimer timer(data->timings->assembly);
  return sundials::guarded(data->log.callback, "the residual", [&] {
    return data->system->residual(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp),
                                  N_VGetArrayPointer(r), data->log.callback);
  });
}

int jacobianCallback(realtype t, realtype cj, N_Vector y, N_Vector yp, N_Vector, SUNMatrix,
                     void* user, N_Vector, N_Vector, N_Vector) {
  auto* data = static_cast<CallbackData*>(user);
  PhaseTimer timer(data->timings->assembly);
  // A Newton iteration failed since the last matrix: its factorization may have kept pivots
  // gone bad (KluLu's contract), so this one chooses new ones. (100 x 100 merged lattice, 2 s:
  // 6223 steps with kept pivots throughout, docs/dynamics-ida.md.)
  // (A restart, IDAReInit, sets IDA's count back to zero.)
  long failures = 0;
  if (data->mem && IDAGetNumNonlinSolvConvFails(data->mem, &failures) == IDA_SUCCESS) {
    if (failures > data->convergence_failures) data->system->forgetPivots();
    data->convergence_failures = failures;
  }
  return sundials::guarded(data->log.callback, "the Newton matrix", [&] {
    return data->system->newtonMatrix(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp), cj,
                                      data->log.callback);
  });
}

// The Newton matrix lives in the system; IDA gets a placeholder SUNMatrix so that it treats the
// solver as a direct, matrix-based one (jacobianCallback, then setup).
SUNMatrix_ID placeholderId(SUNMatrix) {
  return SUNMATRIX_CUSTOM;
}
int placeholderZero(SUNMatrix) {
  return 0;
}
void placeholderDestroy(SUNMatrix A) {
  SUNMatFreeEmpty(A);
}

SUNMatrix makePlaceholderMatrix(SUNContext ctx) {
  SUNMatrix A = SUNMatNewEmpty(ctx);
  if (!A) return nullptr;
  A->ops->getid = placeholderId;
  A->ops->zero = placeholderZero;
  A->ops->destroy = placeholderDestroy;
  return A;
}

/// The custom SUNLinearSolver over the system: setup factors the Newton matrix that
/// jacobianCallback filled, solve returns x = S z. A singular matrix or a failed solve is
/// recoverable (IDA retries with a new matrix or a smaller step); exhausted memory or an
/// exception is not.
CallbackData* solverData(SUNLinearSolver S) {
  return static_cast<CallbackData*>(S->content);
}
SUNLinearSolver_Type solverType(SUNLinearSolver) {
  return SUNLINEARSOLVER_DIRECT;
}
SUNLinearSolver_ID solverId(SUNLinearSolver) {
  return SUNLINEARSOLVER_CUSTOM;
}
int solverInitialize(SUNLinearSolver S) {
  CallbackData* c = solverData(S);
  return c->last_flag = c->system->initializeSolver();
}
int solverSetup(SUNLinearSolver S, SUNMatrix) {
  CallbackData* c = solverData(S);
  PhaseTimer timer(c->timings->factorization);
  Status& failure = c->log.linear_solver;
  return c->last_flag = sundials::guarded(
             failure, "the factorization", [&] { return c->system->factor(failure); },
             SUNLS_PACKAGE_FAIL_UNREC);
}
int solverSolve(SUNLinearSolver S, SUNMatrix, N_Vector x, N_Vector b, realtype tol) {
  CallbackData* c = solverData(S);
  PhaseTimer timer(c->timings->solve);
  Status& failure = c->log.linear_solver;
  return c->last_flag = sundials::guarded(
             failure, "the solve", [&] { return c->system->solve(b, x, tol, failure); },
             SUNLS_PACKAGE_FAIL_UNREC);
}
sunindextype solverLastFlag(SUNLinearSolver S) {
  return solverData(S)->last_flag;
}
int solverFree(SUNLinearSolver S) {
  if (!S) return SUNLS_SUCCESS;
  S->content = nullptr;  // CallbackData belongs to the run
  SUNLinSolFreeEmpty(S);
  return SUNLS_SUCCESS;
}

SUNLinearSolver makeSolver(CallbackData* data, SUNContext ctx) {
  SUNLinearSolver S = SUNLinSolNewEmpty(ctx);
  if (!S) return nullptr;
  S->content = data;
  S->ops->gettype = solverType;
  S->ops->getid = solverId;
  S->ops->initialize = solverInitialize;
  S->ops->setup = solverSetup;
  S->ops->solve = solverSolve;
  S->ops->lastflag = solverLastFlag;
  S->ops->free = solverFree;
  return S;
}

/// IDA's error weights of the run (this rank's entries). Index 3: v and nu by h, lambda by h^2
/// (a Newton correction of v carries round-off ~eps L / h and one of lambda ~eps m L / h^2: IDA
/// failed at t = 1.6e-5 s on a pendulum at rtol 1e-10). GGL: mu by h. mu is zero in the exact
/// solution and takes up the round-off of q' = c_j (q - q_pred), ~c_j eps |q|, through
/// (C_q C_q^T)^-1, whose largest eigenvalue grows like N^2 on a chain: from 15000 links on its
/// corrections stalled above the tolerance at every step and IDA failed at t = 0 (ida_test,
/// long_chain_starts_in_every_formulation).
void errorWeights(const IdaSystem& system, const IdaOptions& o, sundials::ErrorWeights& e) {
  const DaeLayout& L = system.layout();
  VecX atol = VecX::Constant(L.size, o.multiplier_atol);
  atol.segment(L.q, L.nq).setConstant(o.atol);
  atol.segment(L.v, L.nv).setConstant(o.atol);
  VecX power = VecX::Zero(L.size);
  if (o.formulation == IdaFormulation::kIndex3) {
    power.segment(L.v, L.nv).setConstant(1.0);
    power.segment(L.lambda, L.nc).setConstant(2.0);
    power.segment(L.nu, L.nnu).setConstant(1.0);
  } else if (o.formulation == IdaFormulation::kIndex2) {
    power.segment(L.mu, L.nmu).setConstant(1.0);
  }
  const Index n = system.localSize();
  e.rtol = o.rtol;
  e.atol.resize(n);
  system.ownedEntries(atol, e.atol.data());
  VecX owned_power(n);
  system.ownedEntries(power, owned_power.data());
  e.step_power = owned_power.cast<int>();
}

void checkOptions(const IdaSystem& system, const State& initial, const IdaOptions& o) {
  const std::string who = system.name();
  system.requireFormulation(o.formulation);
  CATENA_CHECK(o.t_end > initial.t, who << ": t_end must be after the initial time " << initial.t
                                        << " s, got " << o.t_end);
  CATENA_CHECK(o.rtol > 0.0 && o.atol > 0.0 && o.multiplier_atol > 0.0,
               who << ": rtol, atol and multiplier_atol must be positive, got " << o.rtol << ", "
                   << o.atol << ", " << o.multiplier_atol);
  CATENA_CHECK(o.output_interval >= 0.0 && o.max_step >= 0.0 && o.min_step >= 0.0 &&
                   o.initial_step >= 0.0 && o.initial_step_factor > 0.0 &&
                   o.projection_tolerance >= 0.0,
               who << ": output_interval, max_step, min_step, initial_step and "
                      "projection_tolerance must not be negative");
  CATENA_CHECK(o.max_steps > 0, who << ": max_steps must be positive, got " << o.max_steps);
  CATENA_CHECK(o.max_order >= 1 && o.max_order <= 5,
               who << ": max_order must be 1..5, got " << o.max_order);
  CATENA_CHECK(petscInitialized(),
               who << ": PETSc is not initialized; the KKT solves (and the Newton solves with "
                      "IdaLinearSolver::kPetsc) need it: create a PetscSession first "
                      "(parallel/petsc_session.hpp)");
  const Model& m = system.model();
  CATENA_CHECK(initial.q.size() == m.nq && initial.v.size() == m.nv,
               who << ": the initial state has " << initial.q.size() << " positions and "
                   << initial.v.size() << " velocities, the model " << m.nq << " and " << m.nv);
}

}  // namespace

IdaResult runIda(IdaSystem& system, const State& initial, const IdaOptions& o,
                 const TrajectoryObserver& observer) {
  checkOptions(system, initial, o);
  const Model& model = system.model();
  const std::string who = system.name(), formulation = idaFormulationName(o.formulation);
  IdaResult out;
  IdaTimings& time = out.timings;
  auto method = [&] { return "IDA " + formulation + " (" + system.solverName() + ")"; };
  out.method = method();
  State s = initial;
  if (s.lambda.size() != model.nc) s.lambda = VecX::Zero(model.nc);
  // A failure before IDA runs, or one not agreed on by the ranks: no worst rows.
  auto stop = [&](Status::Code code, const std::string& message, const State& at) {
    out.status = Status::failure(code, message);
    out.state = at;
    return out;
  };
  // A failure that every rank reaches together also names the largest |C| rows at its state.
  auto fail = [&](Status::Code code, const std::string& message, const State& at) {
    stop(code, message, at);
    out.worst_rows = system.worstRows(at);
    return out;
  };

  // 1. The start: consistent positions and velocities, then v' and lambda.
  VecX vdot;
  {
    PhaseTimer timer(time.initial);
    std::vector<std::string> worst;
    const Status st = system.consistentStart(s, o, worst);
    if (!st.ok()) {
      stop(st.code, who + ": " + st.message, s);
      out.worst_rows = std::move(worst);
      return out;
    }
    const Status acc = system.accelerations(s, vdot, s.lambda);
    if (!acc.ok()) {
      // C = 0 here: the diagnosis names the rows that matter. A singular matrix is diagnosed by
      // withIndependentRows, and only if no rows can be left out (a dense QRCP).
      const std::string why = acc.code == Status::Code::kSingular ? "" : system.diagnoseSingular(s);
      return stop(acc.code,
                  who + ": the initial accelerations and multipliers could not be computed (" +
                      acc.message + ")" + (why.empty() ? "" : ": " + why),
                  s);
    }
  }

  // 2. The DAE and IDA.
  CallbackData data;
  data.system = &system;
  data.timings = &time;
  sundials::IdaObjects sun{system.makeContext()};
  // The system's SUNDIALS objects go before the context does.
  struct Release {
    IdaSystem& system;
    ~Release() { system.release(); }
  } release{system};
  void* mem = nullptr;
  const double span = o.t_end - s.t;
  {
    PhaseTimer timer(time.setup);
    if (!sun.ctx.ok()) return stop(Status::Code::kResources, who + ": out of memory", s);
    const Status st = system.setup(o, sun.ctx);
    if (!st.ok()) return stop(st.code, who + ": " + st.message, s);
    out.method = method();
    out.linear_solver = system.package();
    out.unknowns = system.globalSize();
    for (sundials::Vector* v : {&sun.y, &sun.yp, &sun.id, &sun.work})
      *v = system.makeVector(sun.ctx);
    if (!sun.y || !sun.yp || !sun.id || !sun.work)
      return stop(Status::Code::kResources, who + ": out of memory for the vectors", s);
    system.pack(s, vdot, N_VGetArrayPointer(sun.y.get()), N_VGetArrayPointer(sun.yp.get()));
    system.ownedEntries(system.errorTestIds(), N_VGetArrayPointer(sun.id.get()));
    errorWeights(system, o, data.weights);
    sun.J.reset(makePlaceholderMatrix(sun.ctx.get()));
    sun.ls.reset(makeSolver(&data, sun.ctx.get()));
    if (!sun.J || !sun.ls) return stop(Status::Code::kResources, who + ": out of memory", s);
    data.weights.h_start =
        o.initial_step_factor *
        (o.initial_step > 0.0 ? o.initial_step : system.initialStep(s, vdot, o, span));
    sundials::SetupGuard g = sundials::startIda(sun, data, residualCallback, jacobianCallback, s.t,
                                                o.max_order, o.max_steps);
    mem = sun.mem.get();
    data.mem = mem;
    sundials::limitSteps(g, mem, s.t, o.t_end, o.max_step, o.min_step, data.weights.h_start);
    if (!g.ok()) {
      const Status st = g.status(who, sundials::idaFlagName, data.log);
      return stop(st.code, st.message, s);
    }
  }
  int flag = IDA_SUCCESS;

  // 3. Steps. IDA_ONE_STEP, so that every accepted step is seen (step statistics, index-1
  //    projection); output times in between are IDA's interpolation (IDAGetDky). Every rank
  //    takes the same path: IDA's decisions rest on reduced norms and on callback outcomes that
  //    are reduced too.
  const double loop_start = MPI_Wtime();
  const double length_scale = o.formulation == IdaFormulation::kIndex1 ? system.lengthScale() : 1;
  const double projection_tol =
      o.projection_tolerance > 0.0 ? o.projection_tolerance : 10.0 * o.rtol;
  State current = s;  // the state at the last accepted step
  sundials::IdaCounters counters;
  DynamicsStats& stats = out.stats;
  stats.smallest_step = std::numeric_limits<double>::infinity();
  // Every output state passes the branch watch before the observer sees it.
  auto emit = [&](const State& st) {
    return system.watchBranch(st) && (!observer || observer(st));
  };
  auto finish = [&](bool ok_status) {
    counters.add(mem);
    counters.fill(stats);
    if (stats.steps == 0) stats.smallest_step = 0.0;
    time.integration = MPI_Wtime() - loop_start;
    if (ok_status) {
      out.status = system.branchStatus();  // success unless the branch watch saw a jump
      out.state = current;
    }
    return out;
  };
  if (!emit(s)) return finish(true);
  const double t0 = s.t, dt = o.output_interval;
  long next_index = 1;
  auto nextOutput = [&]() {
    const double t = t0 + static_cast<double>(next_index) * dt;
    return t >= o.t_end - 1e-12 * std::max(1.0, std::abs(o.t_end)) ? o.t_end : t;
  };
  double t = t0;
  double stop_set = o.t_end;  // the stop time IDA holds (-1: none)
  while (t < o.t_end) {
    if (stats.steps >= o.max_steps) {
      finish(false);
      std::ostringstream os;
      os.precision(10);
      os << who << " " << formulation << " stopped at t = " << t
         << " s after max_steps = " << o.max_steps << " accepted steps (t_end = " << o.t_end
         << " s, last step " << stats.last_step << " s): raise max_steps, or loosen rtol/atol";
      return fail(Status::Code::kNotConverged, os.str(), current);
    }
    // Index 1 lands on every output time (its outputs are projected step points, never
    // interpolations between them); the others stop only at t_end.
    const double tstop =
        o.formulation == IdaFormulation::kIndex1 && dt > 0.0 ? nextOutput() : o.t_end;
    if (tstop != stop_set) {
      if ((flag = IDASetStopTime(mem, tstop)) != IDA_SUCCESS) {
        finish(false);
        return fail(Status::Code::kInvalidInput,
                    who + ": IDASetStopTime(" + std::to_string(tstop) + ") failed at t = " +
                        std::to_string(t) + " (" + sundials::idaFlagName(flag) + ")",
                    current);
      }
      stop_set = tstop;
    }
    realtype tret = t;
    flag = IDASolve(mem, o.t_end, &tret, sun.y.get(), sun.yp.get(), IDA_ONE_STEP);
    if (flag == IDA_TSTOP_RETURN) stop_set = -1.0;  // IDA clears a stop time it has reached
    if (flag < 0) {
      finish(false);
      realtype tcur = t;
      IDAGetCurrentTime(mem, &tcur);
      return fail(
          flag == IDA_MEM_FAIL || data.log.linear_solver.code == Status::Code::kResources
              ? Status::Code::kResources
              : Status::Code::kNotConverged,
          data.log.failure(who + " " + formulation, tcur, o.t_end, sundials::idaFlagName(flag)),
          current);
    }
    ++stats.steps;
    realtype h = 0.0;
    IDAGetLastStep(mem, &h);
    stats.last_step = h;
    stats.smallest_step = std::min(stats.smallest_step, static_cast<double>(h));
    stats.largest_step = std::max(stats.largest_step, static_cast<double>(h));
    system.unpack(tret, N_VGetArrayPointer(sun.y.get()), current);
    if (system.stopRequested()) {  // a termination signal: stop at this step's end
      finish(false);
      const Status st = stoppedOnRequest(who, tret);
      return fail(st.code, st.message, current);
    }
    // Outputs strictly inside (t, tret): IDA's interpolation of this step.
    if (dt > 0.0) {
      for (double tout = nextOutput(); tout < tret; tout = nextOutput()) {
        State so;
        IDAGetDky(mem, tout, 0, sun.work.get());
        system.unpack(tout, N_VGetArrayPointer(sun.work.get()), so);
        ++next_index;
        if (!emit(so)) {
          current = so;  // the run ends where the observer stopped it
          return finish(true);
        }
      }
    }
    t = tret;
    // Index 1: back onto C = 0 and C_q v + C_t = 0 when the drift exceeds the tolerance, before
    // the state at tret is reported.
    if (o.formulation == IdaFormulation::kIndex1) {
      const auto [cpos, cvel] = system.drift(current);
      if (cpos > projection_tol * length_scale ||
          cvel > projection_tol * std::max(1.0, maxAbs(current.v))) {
        VecX vd;
        Status st = system.project(current, 1e-3 * projection_tol * length_scale, vd);
        if (!st.ok()) {
          finish(false);
          return fail(st.code,
                      who + " index-1: the projection at t = " + std::to_string(t) +
                          " s failed: " + st.message,
                      current);
        }
        ++stats.projections;
        if (t < o.t_end) {
          // Restart at order 1 (IDA's own initial-step estimate would start again from
          // ~1e-10 s and climb back over dozens of steps).
          system.pack(current, vd, N_VGetArrayPointer(sun.y.get()),
                      N_VGetArrayPointer(sun.yp.get()));
          counters.add(mem);
          if ((flag = IDAReInit(mem, t, sun.y.get(), sun.yp.get())) != IDA_SUCCESS ||
              (flag = IDASetInitStep(mem, std::min(static_cast<double>(h),
                                                   system.initialStep(current, vd, o, span)))) !=
                  IDA_SUCCESS ||
              (flag = IDASetStopTime(mem, stop_set = o.t_end)) != IDA_SUCCESS) {
            finish(false);
            return fail(Status::Code::kNotConverged,
                        who + " index-1: the restart after a projection failed (" +
                            sundials::idaFlagName(flag) + ")",
                        current);
          }
        }
      }
    }
    // The output at tret itself (every step, or an output time the step landed on).
    if (dt == 0.0) {
      if (!emit(current)) return finish(true);
    } else if (nextOutput() == tret) {
      ++next_index;
      if (!emit(current)) return finish(true);
    }
  }
  return finish(true);
}

}  // namespace catena
