#include "solvers/sparse_qr.hpp"

#include <SuiteSparseQR.hpp>

#include <vector>

#include "core/check.hpp"

namespace catena {
namespace {

using Long = SuiteSparse_long;
using CscMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, Long>;

/// CHOLMOD's workspace for one call (cholmod_l_*: the 64-bit interface the C++ API needs).
struct Cholmod {
  cholmod_common cc;
  Cholmod() { cholmod_l_start(&cc); }
  ~Cholmod() { cholmod_l_finish(&cc); }
};

/// A CHOLMOD view (no copy) of a compressed column matrix.
cholmod_sparse view(CscMatrix& A) {
  cholmod_sparse s{};
  s.nrow = static_cast<size_t>(A.rows());
  s.ncol = static_cast<size_t>(A.cols());
  s.nzmax = static_cast<size_t>(A.nonZeros());
  s.p = A.outerIndexPtr();
  s.i = A.innerIndexPtr();
  s.x = A.valuePtr();
  s.stype = 0;
  s.itype = CHOLMOD_LONG;
  s.xtype = CHOLMOD_REAL;
  s.dtype = CHOLMOD_DOUBLE;
  s.sorted = 1;
  s.packed = 1;
  return s;
}

}  // namespace

MinimumNormSolution solveMinimumNorm(const SparseMatrixCSR& A, const VecX& b) {
  CATENA_CHECK(b.size() == A.rows(), "minimum-norm solve: " << b.size() << " right-hand side "
                                                            << "entries for " << A.rows()
                                                            << " rows");
  MinimumNormSolution out;
  out.x = VecX::Zero(A.cols());
  if (A.rows() == 0 || A.cols() == 0) return out;
  CscMatrix csc = A;
  csc.makeCompressed();
  Cholmod c;
  cholmod_sparse a = view(csc);
  VecX rhs = b;
  cholmod_dense B{};
  B.nrow = static_cast<size_t>(b.size());
  B.ncol = 1;
  B.nzmax = B.nrow;
  B.d = B.nrow;
  B.x = rhs.data();
  B.xtype = CHOLMOD_REAL;
  B.dtype = CHOLMOD_DOUBLE;
  cholmod_dense* X =
      SuiteSparseQR_min2norm<double>(SPQR_ORDERING_DEFAULT, SPQR_DEFAULT_TOL, &a, &B, &c.cc);
  CATENA_CHECK(X != nullptr, "SuiteSparseQR failed (status " << c.cc.status << ")");
  out.x = Eigen::Map<const VecX>(static_cast<const double*>(X->x), A.cols());
  cholmod_l_free_dense(&X, &c.cc);
  out.rank = c.cc.SPQR_istat[4];
  out.tolerance = c.cc.SPQR_tol_used;
  return out;
}

SparseMatrixCSR solveLeastSquares(const SparseMatrixCSR& A, const SparseMatrixCSR& B) {
  CATENA_CHECK(A.rows() == B.rows() && A.rows() >= A.cols(),
               "least-squares solve: A is " << A.rows() << " x " << A.cols() << ", B has "
                                            << B.rows() << " rows");
  if (A.cols() == 0 || B.cols() == 0) return SparseMatrixCSR(A.cols(), B.cols());
  CscMatrix a_csc = A, b_csc = B;
  a_csc.makeCompressed();
  b_csc.makeCompressed();
  Cholmod c;
  cholmod_sparse a = view(a_csc), b = view(b_csc);
  cholmod_sparse* X =
      SuiteSparseQR_min2norm<double>(SPQR_ORDERING_DEFAULT, SPQR_DEFAULT_TOL, &a, &b, &c.cc);
  CATENA_CHECK(X != nullptr, "SuiteSparseQR failed (status " << c.cc.status << ")");
  const auto* p = static_cast<const Long*>(X->p);
  const auto* i = static_cast<const Long*>(X->i);
  const auto* x = static_cast<const double*>(X->x);
  std::vector<Eigen::Triplet<double>> entries;
  for (size_t col = 0; col < X->ncol; ++col)
    for (Long k = p[col]; k < p[col + 1]; ++k)
      entries.emplace_back(static_cast<int>(i[k]), static_cast<int>(col), x[k]);
  SparseMatrixCSR out(static_cast<Index>(X->nrow), static_cast<Index>(X->ncol));
  out.setFromTriplets(entries.begin(), entries.end());
  cholmod_l_free_sparse(&X, &c.cc);
  return out;
}

long numericalRank(const SparseMatrixCSR& A) {
  return solveMinimumNorm(A, VecX::Zero(A.rows())).rank;
}

SparseQrRank sparseQrRank(const SparseMatrixCSR& A, double tolerance, bool transpose) {
  CATENA_CHECK(tolerance >= 0.0, "the rank threshold must be >= 0, got " << tolerance);
  SparseQrRank out;
  out.tolerance = tolerance;
  if (A.rows() == 0 || A.cols() == 0) return out;
  CscMatrix csc = transpose ? CscMatrix(A.transpose()) : CscMatrix(A);
  csc.makeCompressed();
  Cholmod c;
  cholmod_sparse a = view(csc);
  cholmod_sparse* R = nullptr;
  Long* E = nullptr;
  const Long rank = SuiteSparseQR<double>(SPQR_ORDERING_DEFAULT, tolerance, 0, &a, &R, &E, &c.cc);
  out.peak_bytes = c.cc.memory_usage;
  if (R) cholmod_l_free_sparse(&R, &c.cc);
  if (E) cholmod_l_free(csc.cols(), sizeof(Long), E, &c.cc);
  CATENA_CHECK(rank >= 0, "SuiteSparseQR failed (status " << c.cc.status << ")");
  out.rank = rank;
  return out;
}

}  // namespace catena
