#include "solvers/saddle_point.hpp"

#include <petscksp.h>

#include <chrono>
#include <sstream>

#include "solvers/factorization.hpp"
#include "solvers/petsc_check.hpp"

namespace catena {
namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

struct SaddlePointSolver::Petsc {
  Mat K = nullptr;
  KSP ksp = nullptr;
  Vec rhs = nullptr, sol = nullptr;
  ~Petsc() {
    VecDestroy(&sol);
    VecDestroy(&rhs);
    KSPDestroy(&ksp);
    MatDestroy(&K);
  }
};

SaddlePointSolver::SaddlePointSolver(const SparseMatrixCSR& A, const SparseMatrixCSR& B,
                                     const std::string& prefix)
    : petsc_(std::make_unique<Petsc>()), n_(A.rows()), m_(B.rows()) {
  CATENA_CHECK(A.rows() == A.cols() && B.cols() == A.rows(),
               "saddle-point blocks do not fit: A is " << A.rows() << " x " << A.cols() << ", B is "
                                                       << B.rows() << " x " << B.cols());
  const int n = static_cast<int>(n_), m = static_cast<int>(m_), N = n + m;
  // Pattern of B^T: column counts of B, then rows of B in increasing order keep columns sorted.
  std::vector<int> bt_count(n + 1, 0);
  for (int k = 0; k < B.nonZeros(); ++k) ++bt_count[B.innerIndexPtr()[k] + 1];
  std::vector<PetscInt> row(N + 1, 0);
  for (int i = 0; i < n; ++i)
    row[i + 1] = row[i] + (A.outerIndexPtr()[i + 1] - A.outerIndexPtr()[i]) + bt_count[i + 1];
  for (int r = 0; r < m; ++r)
    row[n + r + 1] = row[n + r] + (B.outerIndexPtr()[r + 1] - B.outerIndexPtr()[r]);
  std::vector<PetscInt> col(row[N]);
  slot_a_.resize(A.nonZeros());
  slot_b_.resize(B.nonZeros());
  slot_bt_.resize(B.nonZeros());
  std::vector<int> next(n);  // next free position of B^T entries in row i
  for (int i = 0; i < n; ++i) {
    int k = static_cast<int>(row[i]);
    for (int a = A.outerIndexPtr()[i]; a < A.outerIndexPtr()[i + 1]; ++a) {
      slot_a_[a] = k;
      col[k++] = A.innerIndexPtr()[a];
    }
    next[i] = k;
  }
  for (int r = 0; r < m; ++r) {
    int k = static_cast<int>(row[n + r]);
    for (int b = B.outerIndexPtr()[r]; b < B.outerIndexPtr()[r + 1]; ++b) {
      const int c = B.innerIndexPtr()[b];
      slot_b_[b] = k;
      col[k++] = c;
      slot_bt_[b] = next[c];
      col[next[c]++] = n + r;
    }
  }
  Petsc& p = *petsc_;
  CATENA_PETSC(MatCreate(PETSC_COMM_SELF, &p.K));
  CATENA_PETSC(MatSetSizes(p.K, N, N, N, N));
  CATENA_PETSC(MatSetType(p.K, MATSEQAIJ));
  CATENA_PETSC(MatSeqAIJSetPreallocationCSR(p.K, row.data(), col.data(), nullptr));
  CATENA_PETSC(MatCreateVecs(p.K, &p.sol, &p.rhs));
  CATENA_PETSC(KSPCreate(PETSC_COMM_SELF, &p.ksp));
  if (!prefix.empty()) CATENA_PETSC(KSPSetOptionsPrefix(p.ksp, prefix.c_str()));
  CATENA_PETSC(KSPSetType(p.ksp, KSPPREONLY));
  PC pc;
  CATENA_PETSC(KSPGetPC(p.ksp, &pc));
  // KLU pivots, so the zero (2,2) block is fine (PETSc's own LU is not: TOOLCHAIN.md).
  useDirectFactorization(pc);
  CATENA_PETSC(KSPSetOperators(p.ksp, p.K, p.K));
  CATENA_PETSC(KSPSetFromOptions(p.ksp));
}

SaddlePointSolver::~SaddlePointSolver() = default;

long SaddlePointSolver::nonZeros() const {
  MatInfo info;
  MatGetInfo(petsc_->K, MAT_LOCAL, &info);
  return static_cast<long>(info.nz_used);
}

std::string SaddlePointSolver::package() const {
  PC pc;
  KSPGetPC(petsc_->ksp, &pc);
  MatSolverType type = nullptr;
  PCFactorGetMatSolverType(pc, &type);
  return type ? type : "petsc";
}

Status SaddlePointSolver::factor(const SparseMatrixCSR& A, const SparseMatrixCSR& B, double scale) {
  CATENA_CHECK(A.nonZeros() == static_cast<long>(slot_a_.size()) &&
                   B.nonZeros() == static_cast<long>(slot_b_.size()),
               "saddle-point refill with matrices of another pattern");
  const auto t0 = std::chrono::steady_clock::now();
  ++stats_.factorizations;
  scale_ = scale;
  Petsc& p = *petsc_;
  PetscScalar* v = nullptr;
  CATENA_PETSC(MatSeqAIJGetArray(p.K, &v));
  for (std::size_t a = 0; a < slot_a_.size(); ++a) v[slot_a_[a]] = A.valuePtr()[a];
  for (std::size_t b = 0; b < slot_b_.size(); ++b) {
    v[slot_b_[b]] = scale * B.valuePtr()[b];
    v[slot_bt_[b]] = scale * B.valuePtr()[b];
  }
  CATENA_PETSC(MatSeqAIJRestoreArray(p.K, &v));
  // A new matrix state makes KSPSetUp refactor.
  CATENA_PETSC(KSPSetOperators(p.ksp, p.K, p.K));
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);  // a singular matrix is a status
  const PetscErrorCode ierr = KSPSetUp(p.ksp);
  PetscPopErrorHandler();
  PC pc;
  CATENA_PETSC(KSPGetPC(p.ksp, &pc));
  stats_.factor_seconds += secondsSince(t0);
  return factorizationStatus(pc, size(), ierr);
}

Status SaddlePointSolver::solve(const VecX& f, const VecX& g, VecX& x, VecX& y) {
  const auto t0 = std::chrono::steady_clock::now();
  ++stats_.solves;
  Petsc& p = *petsc_;
  PetscScalar* r = nullptr;
  CATENA_PETSC(VecGetArray(p.rhs, &r));
  for (long i = 0; i < n_; ++i) r[i] = f(i);
  for (long i = 0; i < m_; ++i) r[n_ + i] = scale_ * g(i);
  CATENA_PETSC(VecRestoreArray(p.rhs, &r));
  CATENA_PETSC(KSPSolve(p.ksp, p.rhs, p.sol));
  KSPConvergedReason reason;
  CATENA_PETSC(KSPGetConvergedReason(p.ksp, &reason));
  stats_.solve_seconds += secondsSince(t0);
  if (reason < 0) {
    std::ostringstream os;
    os << "the saddle-point solve failed (" << KSPConvergedReasons[reason] << ")";
    return Status::failure(Status::Code::kSingular, os.str());
  }
  const PetscScalar* s = nullptr;
  CATENA_PETSC(VecGetArrayRead(p.sol, &s));
  x.resize(n_);
  y.resize(m_);
  for (long i = 0; i < n_; ++i) x(i) = s[i];
  for (long i = 0; i < m_; ++i) y(i) = scale_ * s[n_ + i];
  CATENA_PETSC(VecRestoreArrayRead(p.sol, &s));
  if (!x.allFinite() || !y.allFinite())
    return Status::failure(Status::Code::kSingular,
                           "the saddle-point solve returned non-finite values (singular matrix)");
  return Status::success();
}

}  // namespace catena
