#include "solvers/distributed_saddle_point.hpp"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "solvers/direct_lu.hpp"
#include "solvers/petsc_check.hpp"
#include "solvers/saddle_point_matrix.hpp"

namespace catena {
namespace {

/// Sets -name value in the options database unless the user gave -name.
void defaultOption(const std::string& name, const char* value) {
  PetscBool set = PETSC_FALSE;
  CATENA_PETSC(PetscOptionsHasName(nullptr, nullptr, name.c_str(), &set));
  if (!set) CATENA_PETSC(PetscOptionsSetValue(nullptr, name.c_str(), value));
}

IS ownedIndices(const std::vector<Index>& global, Index count) {
  std::vector<PetscInt> idx(global.begin(), global.begin() + count);
  IS is = nullptr;
  CATENA_PETSC(ISCreateGeneral(PETSC_COMM_WORLD, static_cast<PetscInt>(idx.size()), idx.data(),
                               PETSC_COPY_VALUES, &is));
  return is;
}

}  // namespace

/// The PETSc objects of the solver: the saddle-point matrix, the outer KSP and its vectors.
struct DistributedSaddlePoint::Petsc {
  SaddlePointMatrix K;
  KSP ksp = nullptr;
  Vec rhs = nullptr, sol = nullptr;
  Petsc(const SaddleNumbering& n, const SparseMatrixCSR& A, const SparseMatrixCSR& B,
        const std::vector<std::uint8_t>& A_nonzero)
      : K(n, A, B, false, A_nonzero) {}
  ~Petsc() {
    VecDestroy(&sol);
    VecDestroy(&rhs);
    KSPDestroy(&ksp);
  }
};

/// The preconditioner K_gamma^{-1} T of distributed_saddle_point.hpp: a PCSHELL on the outer
/// FGMRES whose apply() forms T r = r + gamma K [0; r_lambda] and runs the inner KSP (preonly +
/// PCFIELDSPLIT on K_gamma).
struct DistributedSaddlePoint::AugmentedLagrangian {
  AugmentedLagrangian(const DistributedModel& dm, const SaddleNumbering& n,
                      const SparseMatrixCSR& A, const SparseMatrixCSR& B, const std::string& prefix)
      : K_gamma(n, A, B, true) {
    CATENA_PETSC(MatCreateVecs(K_gamma.mat(), &rows_mask, &work));
    // rows_mask: 1 on the constraint rows, 0 on the velocities.
    CATENA_PETSC(VecSet(rows_mask, 0.0));
    std::vector<PetscInt> rows(n.kr.begin(), n.kr.end());
    const std::vector<PetscScalar> ones(rows.size(), 1.0);
    CATENA_PETSC(VecSetValues(rows_mask, static_cast<PetscInt>(rows.size()), rows.data(),
                              ones.data(), INSERT_VALUES));
    CATENA_PETSC(VecAssemblyBegin(rows_mask));
    CATENA_PETSC(VecAssemblyEnd(rows_mask));

    CATENA_PETSC(KSPCreate(PETSC_COMM_WORLD, &inner));
    const std::string p = prefix + "al_";
    CATENA_PETSC(KSPSetOptionsPrefix(inner, p.c_str()));
    CATENA_PETSC(KSPSetType(inner, KSPPREONLY));
    PC pc;
    CATENA_PETSC(KSPGetPC(inner, &pc));
    CATENA_PETSC(PCSetType(pc, PCFIELDSPLIT));
    velocities = ownedIndices(n.kv, dm.ownedVelocities());
    multipliers = ownedIndices(n.kr, static_cast<Index>(n.kr.size()));
    CATENA_PETSC(PCFieldSplitSetIS(pc, "v", velocities));
    CATENA_PETSC(PCFieldSplitSetIS(pc, "lambda", multipliers));
    CATENA_PETSC(PCFieldSplitSetType(pc, PC_COMPOSITE_SCHUR));
    CATENA_PETSC(PCFieldSplitSetSchurFactType(pc, PC_FIELDSPLIT_SCHUR_FACT_UPPER));
    // -(1/gamma) I, refilled with gamma at every factor().
    const auto local = static_cast<PetscInt>(n.kr.size());
    CATENA_PETSC(MatCreateAIJ(PETSC_COMM_WORLD, local, local, PETSC_DETERMINE, PETSC_DETERMINE, 1,
                              nullptr, 0, nullptr, &schur));
    PetscInt r0 = 0, r1 = 0;
    CATENA_PETSC(MatGetOwnershipRange(schur, &r0, &r1));
    for (PetscInt r = r0; r < r1; ++r) CATENA_PETSC(MatSetValue(schur, r, r, -1.0, INSERT_VALUES));
    CATENA_PETSC(MatAssemblyBegin(schur, MAT_FINAL_ASSEMBLY));
    CATENA_PETSC(MatAssemblyEnd(schur, MAT_FINAL_ASSEMBLY));
    CATENA_PETSC(PCFieldSplitSetSchurPre(pc, PC_FIELDSPLIT_SCHUR_PRE_USER, schur));
    // The blocks' solvers unless the options say otherwise: the velocity block (positive
    // definite) by CG with additive Schwarz, one Cholesky factor per rank of its part grown by
    // 4 layers of couplings (symmetric "basic" variant, as CG needs). Against block Jacobi
    // (no overlap) this was 4x faster on a 50 x 50 lattice on 2 ranks and the same on chains
    // (hand runs of catena-scale, not in committed output).
    // rtol 1e-8, not tighter: FGMRES absorbs the inexact inner solves, and from 1e-12 CG
    // could stall at round-off on 4 ranks.
    const std::string f = "-" + p + "fieldsplit_";
    defaultOption(f + "v_ksp_type", "cg");
    defaultOption(f + "v_ksp_rtol", "1e-8");
    defaultOption(f + "v_pc_type", "asm");
    defaultOption(f + "v_pc_asm_type", "basic");
    defaultOption(f + "v_pc_asm_overlap", "4");
    defaultOption(f + "v_sub_pc_type", "cholesky");
    defaultOption(f + "lambda_ksp_type", "preonly");
    defaultOption(f + "lambda_pc_type", "jacobi");
    CATENA_PETSC(KSPSetOperators(inner, K_gamma.mat(), K_gamma.mat()));
    CATENA_PETSC(KSPSetFromOptions(inner));
  }
  ~AugmentedLagrangian() {
    KSPDestroy(&inner);
    MatDestroy(&schur);
    ISDestroy(&velocities);
    ISDestroy(&multipliers);
    VecDestroy(&rows_mask);
    VecDestroy(&work);
  }
  AugmentedLagrangian(const AugmentedLagrangian&) = delete;
  AugmentedLagrangian& operator=(const AugmentedLagrangian&) = delete;

  /// z = K_gamma^{-1} T r (PCShellSetApply). A failed inner solve (the velocity block not
  /// positive definite, CG out of iterations) fails the outer PC with its reason kept.
  static PetscErrorCode apply(PC pc, Vec r, Vec z) {
    void* ctx = nullptr;
    PetscCall(PCShellGetContext(pc, &ctx));
    auto* self = static_cast<AugmentedLagrangian*>(ctx);
    PetscCall(VecPointwiseMult(self->work, self->rows_mask, r));  // [0; r_lambda]
    PetscCall(MatMult(self->K, self->work, z));                   // [(s B)^T r_lambda; 0]
    PetscCall(VecAYPX(z, self->gamma, r));                        // T r
    PetscCall(VecCopy(z, self->work));
    PetscCall(KSPSolve(self->inner, self->work, z));
    KSPConvergedReason reason = KSP_CONVERGED_ITERATING;
    PetscCall(KSPGetConvergedReason(self->inner, &reason));
    PC fieldsplit;
    PetscCall(KSPGetPC(self->inner, &fieldsplit));
    PCFailedReason failed = PC_NOERROR;
    PetscCall(PCGetFailedReason(fieldsplit, &failed));
    if (reason < 0 || failed != PC_NOERROR) {
      if (self->failure.empty()) {
        // The velocity block's own solver says why (PCFieldSplitGetSubKSP allocates the array).
        KSP* sub = nullptr;
        PetscInt count = 0, its = 0;
        KSPConvergedReason v_reason = KSP_CONVERGED_ITERATING;
        PetscCall(PCFieldSplitGetSubKSP(fieldsplit, &count, &sub));
        if (count > 0) {
          PetscCall(KSPGetConvergedReason(sub[0], &v_reason));
          PetscCall(KSPGetIterationNumber(sub[0], &its));
        }
        PetscCall(PetscFree(sub));
        std::ostringstream os;
        os << "the augmented Lagrangian's velocity block A + gamma (s B)^T (s B) at gamma = "
           << self->gamma << " was not solved (" << KSPConvergedReasons[v_reason] << " after "
           << its << " iterations): not positive definite (an unstable configuration, or too "
           << "small an augmentation) or too ill-conditioned for its preconditioner";
        self->failure = os.str();
      }
      PetscCall(PCSetFailedReason(pc, PC_SUBPC_ERROR));
    }
    return 0;
  }

  SaddlePointMatrix K_gamma;
  Mat K = nullptr;  ///< the outer operator (not owned)
  double gamma = 1.0;
  KSP inner = nullptr;
  Mat schur = nullptr;  ///< -(1/gamma) I
  IS velocities = nullptr, multipliers = nullptr;
  Vec rows_mask = nullptr, work = nullptr;
  std::string failure;  ///< the first inner failure since the last factor()
};

DistributedSaddlePoint::DistributedSaddlePoint(const DistributedModel& dm, const SparseMatrixCSR& A,
                                               const SparseMatrixCSR& B, const std::string& prefix,
                                               const SaddlePointSolverOptions& options,
                                               const std::vector<std::uint8_t>& A_nonzero)
    : dm_(dm),
      options_(options),
      n_(saddleNumbering(dm)),
      p_(std::make_unique<Petsc>(n_, A, B, A_nonzero)) {
  CATENA_PETSC(MatCreateVecs(p_->K.mat(), &p_->sol, &p_->rhs));
  if (schur()) {
    dd_ = std::make_unique<SchurDecomposition>(prefix, options.schur_moved);
    return;
  }
  CATENA_PETSC(KSPCreate(PETSC_COMM_WORLD, &p_->ksp));
  if (options.method == SaddlePointSolverOptions::Method::kDirect) {
    setUpDirectLu(p_->ksp, p_->K.mat(), prefix, kSaddlePointWorkspacePercent);
    return;
  }
  al_ = std::make_unique<AugmentedLagrangian>(dm, n_, A, B, prefix);
  al_->K = p_->K.mat();
  if (!prefix.empty()) CATENA_PETSC(KSPSetOptionsPrefix(p_->ksp, prefix.c_str()));
  CATENA_PETSC(KSPSetOperators(p_->ksp, p_->K.mat(), p_->K.mat()));
  CATENA_PETSC(KSPSetType(p_->ksp, KSPFGMRES));  // the inner CG makes the preconditioner vary
  CATENA_PETSC(KSPGMRESSetRestart(p_->ksp, options_.restart));
  CATENA_PETSC(KSPSetTolerances(p_->ksp, options_.relative_tolerance, 0.0, PETSC_DEFAULT,
                                options_.max_iterations));
  PC pc;
  CATENA_PETSC(KSPGetPC(p_->ksp, &pc));
  CATENA_PETSC(PCSetType(pc, PCSHELL));
  CATENA_PETSC(PCShellSetContext(pc, al_.get()));
  CATENA_PETSC(PCShellSetApply(pc, &AugmentedLagrangian::apply));
  CATENA_PETSC(PCShellSetName(pc, "augmented Lagrangian, PCFIELDSPLIT (options -PREFIXal_...)"));
  CATENA_PETSC(KSPSetFromOptions(p_->ksp));
}

DistributedSaddlePoint::~DistributedSaddlePoint() = default;

Status DistributedSaddlePoint::factor(const SparseMatrixCSR& A, const SparseMatrixCSR& B, double s,
                                      double a_max) {
  ++stats_.factorizations;
  const auto t0 = std::chrono::steady_clock::now();
  const Status st = factorNow(A, B, s, a_max);
  stats_.factor_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return st;
}

Status DistributedSaddlePoint::factorNow(const SparseMatrixCSR& A, const SparseMatrixCSR& B,
                                         double s, double a_max) {
  scale_ = s;
  p_->K.set(A, B, s);
  if (schur()) return dd_->factor(p_->K.mat());
  if (options_.method == SaddlePointSolverOptions::Method::kDirect)
    return factorDirectLu(p_->ksp, p_->K.mat());
  CATENA_CHECK(options_.augmentation > 0.0,
               "the augmented Lagrangian needs an augmentation > 0, got " << options_.augmentation);
  AugmentedLagrangian& al = *al_;
  al.gamma = options_.augmentation / (a_max > 0.0 ? a_max : 1.0);
  al.failure.clear();
  al.K_gamma.set(A, B, s, al.gamma);
  CATENA_PETSC(MatZeroEntries(al.schur));
  CATENA_PETSC(MatShift(al.schur, -1.0 / al.gamma));
  // The operators were given once (the constructor): KSPSetUp sees that their values changed.
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);  // a failed factor is a status
  PetscErrorCode ierr = KSPSetUp(al.inner);
  if (ierr == 0) ierr = KSPSetUp(p_->ksp);
  PetscPopErrorHandler();
  if (ierr != 0) {
    std::ostringstream os;
    os << "the augmented Lagrangian's set-up failed (PETSc error " << ierr
       << "): the velocity block A + gamma B^T B is not positive definite at gamma = " << al.gamma
       << " (an unstable configuration, or too small an augmentation)";
    return Status::failure(Status::Code::kSingular, os.str());
  }
  return Status::success();
}

Status DistributedSaddlePoint::leastSquaresMultipliers(const SparseMatrixCSR& I,
                                                       const SparseMatrixCSR& B, const VecX& f,
                                                       VecX& y) {
  const bool iterative = options_.method == SaddlePointSolverOptions::Method::kAugmentedLagrangian;
  const double augmentation = options_.augmentation;
  Status st;
  for (double gamma = augmentation;; gamma *= 1e3) {
    if (iterative) options_.augmentation = std::min(gamma, options_.least_squares_augmentation);
    st = factor(I, B, 1.0, 1.0);
    VecX x;
    if (st.ok()) st = solve(f, VecX::Zero(B.rows()), x, y);
    if (!iterative || st.code != Status::Code::kNotConverged ||
        gamma >= options_.least_squares_augmentation)
      break;
  }
  options_.augmentation = augmentation;
  return st;
}

Status DistributedSaddlePoint::solve(const VecX& f, const VecX& g, VecX& x, VecX& y) {
  ++stats_.solves;
  const auto t0 = std::chrono::steady_clock::now();
  const Status st = solveNow(f, g, x, y);
  stats_.solve_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return st;
}

Status DistributedSaddlePoint::solveNow(const VecX& f, const VecX& g, VecX& x, VecX& y) {
  PetscScalar* r = nullptr;
  CATENA_PETSC(VecGetArray(p_->rhs, &r));
  for (Index k = 0; k < f.size(); ++k) r[n_.kv[k] - n_.first] = f(k);
  for (Index k = 0; k < g.size(); ++k) r[n_.kr[k] - n_.first] = scale_ * g(k);
  CATENA_PETSC(VecRestoreArray(p_->rhs, &r));
  PetscErrorCode ierr = 0;
  KSPConvergedReason reason = KSP_CONVERGED_ITERATING;
  PetscInt its = 1;
  Status dd_status;
  if (schur()) {
    dd_status = dd_->solve(p_->rhs, p_->sol);
  } else {
    PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);  // a failed solve is a status
    ierr = KSPSolve(p_->ksp, p_->rhs, p_->sol);
    PetscPopErrorHandler();
    CATENA_PETSC(KSPGetConvergedReason(p_->ksp, &reason));
    CATENA_PETSC(KSPGetIterationNumber(p_->ksp, &its));
  }
  stats_.krylov_iterations += its;  // KSPPREONLY (direct) counts 1 per solve
  const PetscScalar* s = nullptr;
  CATENA_PETSC(VecGetArrayRead(p_->sol, &s));
  x.resize(f.size());
  y.resize(g.size());
  for (Index k = 0; k < f.size(); ++k) x(k) = s[n_.kv[k] - n_.first];
  for (Index k = 0; k < g.size(); ++k) y(k) = scale_ * s[n_.kr[k] - n_.first];
  CATENA_PETSC(VecRestoreArrayRead(p_->sol, &s));
  const double finite = dm_.max(x.allFinite() && y.allFinite() ? 0.0 : 1.0);
  if (!dd_status.ok()) return dd_status;
  if (ierr != 0 || reason < 0) {
    // A failed factorization (direct, or a preconditioner's) is a singular matrix; any other
    // reason is an iterative solve that did not converge.
    std::ostringstream os;
    os << "the saddle-point solve failed (";
    if (ierr != 0)
      os << "PETSc error " << ierr;
    else
      os << KSPConvergedReasons[reason];
    os << " after " << its << " Krylov iterations";
    if (al_ && !al_->failure.empty()) os << "; " << al_->failure;
    os << ")";
    return Status::failure(
        reason == KSP_DIVERGED_PC_FAILED ? Status::Code::kSingular : Status::Code::kNotConverged,
        os.str());
  }
  if (finite > 0.0)
    return Status::failure(Status::Code::kSingular,
                           "the saddle-point solve returned non-finite values (singular matrix)");
  return Status::success();
}

void DistributedSaddlePoint::forgetAnalysis() {
  if (dd_) {
    dd_->forgetAnalysis();
  } else if (options_.method == SaddlePointSolverOptions::Method::kDirect) {
    forgetDirectLu(p_->ksp, p_->K.mat(), kSaddlePointWorkspacePercent);
  }
}

SaddlePointStats DistributedSaddlePoint::stats() const {
  SaddlePointStats s = stats_;
  if (dd_) s.schur = dd_->stats();
  return s;
}

std::string DistributedSaddlePoint::package() const {
  switch (options_.method) {
    case SaddlePointSolverOptions::Method::kAugmentedLagrangian:
      return "fieldsplit-al";
    case SaddlePointSolverOptions::Method::kSchur:
      return "schur (klu + mumps)";
    default:
      return directLuPackage(p_->ksp);
  }
}

}  // namespace catena
