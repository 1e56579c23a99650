#include "solvers/saddle_point.hpp"

#include <petscksp.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/huge_pages.hpp"
#include "core/wall_clock.hpp"
#include "solvers/factorization.hpp"
#include "solvers/klu_lu.hpp"
#include "solvers/petsc_check.hpp"

namespace catena {
namespace {

/// True when a -mat_klu_* option is set, with the prefix or without it (PETSc 3.18 reads them
/// without prefix).
bool kluOptionsGiven(const std::string& prefix) {
  for (const char* option :
       {"-mat_klu_pivot_tol", "-mat_klu_use_btf", "-mat_klu_ordering", "-mat_klu_row_scale"}) {
    PetscBool set = PETSC_FALSE, set_prefixed = PETSC_FALSE;
    CATENA_PETSC(PetscOptionsHasName(nullptr, nullptr, option, &set));
    CATENA_PETSC(PetscOptionsHasName(nullptr, prefix.empty() ? nullptr : prefix.c_str(), option,
                                     &set_prefixed));
    if (set || set_prefixed) return true;
  }
  return false;
}

/// True when the options left the default direct solve (KSP preonly, LU, KLU) with KLU's own
/// settings untouched: then KLU is called directly, so that it can refactor (solvers/klu_lu.hpp).
/// Any other choice, or a -mat_klu_* option, goes through PETSc.
bool defaultKlu(KSP ksp, const std::string& prefix) {
  KSPType ksp_type;
  PC pc;
  PCType pc_type;
  MatSolverType package = nullptr;
  CATENA_PETSC(KSPGetType(ksp, &ksp_type));
  CATENA_PETSC(KSPGetPC(ksp, &pc));
  CATENA_PETSC(PCGetType(pc, &pc_type));
  if (std::string(ksp_type) != KSPPREONLY || std::string(pc_type) != PCLU) return false;
  CATENA_PETSC(PCFactorGetMatSolverType(pc, &package));
  if (!package || std::string(package) != MATSOLVERKLU) return false;
  return !kluOptionsGiven(prefix);
}

}  // namespace

bool kktSolverOptionsGiven(const std::string& prefix) {
  const char* pre = prefix.empty() ? nullptr : prefix.c_str();
  for (const char* option : {"-ksp_type", "-pc_type", "-pc_factor_mat_solver_type"}) {
    PetscBool set = PETSC_FALSE;
    CATENA_PETSC(PetscOptionsHasName(nullptr, pre, option, &set));
    if (set) return true;
  }
  return kluOptionsGiven(prefix);
}

struct SaddlePointSolver::Petsc {
  Mat K = nullptr;  // without storage when KLU is called directly: sizes and type only
  KSP ksp = nullptr;
  Vec rhs = nullptr, sol = nullptr;
  std::unique_ptr<KluLu> klu;  // the default direct solve, called without PETSc
  std::vector<double> work;    // right-hand side and solution of the direct KLU solve
  ~Petsc() {
    VecDestroy(&sol);
    VecDestroy(&rhs);
    KSPDestroy(&ksp);
    MatDestroy(&K);
  }
};

SaddlePointSolver::SaddlePointSolver(const SparseMatrixCSR& A, const SparseMatrixCSR& B,
                                     const std::string& prefix,
                                     const std::vector<std::uint8_t>& A_nonzero)
    : petsc_(std::make_unique<Petsc>()), n_(A.rows()), m_(B.rows()) {
  CATENA_CHECK(A.rows() == A.cols() && B.cols() == A.rows(),
               "saddle-point blocks do not fit: A is " << A.rows() << " x " << A.cols() << ", B is "
                                                       << B.rows() << " x " << B.cols());
  CATENA_CHECK(A_nonzero.empty() || A_nonzero.size() == static_cast<std::size_t>(A.nonZeros()),
               "saddle-point solver: " << A_nonzero.size() << " nonzero flags for the "
                                       << A.nonZeros() << " entries of A");
  const int n = static_cast<int>(n_), m = static_cast<int>(m_), N = n + m;
  // Row i < n of the KKT matrix is row i of A (its entries flagged nonzero) followed by the B^T
  // entries of column i of B (in B's row order, which keeps the columns sorted); row n + r is
  // row r of B. factor() scatters the values by the same walk, so no per-entry slot array is
  // kept. Built as int, KLU's index type; converted to PetscInt only when PETSc factors.
  a_nonzero_ = A_nonzero;
  std::vector<int> bt_count(n + 1, 0);
  for (int k = 0; k < B.nonZeros(); ++k) ++bt_count[B.innerIndexPtr()[k] + 1];
  row_.assign(N + 1, 0);
  for (int i = 0; i < n; ++i) {
    int a_count = 0;
    forEachFactoredEntry(A, i, [&](int) { ++a_count; });
    row_[i + 1] = row_[i] + a_count + bt_count[i + 1];
  }
  for (int r = 0; r < m; ++r)
    row_[n + r + 1] = row_[n + r] + (B.outerIndexPtr()[r + 1] - B.outerIndexPtr()[r]);
  bt_count = {};
  std::vector<int> row = row_, col;
  resizeHuge(col, row_[N]);
  next_.resize(n);
  for (int i = 0; i < n; ++i) {
    int k = row_[i];
    forEachFactoredEntry(A, i, [&](int a) { col[k++] = A.innerIndexPtr()[a]; });
    next_[i] = k;
  }
  for (int r = 0; r < m; ++r) {
    int k = row_[n + r];
    for (int b = B.outerIndexPtr()[r]; b < B.outerIndexPtr()[r + 1]; ++b) {
      const int c = B.innerIndexPtr()[b];
      col[k++] = c;
      col[next_[c]++] = n + r;
    }
  }
  a_nonzeros_ = A.nonZeros();
  b_nonzeros_ = B.nonZeros();
  nnz_ = row[N];
  // The KSP is set up from the options on a matrix that has sizes and a type but no storage
  // yet: when the options leave the default KLU, KLU gets the pattern and PETSc never stores
  // the matrix (a copy of 12 bytes per nonzero, as large as KLU's own).
  Petsc& p = *petsc_;
  CATENA_PETSC(MatCreate(PETSC_COMM_SELF, &p.K));
  CATENA_PETSC(MatSetSizes(p.K, N, N, N, N));
  CATENA_PETSC(MatSetType(p.K, MATSEQAIJ));
  CATENA_PETSC(KSPCreate(PETSC_COMM_SELF, &p.ksp));
  if (!prefix.empty()) CATENA_PETSC(KSPSetOptionsPrefix(p.ksp, prefix.c_str()));
  CATENA_PETSC(KSPSetType(p.ksp, KSPPREONLY));
  PC pc;
  CATENA_PETSC(KSPGetPC(p.ksp, &pc));
  // KLU pivots, so the zero (2,2) block is fine (PETSc's own LU is not: TOOLCHAIN.md).
  useDirectFactorization(pc);
  CATENA_PETSC(KSPSetOperators(p.ksp, p.K, p.K));
  CATENA_PETSC(KSPSetFromOptions(p.ksp));
  if (defaultKlu(p.ksp, prefix)) {
    p.klu = std::make_unique<KluLu>(N, std::move(row), std::move(col), n);
    p.work.resize(N);
    return;
  }
  const std::vector<PetscInt> row_p(row.begin(), row.end()), col_p(col.begin(), col.end());
  row = {};
  col = {};
  CATENA_PETSC(MatSeqAIJSetPreallocationCSR(p.K, row_p.data(), col_p.data(), nullptr));
  CATENA_PETSC(MatCreateVecs(p.K, &p.sol, &p.rhs));
}

SaddlePointSolver::~SaddlePointSolver() = default;

long SaddlePointSolver::nonZeros() const {
  return nnz_;
}

std::string SaddlePointSolver::package() const {
  PC pc;
  KSPGetPC(petsc_->ksp, &pc);
  MatSolverType type = nullptr;
  PCFactorGetMatSolverType(pc, &type);
  return type ? type : "petsc";
}

Status SaddlePointSolver::factor(const SparseMatrixCSR& A, const SparseMatrixCSR& B, double scale,
                                 double /*a_max*/) {
  CATENA_CHECK(A.rows() == n_ && B.rows() == m_ && A.nonZeros() == a_nonzeros_ &&
                   B.nonZeros() == b_nonzeros_,
               "saddle-point refill with matrices of another pattern");
  const auto t0 = std::chrono::steady_clock::now();
  ++stats_.factorizations;
  scale_ = scale;
  Petsc& p = *petsc_;
  auto fill = [&](double* v) {  // the constructor's walk of the layout
    const int* b_row = B.outerIndexPtr();
    const int* b_col = B.innerIndexPtr();
    for (int i = 0; i < static_cast<int>(n_); ++i) {
      int k = row_[i];
      forEachFactoredEntry(A, i, [&](int a) { v[k++] = A.valuePtr()[a]; });
      next_[i] = k;
    }
    for (long r = 0; r < m_; ++r) {
      int k = row_[n_ + r];
      for (int b = b_row[r]; b < b_row[r + 1]; ++b) {
        const double x = scale * B.valuePtr()[b];
        v[k++] = x;
        v[next_[b_col[b]]++] = x;
      }
    }
  };
  if (p.klu) {  // straight into KLU's value array
    fill(p.klu->values());
    const Status st = p.klu->factor();
    stats_.factor_seconds += secondsSince(t0);
    return st;
  }
  PetscScalar* v = nullptr;
  CATENA_PETSC(MatSeqAIJGetArray(p.K, &v));
  fill(v);
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

void SaddlePointSolver::forgetPivots() {
  if (petsc_->klu) petsc_->klu->forgetPivots();
}

void SaddlePointSolver::forgetAnalysis() {
  Petsc& p = *petsc_;
  if (p.klu) {
    p.klu->forgetPivots();  // KLU's analysis (ordering, block triangular form) is the pattern's
    return;
  }
  // Frees the factors; factor() sets the operators again and KSPSetUp analyses anew.
  PC pc;
  CATENA_PETSC(KSPGetPC(p.ksp, &pc));
  CATENA_PETSC(PCReset(pc));
}

Status SaddlePointSolver::solve(const VecX& f, const VecX& g, VecX& x, VecX& y) {
  const auto t0 = std::chrono::steady_clock::now();
  ++stats_.solves;
  ++stats_.krylov_iterations;  // a direct solve counts one, as in kkt_solver.hpp
  Petsc& p = *petsc_;
  if (p.klu) {
    double* z = p.work.data();
    for (long i = 0; i < n_; ++i) z[i] = f(i);
    for (long i = 0; i < m_; ++i) z[n_ + i] = scale_ * g(i);
    const Status st = p.klu->solve(z);
    stats_.solve_seconds += secondsSince(t0);
    if (!st.ok()) return st;
    x.resize(n_);
    y.resize(m_);
    for (long i = 0; i < n_; ++i) x(i) = z[i];
    for (long i = 0; i < m_; ++i) y(i) = scale_ * z[n_ + i];
    if (!x.allFinite() || !y.allFinite())
      return Status::failure(Status::Code::kSingular,
                             "the saddle-point solve returned non-finite values (singular matrix)");
    return Status::success();
  }
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
