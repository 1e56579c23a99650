#include "integrators/ida_system.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <span>

#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"
#include "integrators/branch_watch.hpp"
#include "integrators/initial_state.hpp"
#include "integrators/kkt_solves.hpp"
#include "integrators/sundials/error_log.hpp"
#include "mobility/constraint_rank.hpp"
#include "solvers/klu_lu.hpp"
#include "solvers/saddle_point.hpp"
#include "solvers/sparse_linear_solver.hpp"

namespace catena {
namespace {

/// Column scales of the Newton matrix at c_j: with a mass scale m, the corrections of an index-3
/// system behave as dv ~ c_j dq, dlambda ~ c_j^2 m dq (GGL: dlambda ~ c_j m dv, dmu ~ c_j dq;
/// index 1: dlambda ~ m dv'), and a multiplier in a kinematic equation (mu, nu) as c_j dq.
/// Solving for the scaled corrections keeps the blocks of J O(1) for any c_j, where the
/// unscaled matrix's condition number grows like c_j^2 (index 3) or c_j (GGL) and the
/// multipliers' corrections lose digits (GGL, 150 deg pendulum at rtol 1e-8: period error
/// 1.2e-6 unscaled, 5.5e-7 scaled).
void columnScale(const DaeLayout& L, IdaFormulation f, double m, double cj, VecX& s) {
  s.setOnes(L.size);
  switch (f) {
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

bool allFinite(const double* x, Index n) {
  for (Index i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return false;
  return true;
}

/// The whole model in one process: MultibodyDae in any formulation, its Newton systems
/// column-scaled (columnScale) and solved by KLU (KluLu: refactorizations that keep the pivots,
/// the saddle-point order on meshes) or by PETSc (SparseLinearSolver), both on the DAE's fixed
/// pattern; the KKT solves of KktSolves.
class SerialIdaSystem final : public IdaSystem {
 public:
  SerialIdaSystem(const Model& m, const AssemblyPlan& plan, const IdaOptions& o)
      : m_(m),
        plan_(plan),
        petsc_(o.linear_solver == IdaLinearSolver::kPetsc),
        kkt_(m, plan, o.petsc_prefix),
        watch_branch_(o.watch_branch),
        branch_(m, plan) {}

  std::string name() const override { return "IDA"; }
  std::string solverName() const override {
    if (!petsc_) return "KLU";
    return petsc_solver_ ? "PETSc " + petsc_solver_->description() : "PETSc";
  }
  std::string package() const override { return solverName(); }
  void requireFormulation(IdaFormulation) const override {}
  const Model& model() const override { return m_; }
  sundials::Context makeContext() const override { return sundials::Context(); }

  Status consistentStart(State& s, const IdaOptions& o,
                         std::vector<std::string>& worst_rows) override {
    if (!o.assemble_initial_state) return Status::success();
    InitialStateResult r = assembleInitialState(m_, plan_, s);
    s = r.state;
    worst_rows = r.worst_rows;
    return r.status;
  }
  Status accelerations(const State& s, VecX& vdot, VecX& lambda) override {
    return kkt_.accelerations(s, vdot, lambda);
  }
  std::string diagnoseSingular(const State& s) override {
    return diagnoseSingularSaddlePoint(m_, plan_, s.q, s.t);
  }
  double initialStep(const State& s, const VecX& vdot, const IdaOptions& o, double span) override {
    return initialIdaStep(m_, static_cast<Index>(m_.bodies.size()), s, vdot, o, span,
                          static_cast<double>(m_.nq), [](const std::vector<double>& squares) {
                            double sum = 0.0;
                            for (double x : squares) sum += x;
                            return sum;
                          });
  }

  Status setup(const IdaOptions& o, const sundials::Context&) override {
    formulation_ = o.formulation;
    dae_.emplace(m_, plan_, o.formulation);
    const SparseMatrixCSR& pattern = dae_->jacobian();
    const int n = static_cast<int>(pattern.rows()), nnz = static_cast<int>(pattern.nonZeros());
    const int* start = pattern.outerIndexPtr();
    const int* columns = pattern.innerIndexPtr();
    if (petsc_) {
      petsc_solver_ = std::make_unique<SparseLinearSolver>(
          std::span<const int>(start, n + 1), std::span<const int>(columns, nnz), o.petsc_prefix);
      petsc_values_.resize(nnz);
      return Status::success();
    }
    // The unknowns (q, v) come first and the multipliers' equations hold no multiplier: a
    // saddle-point matrix, whose pivot order KluLu takes from solvers/kkt_ordering.hpp, each
    // body's positions and velocities one group (the diagonal of a position constraint's
    // multiplier fills only once both are eliminated).
    const DaeLayout& L = dae_->layout();
    std::vector<int> body(L.nq + L.nv);
    for (Index i = 0; i < L.nq; ++i) body[i] = static_cast<int>(i / m_.nq_body);
    for (Index i = 0; i < L.nv; ++i) body[L.nq + i] = static_cast<int>(i / m_.nv_body);
    klu_.emplace(n, std::vector<int>(start, start + n + 1),
                 std::vector<int>(columns, columns + nnz), static_cast<int>(L.nq + L.nv), body);
    // Positions, velocities and multipliers have unrelated units: KLU scales them.
    klu_->scaleByLargestEntries();
    return Status::success();
  }
  void release() override {
    klu_.reset();
    petsc_solver_.reset();
  }
  Index localSize() const override { return dae_->layout().size; }
  long globalSize() const override { return static_cast<long>(dae_->layout().size); }
  sundials::Vector makeVector(const sundials::Context& ctx) const override {
    return sundials::serialVector(localSize(), ctx);
  }
  const DaeLayout& layout() const override { return dae_->layout(); }
  void ownedEntries(const VecX& whole, double* out) const override {
    std::copy(whole.data(), whole.data() + whole.size(), out);
  }
  VecX errorTestIds() const override { return dae_->errorTestIds(); }
  void pack(const State& s, const VecX& vdot, double* y, double* yp) override {
    dae_->pack(s, vdot, y_, yp_);
    std::copy(y_.data(), y_.data() + y_.size(), y);
    std::copy(yp_.data(), yp_.data() + yp_.size(), yp);
  }
  void unpack(double t, const double* y, State& s) override { dae_->unpack(t, y, s); }

  int residual(double t, const double* y, const double* yp, double* F, Status&) override {
    dae_->residual(t, y, yp, F);
    return allFinite(F, localSize()) ? 0 : 1;
  }
  int newtonMatrix(double t, const double* y, const double* yp, double cj, Status&) override {
    const SparseMatrixCSR& A = dae_->newtonMatrix(t, y, yp, cj);
    columnScale(dae_->layout(), formulation_, dae_->massScale(), cj, scale_);
    double* val = petsc_ ? petsc_values_.data() : klu_->values();
    const int nnz = static_cast<int>(A.nonZeros());
    const int* idx = A.innerIndexPtr();
    const double* a = A.valuePtr();
    for (int k = 0; k < nnz; ++k) val[k] = a[k] * scale_[idx[k]];
    return allFinite(val, nnz) ? 0 : 1;
  }
  int initializeSolver() override { return SUNLS_SUCCESS; }
  int factor(Status& error) override {
    error = petsc_ ? petsc_solver_->factor(petsc_values_) : klu_->factor();
    return sundials::linearSolverFlag(error);
  }
  void forgetPivots() override {
    if (klu_) klu_->forgetPivots();
  }
  int solve(N_Vector b, N_Vector x, double, Status& error) override {
    const auto n = static_cast<std::size_t>(N_VGetLength(b));
    double* xv = N_VGetArrayPointer(x);
    if (petsc_) {
      error = petsc_solver_->solve({N_VGetArrayPointer(b), n}, {xv, n});
    } else {
      std::copy(N_VGetArrayPointer(b), N_VGetArrayPointer(b) + n, xv);
      error = klu_->solve(xv);
    }
    if (!error.ok()) return sundials::linearSolverFlag(error);
    for (Index i = 0; i < scale_.size(); ++i) xv[i] *= scale_[i];
    return SUNLS_SUCCESS;
  }

  std::vector<std::string> worstRows(const State& s) override {
    return worstRowsAt(m_, plan_, s.q, s.t, 5);
  }
  bool watchBranch(const State& s) override { return !watch_branch_ || branch_.add(s); }
  Status branchStatus() const override { return branch_.status(); }

  std::pair<double, double> drift(const State& s) override { return kkt_.drift(s); }
  Status project(State& s, double position_tolerance, VecX& vdot) override {
    return kkt_.project(s, position_tolerance, vdot);
  }
  double lengthScale() const override { return catena::lengthScale(m_); }

 private:
  const Model& m_;
  const AssemblyPlan& plan_;
  const bool petsc_;
  KktSolves kkt_;
  bool watch_branch_ = true;
  BranchWatch branch_;
  IdaFormulation formulation_ = IdaFormulation::kIndex2;
  std::optional<MultibodyDae> dae_;
  VecX scale_, y_, yp_;
  std::optional<KluLu> klu_;  ///< J S in the DAE's fixed pattern (KLU's value array)
  std::unique_ptr<SparseLinearSolver> petsc_solver_;
  std::vector<double> petsc_values_;  ///< J S for PETSc
};

}  // namespace

std::unique_ptr<IdaSystem> makeSerialIdaSystem(const Model& model, const AssemblyPlan& plan,
                                               const IdaOptions& o) {
  return std::make_unique<SerialIdaSystem>(model, plan, o);
}

}  // namespace catena
