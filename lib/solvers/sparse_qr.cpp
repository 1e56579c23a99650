#include "solvers/sparse_qr.hpp"

#include <SuiteSparseQR.hpp>

#include <algorithm>
#include <utility>
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

/// A rank-revealing QR of csc (SuiteSparseQR with its column pivoting): the rank at the
/// absolute threshold, the column order E (the first `rank` are the columns kept; dead columns
/// are moved behind them) and CHOLMOD's peak memory.
struct PivotedQr {
  long rank = 0;
  std::vector<Index> order;
  std::size_t peak_bytes = 0;
};
PivotedQr pivotedQr(CscMatrix& csc, double tolerance) {
  Cholmod c;
  cholmod_sparse a = view(csc);
  cholmod_sparse* R = nullptr;
  Long* E = nullptr;
  const Long rank = SuiteSparseQR<double>(SPQR_ORDERING_DEFAULT, tolerance, 0, &a, &R, &E, &c.cc);
  PivotedQr out;
  out.peak_bytes = c.cc.memory_usage;
  for (Long k = 0; k < static_cast<Long>(csc.cols()); ++k)
    out.order.push_back(E ? static_cast<Index>(E[k]) : static_cast<Index>(k));
  if (R) cholmod_l_free_sparse(&R, &c.cc);
  if (E) cholmod_l_free(csc.cols(), sizeof(Long), E, &c.cc);
  CATENA_CHECK(rank >= 0, "SuiteSparseQR failed (status " << c.cc.status << ")");
  out.rank = static_cast<long>(rank);
  return out;
}

/// The rows of A that a rank-revealing QR of A^T keeps (ascending), and the rank.
std::pair<std::vector<Index>, long> independentRowsOf(const SparseMatrixCSR& A, double tolerance) {
  CscMatrix at = CscMatrix(A.transpose());
  at.makeCompressed();
  PivotedQr qr = pivotedQr(at, tolerance);
  qr.order.resize(static_cast<std::size_t>(qr.rank));
  std::sort(qr.order.begin(), qr.order.end());
  return {std::move(qr.order), qr.rank};
}

/// SuiteSparseQR's min2norm at the rank threshold `tolerance`: min |x| subject to A x = b where
/// A has full row rank (a QR of A^T when A is wide); `rank`: the rank that QR found.
VecX min2norm(const SparseMatrixCSR& A, const VecX& b, double tolerance, long& rank) {
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
      SuiteSparseQR_min2norm<double>(SPQR_ORDERING_DEFAULT, tolerance, &a, &B, &c.cc);
  CATENA_CHECK(X != nullptr, "SuiteSparseQR failed (status " << c.cc.status << ")");
  VecX x = Eigen::Map<const VecX>(static_cast<const double*>(X->x), A.cols());
  cholmod_l_free_dense(&X, &c.cc);
  rank = static_cast<long>(c.cc.SPQR_istat[4]);
  return x;
}

}  // namespace

MinimumNormSolution solveMinimumNorm(const SparseMatrixCSR& A, const VecX& b) {
  CATENA_CHECK(b.size() == A.rows(), "minimum-norm solve: " << b.size() << " right-hand side "
                                                            << "entries for " << A.rows()
                                                            << " rows");
  MinimumNormSolution out;
  out.x = VecX::Zero(A.cols());
  if (A.rows() == 0 || A.cols() == 0) return out;
  // SuiteSparseQR's min2norm is the minimum-norm solution only for a matrix of full row rank
  // (for a tall or rank-deficient one it returns a basic solution, whose entries on nearly
  // dependent columns can be large). A wide A is tried as it is (its QR of A^T reveals the
  // rank); otherwise the rows that depend on the others are left out first (a rank-revealing QR
  // of A^T); for consistent b that changes no solution.
  double largest = 0.0;
  for (Index i = 0; i < A.rows(); ++i) largest = std::max(largest, A.row(i).norm());
  out.tolerance = kMinimumNormRankTolerance * largest;
  if (largest == 0.0) return out;
  if (A.rows() <= A.cols()) {
    long rank = 0;
    VecX x = min2norm(A, b, out.tolerance, rank);
    if (rank == A.rows()) {
      out.x = std::move(x);
      out.rank = rank;
      return out;
    }
  }
  const auto [rows, rank] = independentRowsOf(A, out.tolerance);
  out.rank = rank;
  if (rank == 0) return out;
  std::vector<Eigen::Triplet<double>> pick;
  VecX b_kept(rank);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    pick.emplace_back(static_cast<int>(k), static_cast<int>(rows[k]), 1.0);
    b_kept[static_cast<Index>(k)] = b[rows[k]];
  }
  SparseMatrixCSR P(rank, A.rows());
  P.setFromTriplets(pick.begin(), pick.end());
  long kept_rank = 0;
  out.x = min2norm(SparseMatrixCSR(P * A), b_kept, out.tolerance, kept_rank);
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

std::vector<Index> independentRows(const SparseMatrixCSR& A, double tolerance) {
  CATENA_CHECK(tolerance >= 0.0, "the rank threshold must be >= 0, got " << tolerance);
  if (A.rows() == 0 || A.cols() == 0) return {};
  return independentRowsOf(A, tolerance).first;
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
  const PivotedQr qr = pivotedQr(csc, tolerance);
  out.rank = qr.rank;
  out.peak_bytes = qr.peak_bytes;
  return out;
}

}  // namespace catena
