#include "integrators/ida_dynamics.hpp"

#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <span>
#include <sstream>

#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"
#include "core/check.hpp"
#include "formulations/mixed_basis/multibody_dae.hpp"
#include "integrators/branch_watch.hpp"
#include "integrators/initial_state.hpp"
#include "integrators/sundials/ida.hpp"
#include "mobility/constraint_rank.hpp"
#include "solvers/klu_lu.hpp"
#include "solvers/saddle_point.hpp"
#include "solvers/sparse_linear_solver.hpp"

namespace catena {
namespace {

/// What the C callbacks see (IDA's user data and error-handler data).
struct CallbackData {
  MultibodyDae* dae = nullptr;
  /// log.linear_solver: the last failure of the PETSc linear solver (ScaledPetsc), cleared by a
  /// success: a run that then fails says why its Newton systems could not be solved.
  sundials::ErrorLog log;
  sundials::ErrorWeights weights;  ///< h-scaled for index 3 and GGL (setup in integrateIda)
  // Column scaling of the Newton system (see ScaledKlu): the unknowns' corrections are solved
  // for in units where the blocks of J are O(1) for every c_j.
  IdaFormulation formulation = IdaFormulation::kIndex2;
  VecX column_scale;
};

/// Column scales of the Newton matrix at c_j: with a mass scale m, the corrections of an index-3
/// system behave as dv ~ c_j dq, dlambda ~ c_j^2 m dq (GGL: dlambda ~ c_j m dv, dmu ~ c_j dq;
/// index 1: dlambda ~ m dv'), and a multiplier in a kinematic equation (mu, nu) as c_j dq.
/// Solving for the scaled corrections keeps the blocks of J O(1) for any c_j, where the
/// unscaled matrix's condition number grows like c_j^2 (index 3) or c_j (GGL) and the
/// multipliers' corrections lose digits (GGL, 150 deg pendulum at rtol 1e-8: period error
/// 1.2e-6 unscaled, 5.5e-7 scaled).
void computeColumnScale(CallbackData& data, double cj) {
  const DaeLayout& L = data.dae->layout();
  const double m = data.dae->massScale();
  VecX& s = data.column_scale;
  s.setOnes(L.size);
  switch (data.formulation) {
    case IdaFormulation::kIndex3:
      s.segment(L.v, L.nv).setConstant(cj);
      s.segment(L.lambda, L.nc).setConstant(cj * cj * m);
      break;
    case IdaFormulation::kIndex2:
      s.segment(L.lambda, L.nc).setConstant(cj * m);
      s.segment(L.mu, L.nmu).setConstant(cj);
      break;
    case IdaFormulation::kIndex1:
      s.segment(L.lambda, L.nc).setConstant(m);
      break;
  }
  s.segment(L.nu, L.nnu).setConstant(cj);
}

/// SUNLinSol_KLU on the column-scaled Newton matrix J S (filled scaled by jacobianCallback):
/// solves J S z = b with KLU (which also scales rows) and returns x = S z.
struct ScaledKlu {
  SUNLinearSolver klu = nullptr;
  const CallbackData* data = nullptr;
};

ScaledKlu* scaledContent(SUNLinearSolver S) {
  return static_cast<ScaledKlu*>(S->content);
}
SUNLinearSolver_Type scaledType(SUNLinearSolver) {
  return SUNLINEARSOLVER_DIRECT;
}
SUNLinearSolver_ID scaledId(SUNLinearSolver) {
  return SUNLINEARSOLVER_CUSTOM;
}
int scaledInitialize(SUNLinearSolver S) {
  return SUNLinSolInitialize(scaledContent(S)->klu);
}
int scaledSetup(SUNLinearSolver S, SUNMatrix A) {
  return SUNLinSolSetup(scaledContent(S)->klu, A);
}
int scaledSolve(SUNLinearSolver S, SUNMatrix A, N_Vector x, N_Vector b, realtype tol) {
  const ScaledKlu* c = scaledContent(S);
  const int flag = SUNLinSolSolve(c->klu, A, x, b, tol);
  if (flag != SUNLS_SUCCESS) return flag;
  double* xv = N_VGetArrayPointer(x);
  const VecX& scale = c->data->column_scale;
  for (Index i = 0; i < scale.size(); ++i) xv[i] *= scale[i];
  return SUNLS_SUCCESS;
}
sunindextype scaledLastFlag(SUNLinearSolver S) {
  return SUNLinSolLastFlag(scaledContent(S)->klu);
}
int scaledFree(SUNLinearSolver S) {
  if (!S) return SUNLS_SUCCESS;
  if (ScaledKlu* c = scaledContent(S)) {
    if (c->klu) SUNLinSolFree(c->klu);
    delete c;
    S->content = nullptr;
  }
  SUNLinSolFreeEmpty(S);
  return SUNLS_SUCCESS;
}

SUNLinearSolver makeScaledKlu(N_Vector y, SUNMatrix J, const CallbackData* data, SUNContext ctx) {
  SUNLinearSolver klu = SUNLinSol_KLU(y, J, ctx);
  if (!klu) return nullptr;
  // The maximum transversal of KLU's block triangular form is superlinear on the GGL Newton
  // matrix of a long chain: 64 % of a 5000-link chain's run, and 81 s of a 10^4-link run that
  // takes 8 s capped (hand runs, docs/dynamics-ida.md). Its work is capped at
  // kMaxTransversalWork nnz: small models still finish it (their results are unchanged), long
  // chains stop it early.
  SUNLinSol_KLUGetCommon(klu)->maxwork = kMaxTransversalWork;
  SUNLinearSolver S = SUNLinSolNewEmpty(ctx);
  if (!S) {
    SUNLinSolFree(klu);
    return nullptr;
  }
  S->content = new ScaledKlu{klu, data};
  S->ops->gettype = scaledType;
  S->ops->getid = scaledId;
  S->ops->initialize = scaledInitialize;
  S->ops->setup = scaledSetup;
  S->ops->solve = scaledSolve;
  S->ops->lastflag = scaledLastFlag;
  S->ops->free = scaledFree;
  return S;
}

/// IdaLinearSolver::kPetsc: the same scaled matrix J S as ScaledKlu (CSR, filled by
/// jacobianCallback from the DAE's fixed pattern) is copied into a SparseLinearSolver built on
/// that pattern, which solves J S z = b; x = S z. SUNDIALS codes: a singular matrix or a solve
/// that fails numerically is recoverable (IDA retries with a new matrix or a smaller step);
/// exhausted memory, a changed pattern or an exception (caught: this is a C callback) are not.
struct ScaledPetsc {
  std::unique_ptr<SparseLinearSolver> solver;
  CallbackData* data = nullptr;
  int last_flag = SUNLS_SUCCESS;
};

ScaledPetsc* petscContent(SUNLinearSolver S) {
  return static_cast<ScaledPetsc*>(S->content);
}

/// Does the SUNDIALS matrix hold exactly the pattern P (CSR, 64-bit indices against 32-bit)?
bool samePattern(SUNMatrix A, const SparseMatrixCSR& P) {
  if (SUNSparseMatrix_SparseType(A) != CSR_MAT || SUNSparseMatrix_Rows(A) != P.rows()) return false;
  const sunindextype* ptr = SUNSparseMatrix_IndexPointers(A);
  const sunindextype* idx = SUNSparseMatrix_IndexValues(A);
  for (Index i = 0; i <= P.rows(); ++i)
    if (ptr[i] != P.outerIndexPtr()[i]) return false;
  for (Index k = 0; k < P.nonZeros(); ++k)
    if (idx[k] != P.innerIndexPtr()[k]) return false;
  return true;
}

int petscInitialize(SUNLinearSolver S) {
  petscContent(S)->last_flag = SUNLS_SUCCESS;
  return SUNLS_SUCCESS;
}

int petscSetup(SUNLinearSolver S, SUNMatrix A) {
  ScaledPetsc* c = petscContent(S);
  Status& failure = c->data->log.linear_solver;
  return c->last_flag = sundials::guarded(
             failure, "the PETSc setup",
             [&] {
               const SparseMatrixCSR& pattern = c->data->dae->jacobian();
               if (!samePattern(A, pattern)) {
                 failure = Status::failure(Status::Code::kInvalidInput,
                                           "the Newton matrix is not in the pattern the PETSc "
                                           "solver was built on (CSR, fixed at the start)");
                 return SUNLS_ILL_INPUT;
               }
               failure = c->solver->factor(
                   {SUNSparseMatrix_Data(A), static_cast<std::size_t>(pattern.nonZeros())});
               return sundials::linearSolverFlag(failure);
             },
             SUNLS_PACKAGE_FAIL_UNREC);
}

int petscSolve(SUNLinearSolver S, SUNMatrix, N_Vector x, N_Vector b, realtype) {
  ScaledPetsc* c = petscContent(S);
  Status& failure = c->data->log.linear_solver;
  return c->last_flag = sundials::guarded(
             failure, "the PETSc solve",
             [&] {
               const auto n = static_cast<std::size_t>(N_VGetLength(b));
               failure = c->solver->solve({N_VGetArrayPointer(b), n}, {N_VGetArrayPointer(x), n});
               if (!failure.ok()) return sundials::linearSolverFlag(failure);
               double* xv = N_VGetArrayPointer(x);
               const VecX& scale = c->data->column_scale;
               for (Index i = 0; i < scale.size(); ++i) xv[i] *= scale[i];
               return SUNLS_SUCCESS;
             },
             SUNLS_PACKAGE_FAIL_UNREC);
}

sunindextype petscLastFlag(SUNLinearSolver S) {
  return petscContent(S)->last_flag;
}

int petscFree(SUNLinearSolver S) {
  if (!S) return SUNLS_SUCCESS;
  delete petscContent(S);  // the PETSc objects go with it
  S->content = nullptr;
  SUNLinSolFreeEmpty(S);
  return SUNLS_SUCCESS;
}

SUNLinearSolver makeScaledPetsc(std::unique_ptr<SparseLinearSolver> solver, CallbackData* data,
                                SUNContext ctx) {
  SUNLinearSolver S = SUNLinSolNewEmpty(ctx);
  if (!S) return nullptr;
  S->content = new ScaledPetsc{std::move(solver), data};
  S->ops->gettype = scaledType;
  S->ops->getid = scaledId;
  S->ops->initialize = petscInitialize;
  S->ops->setup = petscSetup;
  S->ops->solve = petscSolve;
  S->ops->lastflag = petscLastFlag;
  S->ops->free = petscFree;
  return S;
}

bool allFinite(const double* x, sunindextype n) {
  for (sunindextype i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return false;
  return true;
}

// Callbacks catch everything (STYLE.md rule 6): 0 ok, 1 recoverable (IDA cuts the step), -1 fatal.
int residualCallback(realtype t, N_Vector y, N_Vector yp, N_Vector r, void* user) {
  auto* data = static_cast<CallbackData*>(user);
  return sundials::guarded(data->log.callback, "the residual", [&] {
    data->dae->residual(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp), N_VGetArrayPointer(r));
    // A non-finite residual (a quaternion driven to zero by a wild Newton iterate, say) is
    // recoverable: IDA retries with a smaller step.
    return allFinite(N_VGetArrayPointer(r), N_VGetLength(r)) ? 0 : 1;
  });
}

int jacobianCallback(realtype t, realtype cj, N_Vector y, N_Vector yp, N_Vector, SUNMatrix J,
                     void* user, N_Vector, N_Vector, N_Vector) {
  auto* data = static_cast<CallbackData*>(user);
  return sundials::guarded(data->log.callback, "the Newton matrix", [&] {
    const SparseMatrixCSR& A =
        data->dae->newtonMatrix(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp), cj);
    computeColumnScale(*data, cj);
    const VecX& scale = data->column_scale;
    // IDA zeroes the whole sparse matrix, index arrays included, before calling us.
    sunindextype* ptr = SUNSparseMatrix_IndexPointers(J);
    sunindextype* idx = SUNSparseMatrix_IndexValues(J);
    realtype* val = SUNSparseMatrix_Data(J);
    const int n = static_cast<int>(A.rows()), nnz = static_cast<int>(A.nonZeros());
    for (int i = 0; i <= n; ++i) ptr[i] = A.outerIndexPtr()[i];
    for (int k = 0; k < nnz; ++k) {
      const int col = A.innerIndexPtr()[k];
      idx[k] = col;
      val[k] = A.valuePtr()[k] * scale[col];
    }
    return allFinite(val, nnz) ? 0 : 1;
  });
}

/// The KKT solves around IDA: consistent accelerations and multipliers
/// [M C_q^T; C_q 0] [v'; lambda] = [f; gamma], and the mass-weighted projection of q and v
/// onto C = 0 and C_q v + C_t = 0 (index 1). One factorization per configuration.
class KktSolves {
 public:
  KktSolves(const Model& m, const AssemblyPlan& plan, const std::string& prefix)
      : m_(m),
        plan_(plan),
        Cq_(makeConstraintMatrix(plan)),
        M_(makeBodyMatrix(plan)),
        kkt_(M_, Cq_, prefix) {
    for (VecX* x : {&C_, &Ct_, &rate_, &gamma_}) x->resize(m.nc);
    f_.resize(m.nv);
  }

  /// v' and lambda at the state s (positions and velocities consistent).
  Status accelerations(const State& s, VecX& vdot, VecX& lambda) {
    Status st = factorAt(s.q, s.t);
    if (!st.ok()) return st;
    return solveAccelerations(s, vdot, lambda);
  }

  /// Projects s.q onto C = 0 (simplified Newton, minimum M-norm corrections, until
  /// |C|_inf <= position_tolerance) and s.v onto C_q v + C_t = 0 (one minimum M-norm
  /// correction), then computes v' and lambda there.
  Status project(State& s, double position_tolerance, VecX& vdot) {
    Status st = factorAt(s.q, s.t);
    if (!st.ok()) return st;
    const VecX zero_v = VecX::Zero(m_.nv);
    VecX dq, y;
    for (int it = 0;; ++it) {
      assembleConstraints(m_, plan_, s.q, s.t, &C_, nullptr);
      if (maxAbs(C_) <= position_tolerance) break;
      if (it == 20)
        return Status::failure(Status::Code::kNotConverged,
                               "the projection onto the position constraints did not converge "
                               "(|C| = " +
                                   std::to_string(maxAbs(C_)) + " m after 20 iterations)");
      st = kkt_.solve(zero_v, VecX(-C_), dq, y);
      if (!st.ok()) return st;
      applyVariation(m_, dq, 1.0, s.q);
    }
    st = factorAt(s.q, s.t);
    if (!st.ok()) return st;
    assembleConstraintTimeDerivative(m_, plan_, s.q, s.t, Ct_);
    const VecX residual = Cq_ * s.v + Ct_;
    VecX dv;
    st = kkt_.solve(zero_v, VecX(-residual), dv, y);
    if (!st.ok()) return st;
    s.v += dv;
    return solveAccelerations(s, vdot, s.lambda);
  }

  /// |C|_inf and |C_q v + C_t|_inf at s.
  std::pair<double, double> drift(const State& s) {
    assembleConstraints(m_, plan_, s.q, s.t, &C_, &Cq_);
    assembleConstraintTimeDerivative(m_, plan_, s.q, s.t, Ct_);
    rate_.noalias() = Cq_ * s.v;
    rate_ += Ct_;
    return {maxAbs(C_), maxAbs(rate_)};
  }

 private:
  Status factorAt(const VecX& q, double t) {
    assembleConstraints(m_, plan_, q, t, nullptr, &Cq_);
    assembleMass(m_, plan_, q, M_);
    double a = 0.0, c = 0.0;
    for (int k = 0; k < M_.nonZeros(); ++k) a = std::max(a, std::abs(M_.valuePtr()[k]));
    for (int k = 0; k < Cq_.nonZeros(); ++k) c = std::max(c, std::abs(Cq_.valuePtr()[k]));
    return kkt_.factor(M_, Cq_, (a > 0.0 && c > 0.0) ? a / c : 1.0);
  }
  Status solveAccelerations(const State& s, VecX& vdot, VecX& lambda) {
    assembleForces(m_, plan_, s.q, s.v, s.t, f_);
    assembleGamma(m_, plan_, s.q, s.v, s.t, gamma_);
    return kkt_.solve(f_, gamma_, vdot, lambda);
  }

  const Model& m_;
  const AssemblyPlan& plan_;
  SparseMatrixCSR Cq_, M_;
  VecX C_, Ct_, rate_, f_, gamma_;
  SaddlePointSolver kkt_;
};

/// First step size of a whole model in one process (initialIdaStep).
double initialStep(const Model& m, const State& s, const VecX& vdot, const IdaOptions& o,
                   double span) {
  return initialIdaStep(m, static_cast<Index>(m.bodies.size()), s, vdot, o, span,
                        static_cast<double>(m.nq), [](const std::vector<double>& squares) {
                          double sum = 0.0;
                          for (double x : squares) sum += x;
                          return sum;
                        });
}

}  // namespace

// The BDF1 local error of the positions, h^2/2 |q''|, at a tenth of the tolerance, q'' from v'
// (r'' = v'_lin, rho'' = 1/2 rho (0, w') - |w|^2/4 rho). IDA's own estimate, 0.5 / |y'|_WRMS,
// takes the first-order change of y to half the tolerance, which at rtol 1e-8 means ~1e-9 s:
// below the step where index-3 multipliers drown in round-off (their Newton corrections carry
// ~ eps m L / h^2), and costly after every index-1 restart. At most 1e-3 of the run's span,
// like IDA's.
double initialIdaStep(const Model& m, Index bodies, const State& s, const VecX& vdot,
                      const IdaOptions& o, double span, double coordinates,
                      const std::function<double(const std::vector<double>&)>& total) {
  std::vector<double> squares;
  auto add = [&](double value, double x) {
    const double e = x / (o.rtol * std::abs(value) + o.atol);
    squares.push_back(e * e);
  };
  for (Index b = 0; b < bodies; ++b) {
    const Index qo = m.qOffset(b), vo = m.vOffset(b);
    for (int k = 0; k < 3; ++k) add(s.q(qo + k), vdot(vo + k));
    if (m.dimension != 3) continue;
    const Quat rho(s.q(qo + 3), s.q(qo + 4), s.q(qo + 5), s.q(qo + 6));
    const Vec3 w = s.v.segment<3>(vo + 3), wd = vdot.segment<3>(vo + 3);
    const Quat half = rho * Quat(0.0, 0.5 * wd.x(), 0.5 * wd.y(), 0.5 * wd.z());
    const double c = -0.25 * w.squaredNorm();
    add(rho.w(), half.w() + c * rho.w());
    add(rho.x(), half.x() + c * rho.x());
    add(rho.y(), half.y() + c * rho.y());
    add(rho.z(), half.z() + c * rho.z());
  }
  const double norm = std::sqrt(total(squares) / std::max(coordinates, 1.0));
  double h = 1e-3 * span;
  if (norm > 0.0) h = std::min(h, std::sqrt(0.2 / norm));
  if (o.max_step > 0.0) h = std::min(h, o.max_step);
  return h;
}

std::string idaFormulationName(IdaFormulation f) {
  switch (f) {
    case IdaFormulation::kIndex3:
      return "index-3";
    case IdaFormulation::kIndex2:
      return "index-2 GGL";
    case IdaFormulation::kIndex1:
      return "index-1 with projection";
  }
  return "unknown";
}

DynamicsResult integrateIda(const Model& model, const AssemblyPlan& plan, const State& initial,
                            const IdaOptions& o, const TrajectoryObserver& observer) {
  CATENA_CHECK(o.t_end > initial.t,
               "IDA: t_end must be after the initial time " << initial.t << " s, got " << o.t_end);
  CATENA_CHECK(o.rtol > 0.0 && o.atol > 0.0 && o.multiplier_atol > 0.0,
               "IDA: rtol, atol and multiplier_atol must be positive, got "
                   << o.rtol << ", " << o.atol << ", " << o.multiplier_atol);
  CATENA_CHECK(o.output_interval >= 0.0 && o.max_step >= 0.0 && o.min_step >= 0.0 &&
                   o.initial_step >= 0.0 && o.initial_step_factor > 0.0 &&
                   o.projection_tolerance >= 0.0,
               "IDA: output_interval, max_step, min_step, initial_step and projection_tolerance "
               "must not be negative");
  CATENA_CHECK(o.max_steps > 0, "IDA: max_steps must be positive, got " << o.max_steps);
  CATENA_CHECK(o.max_order >= 1 && o.max_order <= 5,
               "IDA: max_order must be 1..5, got " << o.max_order);
  CATENA_CHECK(petscInitialized(),
               "IDA: PETSc is not initialized; the KKT solves (and the Newton solves with "
               "IdaLinearSolver::kPetsc) need it: create a PetscSession first "
               "(parallel/petsc_session.hpp)");
  CATENA_CHECK(initial.q.size() == model.nq && initial.v.size() == model.nv,
               "IDA: the initial state has " << initial.q.size() << " positions and "
                                             << initial.v.size() << " velocities, the model "
                                             << model.nq << " and " << model.nv);

  DynamicsResult out;
  const bool petsc = o.linear_solver == IdaLinearSolver::kPetsc;
  out.method = "IDA " + idaFormulationName(o.formulation) + (petsc ? " (PETSc)" : " (KLU)");
  State s = initial;
  if (s.lambda.size() != model.nc) s.lambda = VecX::Zero(model.nc);
  auto fail = [&](Status::Code code, const std::string& message, const State& at) {
    out.status = Status::failure(code, message);
    out.state = at;
    VecX C(model.nc);
    assembleConstraints(model, plan, at.q, at.t, &C, nullptr);
    out.worst_rows = worstRows(model, C, 5);
    return out;
  };

  // 1. Consistent initial state: positions and velocities, then v' and lambda.
  if (o.assemble_initial_state) {
    InitialStateResult r = assembleInitialState(model, plan, s);
    if (!r.status.ok()) {
      out.status = Status::failure(r.status.code, "IDA: " + r.status.message);
      out.state = r.state;
      out.worst_rows = r.worst_rows;
      return out;
    }
    s = r.state;
  }
  KktSolves kkt(model, plan, o.petsc_prefix);
  VecX vdot;
  {
    Status st = kkt.accelerations(s, vdot, s.lambda);
    if (!st.ok()) {
      fail(st.code,
           "IDA: the initial accelerations and multipliers could not be computed (" + st.message +
               "): " + diagnoseSingularSaddlePoint(model, plan, s.q, s.t),
           s);
      out.worst_rows.clear();  // C = 0 here: the message names the rows that matter
      return out;
    }
  }

  // 2. The DAE and IDA.
  MultibodyDae dae(model, plan, o.formulation);
  const DaeLayout& L = dae.layout();
  VecX y0, yp0;
  dae.pack(s, vdot, y0, yp0);
  CallbackData data;
  data.dae = &dae;
  data.formulation = o.formulation;
  sundials::IdaObjects sun;
  const double length_scale = lengthScale(model);
  const double projection_tol =
      o.projection_tolerance > 0.0 ? o.projection_tolerance : 10.0 * o.rtol;
  const Index n = L.size;
  if (!sun.makeSerialVectors(n, true))
    return fail(Status::Code::kResources, "IDA: out of memory for the vectors", s);
  Eigen::Map<VecX> y = sundials::entries(sun.y), yp = sundials::entries(sun.yp),
                   work = sundials::entries(sun.work);
  y = y0;
  yp = yp0;
  sundials::entries(sun.id) = dae.errorTestIds();
  {
    sundials::ErrorWeights& e = data.weights;
    e.atol = VecX::Constant(n, o.multiplier_atol);
    e.atol.segment(L.q, L.nq).setConstant(o.atol);
    e.atol.segment(L.v, L.nv).setConstant(o.atol);
    e.rtol = o.rtol;
    // Index 3: v and nu by h, lambda by h^2 (a Newton correction of v carries round-off
    // ~eps L / h and one of lambda ~eps m L / h^2: IDA failed at t = 1.6e-5 s on a pendulum at
    // rtol 1e-10). GGL: mu by h. mu is zero in the exact solution and takes up the round-off
    // of q' = c_j (q - q_pred), ~c_j eps |q|, through (C_q C_q^T)^-1, whose largest eigenvalue
    // grows like N^2 on a chain: from 15000 links on its corrections stalled above the
    // tolerance at every step and IDA failed at t = 0 (ida_test,
    // long_chain_starts_in_every_formulation).
    e.step_power = Eigen::VectorXi::Zero(n);
    if (o.formulation == IdaFormulation::kIndex3) {
      e.step_power.segment(L.v, L.nv).setConstant(1);
      e.step_power.segment(L.lambda, L.nc).setConstant(2);
      e.step_power.segment(L.nu, L.nnu).setConstant(1);
    } else if (o.formulation == IdaFormulation::kIndex2) {
      e.step_power.segment(L.mu, L.nmu).setConstant(1);
    }
  }
  const SparseMatrixCSR& pattern = dae.jacobian();
  sun.J.reset(SUNSparseMatrix(n, n, pattern.nonZeros(), CSR_MAT, sun.ctx.get()));
  if (!sun.J) return fail(Status::Code::kResources, "IDA: out of memory for the Newton matrix", s);
  if (petsc) {
    auto solver = std::make_unique<SparseLinearSolver>(
        std::span<const int>(pattern.outerIndexPtr(), pattern.rows() + 1),
        std::span<const int>(pattern.innerIndexPtr(), pattern.nonZeros()), o.petsc_prefix);
    out.method =
        "IDA " + idaFormulationName(o.formulation) + " (PETSc " + solver->description() + ")";
    sun.ls.reset(makeScaledPetsc(std::move(solver), &data, sun.ctx.get()));
    if (!sun.ls) return fail(Status::Code::kResources, "IDA: SUNLinSolNewEmpty failed", s);
  } else {
    sun.ls.reset(makeScaledKlu(sun.y.get(), sun.J.get(), &data, sun.ctx.get()));
    if (!sun.ls) return fail(Status::Code::kResources, "IDA: SUNLinSol_KLU failed", s);
  }
  const double span = o.t_end - s.t;
  const double h0 = o.initial_step_factor *
                    (o.initial_step > 0.0 ? o.initial_step : initialStep(model, s, vdot, o, span));
  data.weights.h_start = h0;
  sundials::SetupGuard g = sundials::startIda(sun, data, residualCallback, jacobianCallback, s.t,
                                              o.max_order, o.max_steps);
  void* mem = sun.mem.get();
  sundials::limitSteps(g, mem, s.t, o.t_end, o.max_step, o.min_step, h0);
  if (!g.ok()) {
    const Status st = g.status("IDA", sundials::idaFlagName, data.log);
    return fail(st.code, st.message, s);
  }
  int flag = IDA_SUCCESS;

  // 3. Steps. IDA_ONE_STEP, so that every accepted step is seen (step statistics, index-1
  //    projection); output times in between are interpolated by IDA (IDAGetDky).
  State current = s;  // the state at the last accepted step
  sundials::IdaCounters counters;
  DynamicsStats& stats = out.stats;
  stats.smallest_step = std::numeric_limits<double>::infinity();
  // Every output state passes the branch watch before the observer sees it.
  BranchWatch branch(model);
  auto emit = [&](const State& st) { return branch.add(st) && (!observer || observer(st)); };
  auto finish = [&](bool ok_status) {
    counters.add(mem);
    counters.fill(stats);
    if (stats.steps == 0) stats.smallest_step = 0.0;
    if (ok_status) {
      out.status = branch.status();  // success unless the branch watch saw a jump
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
      os << "IDA " << idaFormulationName(o.formulation) << " stopped at t = " << t
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
                    "IDA: IDASetStopTime(" + std::to_string(tstop) + ") failed at t = " +
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
      return fail(flag == IDA_MEM_FAIL || data.log.linear_solver.code == Status::Code::kResources
                      ? Status::Code::kResources
                      : Status::Code::kNotConverged,
                  data.log.failure("IDA " + idaFormulationName(o.formulation), tcur, o.t_end,
                                   sundials::idaFlagName(flag)),
                  current);
    }
    ++stats.steps;
    realtype h = 0.0;
    IDAGetLastStep(mem, &h);
    stats.last_step = h;
    stats.smallest_step = std::min(stats.smallest_step, static_cast<double>(h));
    stats.largest_step = std::max(stats.largest_step, static_cast<double>(h));
    dae.unpack(tret, y.data(), current);
    // Outputs strictly inside (t, tret): IDA's interpolation of this step.
    bool stop = false;
    if (dt > 0.0) {
      for (double tout = nextOutput(); tout < tret && !stop; tout = nextOutput()) {
        State so;
        IDAGetDky(mem, tout, 0, sun.work.get());
        dae.unpack(tout, work.data(), so);
        ++next_index;
        if (!emit(so)) {
          stop = true;
          current = so;  // the run ends where the observer stopped it
        }
      }
    }
    if (stop) return finish(true);
    t = tret;
    // Index 1: back onto C = 0 and C_q v + C_t = 0 when the drift exceeds the tolerance, before
    // the state at tret is reported.
    if (o.formulation == IdaFormulation::kIndex1) {
      const auto [cpos, cvel] = kkt.drift(current);
      if (cpos > projection_tol * length_scale ||
          cvel > projection_tol * std::max(1.0, maxAbs(current.v))) {
        Status st = kkt.project(current, 1e-3 * projection_tol * length_scale, vdot);
        if (!st.ok()) {
          finish(false);
          return fail(st.code,
                      "IDA index-1: the projection at t = " + std::to_string(t) +
                          " s failed: " + st.message,
                      current);
        }
        ++stats.projections;
        if (t < o.t_end) {
          // Restart at order 1 (IDA's own initial-step estimate would start again from
          // ~1e-10 s and climb back over dozens of steps).
          dae.pack(current, vdot, y0, yp0);
          y = y0;
          yp = yp0;
          counters.add(mem);
          if ((flag = IDAReInit(mem, t, sun.y.get(), sun.yp.get())) != IDA_SUCCESS ||
              (flag = IDASetInitStep(mem, std::min(static_cast<double>(h),
                                                   initialStep(model, current, vdot, o, span)))) !=
                  IDA_SUCCESS ||
              (flag = IDASetStopTime(mem, stop_set = o.t_end)) != IDA_SUCCESS) {
            finish(false);
            return fail(Status::Code::kNotConverged,
                        "IDA index-1: the restart after a projection failed (" +
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
