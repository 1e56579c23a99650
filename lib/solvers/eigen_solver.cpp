#include "solvers/eigen_solver.hpp"

#include <slepceps.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "solvers/factorization.hpp"
#include "solvers/petsc_check.hpp"

namespace catena {
namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// A PETSc copy of a CSR matrix (values copied; the pattern must be sorted by row).
Mat toPetsc(const SparseMatrixCSR& A) {
  Mat M;
  const int n = static_cast<int>(A.rows());
  CATENA_PETSC(MatCreate(PETSC_COMM_SELF, &M));
  CATENA_PETSC(MatSetSizes(M, n, static_cast<int>(A.cols()), n, static_cast<int>(A.cols())));
  CATENA_PETSC(MatSetType(M, MATSEQAIJ));
  CATENA_PETSC(MatSeqAIJSetPreallocationCSR(M, A.outerIndexPtr(), A.innerIndexPtr(), A.valuePtr()));
  return M;
}

struct Objects {
  Mat A = nullptr, B = nullptr;
  EPS eps = nullptr;
  Vec xr = nullptr, xi = nullptr, v0 = nullptr;
  ~Objects() {
    VecDestroy(&v0);
    VecDestroy(&xi);
    VecDestroy(&xr);
    EPSDestroy(&eps);
    MatDestroy(&B);
    MatDestroy(&A);
  }
};

/// Unit 2-norm, and the phase that makes the largest entry real and positive (fixed signs).
void normalize(VecX& re, VecX& im) {
  Eigen::Index k = 0;
  (re.array().square() + im.array().square()).maxCoeff(&k);
  const std::complex<double> pivot(re(k), im(k));
  const double norm = std::sqrt(re.squaredNorm() + im.squaredNorm());
  if (norm == 0.0 || std::abs(pivot) == 0.0) return;
  const std::complex<double> phase = std::conj(pivot) / (std::abs(pivot) * norm);
  for (Eigen::Index i = 0; i < re.size(); ++i) {
    const std::complex<double> z = std::complex<double>(re(i), im(i)) * phase;
    re(i) = z.real();
    im(i) = z.imag();
  }
  im(k) = 0.0;
}

}  // namespace

EigenResult solveGeneralizedEigen(const SparseMatrixCSR& A, const SparseMatrixCSR& B,
                                  const EigenOptions& o) {
  EigenResult out;
  auto t0 = std::chrono::steady_clock::now();
  Objects p;
  p.A = toPetsc(A);
  p.B = toPetsc(B);
  CATENA_PETSC(EPSCreate(PETSC_COMM_SELF, &p.eps));
  if (!o.prefix.empty()) CATENA_PETSC(EPSSetOptionsPrefix(p.eps, o.prefix.c_str()));
  CATENA_PETSC(EPSSetOperators(p.eps, p.A, p.B));
  CATENA_PETSC(EPSSetProblemType(p.eps, EPS_GNHEP));  // K_c makes the pencil non-symmetric
  CATENA_PETSC(EPSSetType(p.eps, EPSKRYLOVSCHUR));
  CATENA_PETSC(EPSSetDimensions(p.eps, o.count, PETSC_DEFAULT, PETSC_DEFAULT));
  CATENA_PETSC(EPSSetTolerances(p.eps, o.tolerance, 1000));
  CATENA_PETSC(EPSSetTarget(p.eps, o.target));
  CATENA_PETSC(EPSSetWhichEigenpairs(p.eps, EPS_TARGET_MAGNITUDE));
  ST st;
  KSP ksp;
  PC pc;
  CATENA_PETSC(EPSGetST(p.eps, &st));
  CATENA_PETSC(STSetType(st, STSINVERT));
  CATENA_PETSC(STGetKSP(st, &ksp));
  CATENA_PETSC(KSPSetType(ksp, KSPPREONLY));
  CATENA_PETSC(KSPGetPC(ksp, &pc));
  useDirectFactorization(pc);
  // A fixed, non-symmetric start vector: the same input gives the same modes every run.
  CATENA_PETSC(MatCreateVecs(p.A, &p.xr, &p.xi));
  CATENA_PETSC(VecDuplicate(p.xr, &p.v0));
  {
    PetscScalar* v;
    PetscInt n;
    CATENA_PETSC(VecGetLocalSize(p.v0, &n));
    CATENA_PETSC(VecGetArray(p.v0, &v));
    for (PetscInt i = 0; i < n; ++i) v[i] = 1.0 + 0.5 * std::sin(0.7 * i + 0.3);
    CATENA_PETSC(VecRestoreArray(p.v0, &v));
  }
  CATENA_PETSC(EPSSetInitialSpace(p.eps, 1, &p.v0));
  CATENA_PETSC(EPSSetFromOptions(p.eps));

  // SLEPc reports a failed factorization of A - sigma B as an error: catch it as a status.
  // EPSSetUp factors; it is called apart from EPSSolve only to time the two.
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  PetscErrorCode ierr = EPSSetUp(p.eps);
  out.setup_seconds = secondsSince(t0);
  t0 = std::chrono::steady_clock::now();
  if (!ierr) ierr = EPSSolve(p.eps);
  out.solve_seconds = secondsSince(t0);
  PetscPopErrorHandler();
  if (ierr) {
    const Status factor = factorizationStatus(pc, A.rows(), ierr);
    std::ostringstream os;
    os << "the eigensolver failed (PETSc error " << ierr << ") at the shift sigma = " << o.target
       << ": ";
    if (!factor.ok())
      os << factor.message;
    else
      os << "the shifted matrix A - sigma B is probably singular";
    out.status = Status::failure(factor.ok() ? Status::Code::kSingular : factor.code, os.str());
    return out;
  }
  PetscInt nconv = 0, its = 0;
  CATENA_PETSC(EPSGetConverged(p.eps, &nconv));
  CATENA_PETSC(EPSGetIterationNumber(p.eps, &its));
  out.iterations = static_cast<int>(its);
  PetscInt solves = 0;
  CATENA_PETSC(KSPGetTotalIterations(ksp, &solves));  // preonly: one per application
  out.solves = static_cast<int>(solves);
  EPSType type;
  STType sttype;
  MatSolverType package = nullptr;
  CATENA_PETSC(EPSGetType(p.eps, &type));
  CATENA_PETSC(STGetType(st, &sttype));
  PCFactorGetMatSolverType(pc, &package);
  out.method = std::string(type) + " + " + sttype + " (" + (package ? package : "petsc") + ")";

  const int n = static_cast<int>(A.rows());
  for (PetscInt i = 0; i < nconv; ++i) {
    PetscScalar kr, ki;
    CATENA_PETSC(EPSGetEigenpair(p.eps, i, &kr, &ki, p.xr, p.xi));
    EigenPair e;
    e.value = {kr, ki};
    PetscReal err;
    CATENA_PETSC(EPSComputeError(p.eps, i, EPS_ERROR_RELATIVE, &err));
    e.residual = err;
    const PetscScalar *r, *im;
    CATENA_PETSC(VecGetArrayRead(p.xr, &r));
    CATENA_PETSC(VecGetArrayRead(p.xi, &im));
    e.re = Eigen::Map<const VecX>(r, n);
    e.im = ki != 0.0 ? VecX(Eigen::Map<const VecX>(im, n)) : VecX::Zero(n);
    CATENA_PETSC(VecRestoreArrayRead(p.xi, &im));
    CATENA_PETSC(VecRestoreArrayRead(p.xr, &r));
    normalize(e.re, e.im);
    out.pairs.push_back(std::move(e));
  }
  // Sort by distance to the target, ties (conjugate pairs) by the imaginary part, descending.
  std::stable_sort(out.pairs.begin(), out.pairs.end(), [&](const EigenPair& a, const EigenPair& b) {
    const double da = std::abs(a.value - o.target), db = std::abs(b.value - o.target);
    if (std::abs(da - db) > 1e-12 * std::max(da, db)) return da < db;
    return a.value.imag() > b.value.imag();
  });
  if (static_cast<int>(out.pairs.size()) < o.count) {
    std::ostringstream os;
    os << "the eigensolver converged " << out.pairs.size() << " of the " << o.count
       << " requested eigenpairs in " << its << " iterations";
    out.status = Status::failure(Status::Code::kNotConverged, os.str());
  }
  return out;
}

}  // namespace catena
