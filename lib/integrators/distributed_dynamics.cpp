#include "integrators/distributed_dynamics.hpp"

#include <petscksp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include "analysis/mpi_space.hpp"
#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"
#include "assembly/plan.hpp"
#include "formulations/mixed_basis/multibody_dae.hpp"
#include "integrators/distributed_dae.hpp"
#include "integrators/sundials/ida.hpp"
#include "integrators/sundials/reproducible_nvector.hpp"
#include "parallel/petsc_coo_matrix.hpp"
#include "parallel/phase_timer.hpp"
#include "parallel/reproducible_sum.hpp"
#include "solvers/direct_lu.hpp"
#include "solvers/factorization.hpp"

namespace catena {
namespace {

using namespace distributed_ida;

/// v' (owned velocities) and lambda (owned rows) at a consistent local state s, from
/// [M, a C_q^T; a C_q, 0] [v'; lambda / a] = [f; a gamma] with a = max |M| / max |C_q| (the
/// serial KktSolves' scaling), in the saddle-point numbering of the distributed statics (body
/// by body: the velocities, then the rows of the joints held). Collective.
Status initialAccelerations(const DistributedAssembly& as, const State& s,
                            const std::string& prefix, VecX& vdot, VecX& lambda) {
  const DistributedModel& dm = as.distributedModel();
  const Model& m = dm.local();
  const AssemblyPlan& plan = as.plan();
  const Index owned = dm.part().owned_bodies, bodies = static_cast<Index>(m.bodies.size());
  const int nvb = m.nv_body;
  std::vector<std::vector<Index>> held(owned);
  for (Index j = 0; j < static_cast<Index>(m.joints.size()); ++j)
    held[holdingBody(m, j)].push_back(j);
  const Index local_size = dm.ownedVelocities() + m.nc;
  const Index first = firstOfRank(local_size);
  std::vector<Index> kv(m.nv), kr(m.nc);
  std::vector<double> start(bodies, 0.0);
  Index at = 0;
  for (Index b = 0; b < owned; ++b) {
    start[b] = static_cast<double>(first + at);
    for (int c = 0; c < nvb; ++c) kv[b * nvb + c] = at++;
    for (Index j : held[b])
      for (Index r = m.joint_row_offset[j]; r < m.joint_row_offset[j + 1]; ++r) kr[r] = at++;
  }
  exchangeBodyStarts(dm, dm.part().ghost_bodies, start);
  for (Index b = 0; b < owned; ++b)
    for (int c = 0; c < nvb; ++c) kv[b * nvb + c] += first;
  for (Index r = 0; r < m.nc; ++r) kr[r] += first;
  for (Index b = owned; b < bodies; ++b)
    for (int c = 0; c < nvb; ++c) kv[b * nvb + c] = static_cast<Index>(start[b]) + c;

  SparseMatrixCSR M = makeBodyMatrix(plan), Cq = makeConstraintMatrix(plan);
  assembleMass(m, plan, s.q, M);
  assembleConstraints(m, plan, s.q, s.t, nullptr, &Cq);
  VecX f(m.nv), gamma(m.nc);
  assembleForces(m, plan, s.q, s.v, s.t, f);
  assembleGamma(m, plan, s.q, s.v, s.t, gamma);

  // M's body blocks on the owned rows (its pattern also couples the bodies of a joint, as
  // zeros that depend on which joints a rank holds: left out, so that the matrix and its
  // factorization do not depend on the rank count), then a C_q and its transpose (a C_q^T on a
  // ghost's rows is summed into its owner's).
  std::vector<PetscInt> rows, cols;
  std::vector<double> values;
  double mmax = 0.0, cmax = 0.0;
  for (Index r = 0; r < dm.ownedVelocities(); ++r)
    for (int k = M.outerIndexPtr()[r]; k < M.outerIndexPtr()[r + 1]; ++k) {
      if (M.innerIndexPtr()[k] / nvb != r / nvb) continue;
      rows.push_back(static_cast<PetscInt>(kv[r]));
      cols.push_back(static_cast<PetscInt>(kv[M.innerIndexPtr()[k]]));
      values.push_back(M.valuePtr()[k]);
      mmax = std::max(mmax, std::abs(M.valuePtr()[k]));
    }
  for (int k = 0; k < Cq.nonZeros(); ++k) cmax = std::max(cmax, std::abs(Cq.valuePtr()[k]));
  mmax = dm.max(mmax);
  cmax = dm.max(cmax);
  const double a = (mmax > 0.0 && cmax > 0.0) ? mmax / cmax : 1.0;
  for (bool transpose : {false, true})
    for (Index r = 0; r < m.nc; ++r)
      for (int k = Cq.outerIndexPtr()[r]; k < Cq.outerIndexPtr()[r + 1]; ++k) {
        const Index row = kr[r], col = kv[Cq.innerIndexPtr()[k]];
        rows.push_back(static_cast<PetscInt>(transpose ? col : row));
        cols.push_back(static_cast<PetscInt>(transpose ? row : col));
        values.push_back(a * Cq.valuePtr()[k]);
      }
  DistributedLu lu(local_size, std::move(rows), std::move(cols), prefix);
  Status st = lu.factor(values.data());
  if (!st.ok()) return st;
  std::vector<double> rhs(local_size), x(local_size);
  for (Index i = 0; i < dm.ownedVelocities(); ++i) rhs[kv[i] - first] = f[i];
  for (Index r = 0; r < m.nc; ++r) rhs[kr[r] - first] = a * gamma[r];
  st = lu.solve(rhs.data(), x.data());
  if (!st.ok()) return st;
  vdot.resize(dm.ownedVelocities());
  lambda.resize(m.nc);
  for (Index i = 0; i < dm.ownedVelocities(); ++i) vdot[i] = x[kv[i] - first];
  for (Index r = 0; r < m.nc; ++r) lambda[r] = a * x[kr[r] - first];
  return Status::success();
}

/// The first step of the serial integrateIda (initialIdaStep), the sum over the bodies reduced
/// over the ranks reproducibly: the same bits on any rank count.
double initialStep(const DistributedModel& dm, const State& s, const VecX& vdot,
                   const IdaOptions& o, double span) {
  return initialIdaStep(dm.local(), dm.part().owned_bodies, s, vdot, o, span,
                        static_cast<double>(dm.globalNq()), [](const std::vector<double>& squares) {
                          return reproducibleSum(PETSC_COMM_WORLD, squares.data(),
                                                 static_cast<Index>(squares.size()));
                        });
}

/// What the C callbacks see (IDA's user data, the linear solver's content).
struct CallbackData {
  DistributedDae* dae = nullptr;
  DistributedDynamicsTimings* timings = nullptr;
  sundials::ErrorLog log;  ///< log.linear_solver: the last failure of the Newton solves
  int last_flag = SUNLS_SUCCESS;
  sundials::ErrorWeights weights;  ///< mu's scaled by h, as in the serial GGL (owned entries)
};

// Callbacks catch everything (STYLE.md rule 6) and return the same on every rank: 0 ok,
// 1 recoverable (IDA cuts the step), -1 fatal. The DAE's own failures are agreed on by the
// ranks; an exception out of the ghost exchanges (a PETSc error) is fatal on its rank alone.
int residualCallback(realtype t, N_Vector y, N_Vector yp, N_Vector r, void* user) {
  auto* data = static_cast<CallbackData*>(user);
  PhaseTimer timer(data->timings->assembly);
  return sundials::guarded(data->log.callback, "the residual", [&] {
    return data->dae->residual(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp),
                               N_VGetArrayPointer(r), data->log.callback);
  });
}

int jacobianCallback(realtype t, realtype cj, N_Vector y, N_Vector yp, N_Vector, SUNMatrix,
                     void* user, N_Vector, N_Vector, N_Vector) {
  auto* data = static_cast<CallbackData*>(user);
  PhaseTimer timer(data->timings->assembly);
  return sundials::guarded(data->log.callback, "the Newton matrix", [&] {
    return data->dae->newtonMatrix(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp), cj,
                                   data->log.callback);
  });
}

// The Newton matrix lives in DistributedDae's MatAIJ; IDA gets a placeholder SUNMatrix so
// that it treats the solver as a direct, matrix-based one (jacobianCallback, then setup).
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

/// The custom SUNLinearSolver: setup factors the Newton matrix that jacobianCallback filled,
/// solve returns x = S z. A singular matrix or a failed solve is recoverable (IDA retries with
/// a new matrix or a smaller step); exhausted memory or an exception is not.
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
  solverData(S)->last_flag = SUNLS_SUCCESS;
  return SUNLS_SUCCESS;
}
int solverSetup(SUNLinearSolver S, SUNMatrix) {
  CallbackData* c = solverData(S);
  PhaseTimer timer(c->timings->factorization);
  Status& failure = c->log.linear_solver;
  return c->last_flag = sundials::guarded(
             failure, "the factorization",
             [&] { return sundials::linearSolverFlag(failure = c->dae->factor()); },
             SUNLS_PACKAGE_FAIL_UNREC);
}
int solverSolve(SUNLinearSolver S, SUNMatrix, N_Vector x, N_Vector b, realtype) {
  CallbackData* c = solverData(S);
  PhaseTimer timer(c->timings->solve);
  Status& failure = c->log.linear_solver;
  return c->last_flag = sundials::guarded(
             failure, "the solve",
             [&] {
               return sundials::linearSolverFlag(
                   failure = c->dae->solve(N_VGetArrayPointer(b), N_VGetArrayPointer(x)));
             },
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

}  // namespace

DistributedDynamicsResult integrateDistributedIda(const DistributedAssembly& as,
                                                  const State& initial, const IdaOptions& o,
                                                  const TrajectoryObserver& observer) {
  const DistributedModel& dm = as.distributedModel();
  const Model& model = dm.local();
  CATENA_CHECK(o.formulation == IdaFormulation::kIndex2,
               "distributed IDA: only the index-2 GGL formulation is distributed, got "
                   << idaFormulationName(o.formulation));
  CATENA_CHECK(o.t_end > initial.t, "distributed IDA: t_end must be after the initial time "
                                        << initial.t << " s, got " << o.t_end);
  CATENA_CHECK(o.rtol > 0.0 && o.atol > 0.0 && o.multiplier_atol > 0.0,
               "distributed IDA: rtol, atol and multiplier_atol must be positive, got "
                   << o.rtol << ", " << o.atol << ", " << o.multiplier_atol);
  CATENA_CHECK(
      o.output_interval >= 0.0 && o.max_step >= 0.0 && o.min_step >= 0.0 && o.initial_step >= 0.0,
      "distributed IDA: output_interval, max_step, min_step and initial_step must not "
      "be negative");
  CATENA_CHECK(o.max_steps > 0, "distributed IDA: max_steps must be positive, got " << o.max_steps);
  CATENA_CHECK(o.max_order >= 1 && o.max_order <= 5,
               "distributed IDA: max_order must be 1..5, got " << o.max_order);
  CATENA_CHECK(initial.q.size() == model.nq && initial.v.size() == model.nv,
               "distributed IDA: the initial state has "
                   << initial.q.size() << " positions and " << initial.v.size()
                   << " velocities, the local model " << model.nq << " and " << model.nv);

  DistributedDynamicsResult out;
  DistributedDynamicsTimings& time = out.timings;
  out.method = "IDA " + idaFormulationName(o.formulation) + " (distributed)";
  State s = initial;
  s.lambda = VecX::Zero(model.nc);
  auto fail = [&](Status::Code code, const std::string& message, const State& at) {
    out.status = Status::failure(code, message);
    out.state = at;
    return out;
  };
  // A failure that every rank reaches together also names the rows with the largest |C| over
  // the ranks at the state it returns (ghosts current), as the serial integrateIda does.
  auto withWorstRows = [&](DistributedDynamicsResult r) {
    VecX C(model.nc);
    assembleConstraints(model, as.plan(), r.state.q, r.state.t, &C, nullptr);
    for (RankedText& w : largestOverRanks(rankedWorstRows(model, C, 5), 5))
      r.worst_rows.push_back(std::move(w.text));
    return r;
  };

  // 1. The start: consistent positions and velocities (checked), then v' and lambda.
  VecX vdot;
  {
    PhaseTimer timer(time.initial);
    const auto [pos, vel] = distributedConstraintDrift(as, s);
    double size = 0.0;  // of the positions (2D: x, y; not the angle)
    for (Index b = 0; b < dm.part().owned_bodies; ++b)
      size = std::max(size, s.q.segment(model.qOffset(b), model.dimension).norm());
    const double pos_tol = 1e-10 * (1.0 + dm.max(size));
    const double vel_tol = 1e-8 * std::max(1.0, dm.maxAbs(s.v));
    if (o.assemble_initial_state && (pos > pos_tol || vel > vel_tol)) {
      std::ostringstream os;
      os << "distributed IDA: the initial state is not consistent (|C| = " << pos
         << ", |C_q v + C_t| = " << vel << "; tolerances " << pos_tol << ", " << vel_tol
         << "): start from an assembled configuration, such as the static equilibrium";
      return withWorstRows(fail(Status::Code::kInvalidInput, os.str(), s));
    }
    const Status st = initialAccelerations(as, s, o.petsc_prefix, vdot, s.lambda);
    if (!st.ok())
      return fail(st.code,
                  "distributed IDA: the initial accelerations and multipliers could not be "
                  "computed (" +
                      st.message + ")",
                  s);
  }

  // 2. The distributed DAE and IDA.
  std::optional<DistributedDae> dae_storage;
  CallbackData data;
  sundials::IdaObjects sun{sundials::Context(PETSC_COMM_WORLD)};
  {
    PhaseTimer timer(time.setup);
    dae_storage.emplace(as, o.petsc_prefix);
  }
  DistributedDae& dae = *dae_storage;
  data.dae = &dae;
  data.timings = &time;
  out.linear_solver = dae.package();
  out.method = "IDA " + idaFormulationName(o.formulation) + " (distributed, PETSc " +
               out.linear_solver + ")";
  out.unknowns = dae.globalSize();
  const Index n = dae.localSize(), N = dae.globalSize();
  {
    PhaseTimer timer(time.setup);
    // IDA's decisions the same on any rank count (its work vectors are clones of y).
    for (sundials::Vector* v : {&sun.y, &sun.yp, &sun.id, &sun.work})
      *v = sundials::reproducibleVector(PETSC_COMM_WORLD, n, N, sun.ctx);
    if (!sun.y || !sun.yp || !sun.id || !sun.work)
      return fail(Status::Code::kResources, "distributed IDA: out of memory for the vectors", s);
    dae.pack(s, vdot, N_VGetArrayPointer(sun.y.get()), N_VGetArrayPointer(sun.yp.get()));
    const DaeLayout& L = dae.layout();
    dae.ownedEntries(dae.errorTestIds(), N_VGetArrayPointer(sun.id.get()));
    VecX atol = VecX::Constant(L.size, o.multiplier_atol);
    atol.segment(L.q, L.nq).setConstant(o.atol);
    atol.segment(L.v, L.nv).setConstant(o.atol);
    // GGL's mu weighed by h in Newton's test, as in the serial integrateIda (ida_dynamics.cpp):
    // with fixed weights the serial run failed at t = 0 from 15000 links.
    VecX step_power = VecX::Zero(L.size);
    step_power.segment(L.mu, L.nmu).setConstant(1.0);
    sundials::ErrorWeights& e = data.weights;
    e.rtol = o.rtol;
    e.atol = VecX(n);
    dae.ownedEntries(atol, e.atol.data());
    VecX owned_power(n);
    dae.ownedEntries(step_power, owned_power.data());
    e.step_power = owned_power.cast<int>();
    sun.J.reset(makePlaceholderMatrix(sun.ctx.get()));
    sun.ls.reset(makeSolver(&data, sun.ctx.get()));
    if (!sun.J || !sun.ls)
      return fail(Status::Code::kResources, "distributed IDA: out of memory", s);
    const double span = o.t_end - s.t;
    e.h_start = o.initial_step > 0.0 ? o.initial_step : initialStep(dm, s, vdot, o, span);
    sundials::SetupGuard g = sundials::startIda(sun, data, residualCallback, jacobianCallback, s.t,
                                                o.max_order, o.max_steps);
    sundials::limitSteps(g, sun.mem.get(), s.t, o.t_end, o.max_step, o.min_step, e.h_start);
    if (!g.ok()) {
      const Status st = g.status("distributed IDA", sundials::idaFlagName, data.log);
      return fail(st.code, st.message, s);
    }
  }
  void* mem = sun.mem.get();
  int flag = IDA_SUCCESS;

  // 3. Steps (IDA_ONE_STEP, as the serial integrateIda); outputs between steps are IDA's
  //    interpolation (IDAGetDky). Every rank takes the same path: IDA's decisions rest on
  //    reduced norms and on callback outcomes that are reduced too.
  const double loop_start = MPI_Wtime();
  State current = s;
  DynamicsStats& stats = out.stats;
  stats.smallest_step = std::numeric_limits<double>::infinity();
  auto finish = [&](bool ok_status) {
    sundials::IdaCounters c;
    c.add(mem);
    c.fill(stats);
    if (stats.steps == 0) stats.smallest_step = 0.0;
    time.integration = MPI_Wtime() - loop_start;
    if (ok_status) {
      out.status = Status::success();
      out.state = current;
    }
    return out;
  };
  if (observer && !observer(s)) return finish(true);
  const double t0 = s.t, dt = o.output_interval;
  long next_index = 1;
  auto nextOutput = [&]() {
    const double t = t0 + static_cast<double>(next_index) * dt;
    return t >= o.t_end - 1e-12 * std::max(1.0, std::abs(o.t_end)) ? o.t_end : t;
  };
  double t = t0;
  while (t < o.t_end) {
    if (stats.steps >= o.max_steps) {
      finish(false);
      std::ostringstream os;
      os.precision(10);
      os << "distributed IDA stopped at t = " << t << " s after max_steps = " << o.max_steps
         << " accepted steps (t_end = " << o.t_end << " s): raise max_steps, or loosen rtol/atol";
      dae.unpack(t, N_VGetArrayPointer(sun.y.get()), current);
      return withWorstRows(fail(Status::Code::kNotConverged, os.str(), current));
    }
    realtype tret = t;
    flag = IDASolve(mem, o.t_end, &tret, sun.y.get(), sun.yp.get(), IDA_ONE_STEP);
    if (flag < 0) {
      finish(false);
      realtype tcur = t;
      IDAGetCurrentTime(mem, &tcur);
      return withWorstRows(
          fail(flag == IDA_MEM_FAIL || data.log.linear_solver.code == Status::Code::kResources
                   ? Status::Code::kResources
                   : Status::Code::kNotConverged,
               data.log.failure("distributed IDA " + idaFormulationName(o.formulation), tcur,
                                o.t_end, sundials::idaFlagName(flag)),
               current));
    }
    ++stats.steps;
    realtype h = 0.0;
    IDAGetLastStep(mem, &h);
    stats.last_step = h;
    stats.smallest_step = std::min(stats.smallest_step, static_cast<double>(h));
    stats.largest_step = std::max(stats.largest_step, static_cast<double>(h));
    if (dt > 0.0 && observer) {
      for (double tout = nextOutput(); tout < tret; tout = nextOutput()) {
        State so;
        IDAGetDky(mem, tout, 0, sun.work.get());
        dae.unpack(tout, N_VGetArrayPointer(sun.work.get()), so);
        ++next_index;
        if (!observer(so)) {
          current = so;  // the run ends where the observer stopped it
          return finish(true);
        }
      }
    }
    t = tret;
    const bool output = observer && (dt == 0.0 || nextOutput() == tret);
    if (output || t >= o.t_end) dae.unpack(tret, N_VGetArrayPointer(sun.y.get()), current);
    if (dt > 0.0 && nextOutput() == tret) ++next_index;
    if (output && !observer(current)) return finish(true);
  }
  return finish(true);
}

Energy distributedEnergy(const DistributedAssembly& as, const State& s) {
  // Each owned body's kinetic and gravity terms, summed exactly over the ranks: the same bits on
  // any rank count. M is block-diagonal, so an owned body's rows of M v hold its own v only.
  const DistributedModel& dm = as.distributedModel();
  const Model& m = dm.local();
  CATENA_CHECK(m.springs.empty() && m.rotational_springs.empty(),
               "distributedEnergy: distributed models have no springs");
  SparseMatrixCSR M = makeBodyMatrix(as.plan());
  assembleMass(m, as.plan(), s.q, M);
  const VecX Mv = M * s.v;
  const Index owned = dm.part().owned_bodies;
  Energy e;
  e.kinetic = reproducibleSum(PETSC_COMM_WORLD, owned, [&](Index b) {
    const Index vo = m.vOffset(b);
    return 0.5 * s.v.segment(vo, m.nv_body).dot(Mv.segment(vo, m.nv_body));
  });
  e.gravity = reproducibleSum(PETSC_COMM_WORLD, owned, [&](Index b) {
    return -m.bodies[b].mass * m.gravity.dot(centreOfMass(m, s.q, b));
  });
  return e;
}

ConstraintDrift distributedConstraintDrift(const DistributedAssembly& as, const State& s) {
  const DistributedModel& dm = as.distributedModel();
  const Model& m = dm.local();
  SparseMatrixCSR Cq = makeConstraintMatrix(as.plan());
  VecX C(m.nc), Ct(m.nc);
  assembleConstraints(m, as.plan(), s.q, s.t, &C, &Cq);
  assembleConstraintTimeDerivative(m, as.plan(), s.q, s.t, Ct);
  return {dm.maxAbs(C), dm.maxAbs(VecX(Cq * s.v + Ct))};
}

}  // namespace catena
