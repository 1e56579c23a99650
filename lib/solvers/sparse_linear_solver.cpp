#include "solvers/sparse_linear_solver.hpp"

#include <petscksp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <vector>

#include "core/wall_clock.hpp"
#include "solvers/factorization.hpp"
#include "solvers/petsc_check.hpp"

namespace catena {
namespace {

struct PetscPattern {
  std::vector<PetscInt> rows, cols;
};

/// The caller's CSR arrays as PetscInt, after checking that they describe a square pattern with
/// sorted, distinct columns and that every index fits PetscInt (32-bit in Debian's PETSc: a
/// silent narrowing would alias rows).
template <typename I>
PetscPattern toPetscPattern(std::span<const I> row_start, std::span<const I> columns) {
  CATENA_CHECK(
      row_start.size() >= 2,
      "sparse linear solver: the row pointers need n + 1 >= 2 entries, got " << row_start.size());
  const std::int64_t n = static_cast<std::int64_t>(row_start.size()) - 1;
  const std::int64_t nnz = static_cast<std::int64_t>(row_start[n]);
  CATENA_CHECK(row_start[0] == 0,
               "sparse linear solver: the row pointers must start at 0, got " << row_start[0]);
  constexpr std::int64_t kMax = std::numeric_limits<PetscInt>::max();
  CATENA_CHECK(n <= kMax && nnz <= kMax, "sparse linear solver: the "
                                             << n << " x " << n << " matrix with " << nnz
                                             << " nonzeros does not fit PETSc's "
                                             << sizeof(PetscInt) * 8 << "-bit PetscInt (at most "
                                             << kMax << "); use a PETSc built with 64-bit indices");
  CATENA_CHECK(nnz == static_cast<std::int64_t>(columns.size()),
               "sparse linear solver: the row pointers end at "
                   << nnz << " but there are " << columns.size() << " column indices");
  PetscPattern p;
  p.rows.resize(n + 1);
  p.cols.resize(nnz);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t begin = row_start[i], end = row_start[i + 1];
    CATENA_CHECK(begin <= end && end <= nnz,
                 "sparse linear solver: the row pointers must be nondecreasing and end at "
                     << nnz << ", row " << i << " runs from " << begin << " to " << end);
    p.rows[i] = static_cast<PetscInt>(begin);
    for (std::int64_t k = begin; k < end; ++k) {
      const std::int64_t c = columns[k];
      CATENA_CHECK(c >= 0 && c < n, "sparse linear solver: column "
                                        << c << " in row " << i << " is outside [0, " << n << ")");
      CATENA_CHECK(k == begin || c > columns[k - 1], "sparse linear solver: the columns of row "
                                                         << i << " are not strictly increasing ("
                                                         << columns[k - 1] << ", then " << c
                                                         << ")");
      p.cols[k] = static_cast<PetscInt>(c);
    }
  }
  p.rows[n] = static_cast<PetscInt>(nnz);
  return p;
}

/// PETSc's own words for the last error ("Matrix is missing diagonal entry 6"), which it stores
/// whatever the error handler.
std::string lastPetscError(PetscErrorCode ierr) {
  const char* text = nullptr;
  char* specific = nullptr;
  PetscErrorMessage(ierr, &text, &specific);
  std::string s = specific && *specific ? specific : (text ? text : "");
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

/// While alive, KLU orders with COLAMD and skips the block triangular form unless the options
/// say otherwise (-mat_klu_ordering, -mat_klu_use_btf).
/// PETSc's default ordering, AMD (a symmetric ordering of A + A^T), suits symmetric patterns like
/// the KKT matrices of statics; on the unsymmetric IDA Newton matrix of a 100-link chain
/// (n = 2,206) it took 1.2 s per factorization against 2.4 ms with COLAMD, the ordering SUNDIALS'
/// KLU uses. The maximum transversal of the block triangular form is superlinear on a long
/// chain's GGL matrix: 80 % of a 5000-link IDA run, 16.6 s against 2.5 s without it (hand runs);
/// PETSc cannot cap its work as the serial IDA does (kMaxTransversalWork), so it is off.
/// PETSc's KLU reads its options, under no prefix, when the factor matrix is created (in
/// KSPSetFromOptions or KSPSetUp), so the defaults are set only around those calls.
class KluDefaults {
 public:
  KluDefaults()
      : ordering_(own("-mat_klu_ordering", "COLAMD")), btf_(own("-mat_klu_use_btf", "0")) {}
  ~KluDefaults() {
    if (ordering_) PetscOptionsClearValue(nullptr, "-mat_klu_ordering");
    if (btf_) PetscOptionsClearValue(nullptr, "-mat_klu_use_btf");
  }
  KluDefaults(const KluDefaults&) = delete;
  KluDefaults& operator=(const KluDefaults&) = delete;

 private:
  /// Sets `name` to `value` unless the options already name it; true if it did.
  static bool own(const char* name, const char* value) {
    PetscBool set = PETSC_FALSE;
    PetscOptionsHasName(nullptr, nullptr, name, &set);
    return !set && PetscOptionsSetValue(nullptr, name, value) == 0;
  }
  bool ordering_ = false, btf_ = false;
};

}  // namespace

bool petscInitialized() {
  PetscBool initialized = PETSC_FALSE;
  return PetscInitialized(&initialized) == 0 && initialized == PETSC_TRUE;
}

struct SparseLinearSolver::Petsc {
  Mat A = nullptr;
  KSP ksp = nullptr;
  Vec rhs = nullptr, sol = nullptr;
  bool factored = false;  ///< the last factor() succeeded
  bool preonly = true;    ///< KSP preonly (a direct solve), as the options left it

  void create(const PetscPattern& p, const std::string& prefix) {
    CATENA_CHECK(petscInitialized(),
                 "sparse linear solver: PETSc is not initialized (create a PetscSession first, "
                 "parallel/petsc_session.hpp)");
    const PetscInt n = static_cast<PetscInt>(p.rows.size()) - 1;
    CATENA_PETSC(MatCreate(PETSC_COMM_SELF, &A));
    CATENA_PETSC(MatSetSizes(A, n, n, n, n));
    CATENA_PETSC(MatSetType(A, MATSEQAIJ));
    CATENA_PETSC(MatSeqAIJSetPreallocationCSR(A, p.rows.data(), p.cols.data(), nullptr));
    // factor() copies values straight into the AIJ array: it must hold exactly the pattern.
    MatInfo info;
    CATENA_PETSC(MatGetInfo(A, MAT_LOCAL, &info));
    CATENA_CHECK(static_cast<PetscInt>(info.nz_used) == p.rows.back(),
                 "sparse linear solver: PETSc stored " << info.nz_used << " of the "
                                                       << p.rows.back() << " pattern entries");
    CATENA_PETSC(MatCreateVecs(A, &sol, &rhs));
    CATENA_PETSC(KSPCreate(PETSC_COMM_SELF, &ksp));
    if (!prefix.empty()) CATENA_PETSC(KSPSetOptionsPrefix(ksp, prefix.c_str()));
    CATENA_PETSC(KSPSetType(ksp, KSPPREONLY));
    PC pc;
    CATENA_PETSC(KSPGetPC(ksp, &pc));
    useDirectFactorization(pc);  // before the options, so that they override it
    CATENA_PETSC(KSPSetOperators(ksp, A, A));
    const KluDefaults klu_defaults;
    CATENA_PETSC(KSPSetFromOptions(ksp));
    PetscBool is_preonly = PETSC_FALSE;
    CATENA_PETSC(
        PetscObjectTypeCompare(reinterpret_cast<PetscObject>(ksp), KSPPREONLY, &is_preonly));
    preonly = is_preonly == PETSC_TRUE;
  }
  ~Petsc() {
    VecDestroy(&sol);
    VecDestroy(&rhs);
    KSPDestroy(&ksp);
    MatDestroy(&A);
  }
};

SparseLinearSolver::SparseLinearSolver(std::span<const std::int64_t> row_start,
                                       std::span<const std::int64_t> columns,
                                       const std::string& prefix)
    : petsc_(std::make_unique<Petsc>()),
      n_(static_cast<long>(row_start.size()) - 1),
      nnz_(static_cast<long>(columns.size())) {
  petsc_->create(toPetscPattern(row_start, columns), prefix);
}

SparseLinearSolver::SparseLinearSolver(std::span<const std::int32_t> row_start,
                                       std::span<const std::int32_t> columns,
                                       const std::string& prefix)
    : petsc_(std::make_unique<Petsc>()),
      n_(static_cast<long>(row_start.size()) - 1),
      nnz_(static_cast<long>(columns.size())) {
  petsc_->create(toPetscPattern(row_start, columns), prefix);
}

SparseLinearSolver::~SparseLinearSolver() = default;

std::string SparseLinearSolver::description() const {
  KSPType ksp_type = nullptr;
  PCType pc_type = nullptr;
  MatSolverType package = nullptr;
  PC pc;
  KSPGetType(petsc_->ksp, &ksp_type);
  KSPGetPC(petsc_->ksp, &pc);
  PCGetType(pc, &pc_type);
  PCFactorGetMatSolverType(pc, &package);  // null for a PC that does not factor
  const std::string ksp = ksp_type ? ksp_type : "?", pct = pc_type ? pc_type : "?";
  if (ksp == KSPPREONLY && package) return package;
  std::string s = ksp + " + " + pct;
  if (package && std::strcmp(package, MATSOLVERPETSC) != 0) s += " (" + std::string(package) + ")";
  return s;
}

Status SparseLinearSolver::factor(std::span<const double> values) {
  CATENA_CHECK(static_cast<long>(values.size()) == nnz_,
               "sparse linear solver: factor() got " << values.size() << " values for a pattern of "
                                                     << nnz_);
  const auto t0 = std::chrono::steady_clock::now();
  ++stats_.factorizations;
  Petsc& p = *petsc_;
  p.factored = false;
  PetscScalar* v = nullptr;
  CATENA_PETSC(MatSeqAIJGetArray(p.A, &v));
  std::copy(values.begin(), values.end(), v);
  CATENA_PETSC(MatSeqAIJRestoreArray(p.A, &v));  // a new matrix state: KSPSetUp refactors
  CATENA_PETSC(KSPSetOperators(p.ksp, p.A, p.A));
  const KluDefaults klu_defaults;
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);  // a singular matrix is a status
  PetscErrorCode ierr = KSPSetUp(p.ksp);
  // Block preconditioners (bjacobi, asm) would factor their blocks in the first KSPSolve.
  if (ierr == 0) ierr = KSPSetUpOnBlocks(p.ksp);
  PetscPopErrorHandler();
  PC pc;
  CATENA_PETSC(KSPGetPC(p.ksp, &pc));
  Status st = factorizationStatus(pc, n_, ierr);
  if (ierr != 0) st.message += " [PETSc: " + lastPetscError(ierr) + "]";
  p.factored = st.ok();
  // A failed setup can stay failed for good: MUMPS's analysis (run on the values) reports a
  // numerically zero row as a structural zero pivot, which PETSc never reanalyzes for the same
  // pattern. The next factor() starts over, with a new analysis.
  if (!st.ok()) CATENA_PETSC(PCReset(pc));
  stats_.factor_seconds += secondsSince(t0);
  return st;
}

Status SparseLinearSolver::solve(std::span<const double> b, std::span<double> x) {
  CATENA_CHECK(static_cast<long>(b.size()) == n_ && static_cast<long>(x.size()) == n_,
               "sparse linear solver: solve() needs vectors of " << n_ << " entries, got b "
                                                                 << b.size() << ", x " << x.size());
  Petsc& p = *petsc_;
  if (!p.factored)
    return Status::failure(Status::Code::kSingular,
                           "sparse linear solver: solve() without a valid factorization (the "
                           "last factor() failed or none was made)");
  const auto t0 = std::chrono::steady_clock::now();
  ++stats_.solves;
  PetscScalar* r = nullptr;
  CATENA_PETSC(VecGetArray(p.rhs, &r));
  std::copy(b.begin(), b.end(), r);  // before x is written: they may alias
  CATENA_PETSC(VecRestoreArray(p.rhs, &r));
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  const PetscErrorCode ierr = KSPSolve(p.ksp, p.rhs, p.sol);
  PetscPopErrorHandler();
  if (ierr != 0) {
    stats_.solve_seconds += secondsSince(t0);
    return Status::failure(Status::Code::kSingular,
                           "the " + std::to_string(n_) + " x " + std::to_string(n_) +
                               " sparse solve (" + description() + ") stopped with PETSc error " +
                               std::to_string(ierr) + ": " + lastPetscError(ierr));
  }
  KSPConvergedReason reason;
  PetscInt iterations = 0;
  CATENA_PETSC(KSPGetConvergedReason(p.ksp, &reason));
  CATENA_PETSC(KSPGetIterationNumber(p.ksp, &iterations));
  if (!p.preonly) stats_.iterations += iterations;  // preonly counts 1 per solve
  if (reason < 0) {
    PetscReal residual = 0.0;
    KSPGetResidualNorm(p.ksp, &residual);
    std::ostringstream os;
    os << "the " << n_ << " x " << n_ << " sparse solve (" << description()
       << ") failed: " << KSPConvergedReasons[reason] << " after " << iterations
       << " iterations, residual norm " << residual
       << " (-<prefix>ksp_max_it, -<prefix>ksp_rtol or another -<prefix>pc_type)";
    stats_.solve_seconds += secondsSince(t0);
    return Status::failure(
        reason == KSP_DIVERGED_PC_FAILED ? Status::Code::kSingular : Status::Code::kNotConverged,
        os.str());
  }
  const PetscScalar* s = nullptr;
  CATENA_PETSC(VecGetArrayRead(p.sol, &s));
  std::copy(s, s + n_, x.begin());
  CATENA_PETSC(VecRestoreArrayRead(p.sol, &s));
  stats_.solve_seconds += secondsSince(t0);
  if (!std::all_of(x.begin(), x.end(), [](double xi) { return std::isfinite(xi); }))
    return Status::failure(Status::Code::kSingular,
                           "the " + std::to_string(n_) + " x " + std::to_string(n_) +
                               " sparse solve returned non-finite values (singular matrix)");
  return Status::success();
}

}  // namespace catena
