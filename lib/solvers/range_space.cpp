#include "solvers/range_space.hpp"

#include <Eigen/Cholesky>
#include <Eigen/OrderingMethods>
#include <Eigen/SparseCholesky>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "core/check.hpp"
#include "core/wall_clock.hpp"

namespace catena {

namespace {

using SparseCsc = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;
template <int BS>
using Square = Eigen::Matrix<double, BS, BS>;
/// B_b: the block's rows of B, row-major.
template <int BS>
using RowsMap =
    Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, BS, Eigen::RowMajor | Eigen::AutoAlign>>;
template <int BS>
using ColumnsMap = Eigen::Map<Eigen::Matrix<double, BS, Eigen::Dynamic>>;
template <int BS>
using Segment = Eigen::Map<Eigen::Matrix<double, BS, 1>>;
template <int BS>
using ConstSegment = Eigen::Map<const Eigen::Matrix<double, BS, 1>>;

}  // namespace

/// Eigen's sparse LDL^T, with the column counts of L that its analysis computes made visible.
class CountedLdlt
    : public Eigen::SimplicialLDLT<SparseCsc, Eigen::Upper, Eigen::NaturalOrdering<int>> {
 public:
  /// The sum over L's columns of (entries below the diagonal)^2: a factorization's
  /// multiply-adds up to a constant, known after analyzePattern().
  double work() const {
    double w = 0.0;
    for (Eigen::Index k = 0; k < m_nonZerosPerCol.size(); ++k)
      w += static_cast<double>(m_nonZerosPerCol[k]) * m_nonZerosPerCol[k];
    return w;
  }
};

struct RangeSpaceKkt::Work {
  SparseCsc S;  // upper triangle, rows and columns in AMD order
  CountedLdlt ldlt;
  VecX w;                  // B_b^T solved by L_b, the largest block's (block x rows)
  VecX xa, t, tp, sp;      // A^-1 f (n); B A^-1 f - g (m), permuted, S^-1 of it
  VecX r1, r2, dx, dy, u;  // residuals and corrections of a refinement step
};

RangeSpaceKkt::RangeSpaceKkt(const SparseMatrixCSR& A, const SparseMatrixCSR& B, int block,
                             const std::vector<std::uint8_t>& A_nonzero)
    : n_(static_cast<int>(A.rows())),
      m_(static_cast<int>(B.rows())),
      block_(block),
      work_(std::make_unique<Work>()) {
  CATENA_CHECK(A.rows() == A.cols() && B.cols() == A.rows() && block > 0 && n_ % block == 0,
               "range-space KKT: A is " << A.rows() << " x " << A.cols() << ", B is " << B.rows()
                                        << " x " << B.cols() << ", blocks of " << block);
  CATENA_CHECK(A_nonzero.empty() || A_nonzero.size() == static_cast<std::size_t>(A.nonZeros()),
               "range-space KKT: " << A_nonzero.size() << " nonzero flags for the " << A.nonZeros()
                                   << " entries of A");
  blocks_ = n_ / block;
  if (block != 3 && block != 6) {
    applicable_ = false;
    return;
  }
  // A: each entry's place in its diagonal block; an entry outside them must be zero.
  a_slot_.assign(A.nonZeros(), -1);
  for (int i = 0; i < n_; ++i)
    for (int k = A.outerIndexPtr()[i]; k < A.outerIndexPtr()[i + 1]; ++k) {
      const int c = A.innerIndexPtr()[k];
      if (c / block == i / block)
        a_slot_[k] = (i / block) * block * block + (i % block) + (c % block) * block;
      else if (A_nonzero.empty() || A_nonzero[k])
        applicable_ = false;
    }
  if (!applicable_) {
    release();
    return;
  }
  a_dense_.assign(static_cast<std::size_t>(blocks_) * block * block, 0.0);
  a_inv_ = a_dense_;
  a_factored_ = a_dense_;

  // The rows of B touching each block (two passes: count, then fill), and each entry's place in
  // its block's dense copy.
  const int* b_row = B.outerIndexPtr();
  const int* b_col = B.innerIndexPtr();
  std::vector<int> last(blocks_, -1), count(blocks_ + 1, 0);
  for (int r = 0; r < m_; ++r)
    for (int k = b_row[r]; k < b_row[r + 1]; ++k) {
      const int b = b_col[k] / block;
      if (last[b] != r) ++count[b + 1], last[b] = r;
    }
  rows_start_.assign(blocks_ + 1, 0);
  for (int b = 0; b < blocks_; ++b) rows_start_[b + 1] = rows_start_[b] + count[b + 1];
  rows_.resize(rows_start_[blocks_]);
  dense_start_.assign(blocks_ + 1, 0);
  pair_start_.assign(blocks_ + 1, 0);
  int widest = 0;
  for (int b = 0; b < blocks_; ++b) {
    const long r = rows_start_[b + 1] - rows_start_[b];
    widest = std::max(widest, static_cast<int>(r));
    dense_start_[b + 1] = dense_start_[b] + r * block;
    pair_start_[b + 1] = pair_start_[b] + r * (r + 1) / 2;
  }
  std::fill(last.begin(), last.end(), -1);
  std::vector<int> filled(blocks_, 0);
  b_slot_.resize(B.nonZeros());
  for (int r = 0; r < m_; ++r)
    for (int k = b_row[r]; k < b_row[r + 1]; ++k) {
      const int b = b_col[k] / block;
      if (last[b] != r) rows_[rows_start_[b] + filled[b]++] = r, last[b] = r;
      b_slot_[k] = static_cast<int>(dense_start_[b] + (filled[b] - 1) * block + b_col[k] % block);
    }
  b_dense_.assign(dense_start_[blocks_], 0.0);
  // A body in many joints (a hub, a merged coupler) makes its rows' block of S dense: S's
  // pattern alone would outgrow the KKT matrix.
  if (pair_start_[blocks_] > kRangeSpaceMaxPairs * (static_cast<long>(n_) + m_)) {
    release();
    return;
  }

  // S's pattern: every pair of rows that share a block. AMD on it, then the upper triangle in
  // that order, and each block pair's value index.
  std::vector<Eigen::Triplet<double, int>> pairs;
  pairs.reserve(pair_start_[blocks_] * 2);
  for (int b = 0; b < blocks_; ++b)
    for (int j = rows_start_[b]; j < rows_start_[b + 1]; ++j)
      for (int i = rows_start_[b]; i <= j; ++i) {
        pairs.emplace_back(rows_[i], rows_[j], 1.0);
        pairs.emplace_back(rows_[j], rows_[i], 1.0);
      }
  perm_.resize(m_);
  {
    SparseCsc full(m_, m_);
    full.setFromTriplets(pairs.begin(), pairs.end());
    Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> order;
    Eigen::AMDOrdering<int>()(full, order);  // order.indices()[new] = old
    for (int k = 0; k < m_; ++k) perm_[order.indices()[k]] = k;
  }
  for (auto& p : pairs) {
    const int a = perm_[p.row()], c = perm_[p.col()];
    p = Eigen::Triplet<double, int>(std::min(a, c), std::max(a, c), 0.0);
  }
  SparseCsc& S = work_->S;
  S.resize(m_, m_);
  S.setFromTriplets(pairs.begin(), pairs.end());
  S.makeCompressed();
  pairs = {};
  auto slot = [&](int r1, int r2) {
    const int a = std::min(perm_[r1], perm_[r2]), c = std::max(perm_[r1], perm_[r2]);
    const int* begin = S.innerIndexPtr() + S.outerIndexPtr()[c];
    const int* end = S.innerIndexPtr() + S.outerIndexPtr()[c + 1];
    return static_cast<int>(std::lower_bound(begin, end, a) - S.innerIndexPtr());
  };
  pair_slot_.resize(pair_start_[blocks_]);
  for (int b = 0; b < blocks_; ++b) {
    long p = pair_start_[b];
    for (int j = rows_start_[b]; j < rows_start_[b + 1]; ++j)
      for (int i = rows_start_[b]; i <= j; ++i) pair_slot_[p++] = slot(rows_[i], rows_[j]);
  }
  diag_slot_.resize(m_);
  for (int r = 0; r < m_; ++r) diag_slot_[perm_[r]] = slot(r, r);
  if (m_ > 0) work_->ldlt.analyzePattern(S);
  if (m_ > 0 && work_->ldlt.work() > kRangeSpaceMaxWork * (static_cast<double>(n_) + m_)) {
    release();
    return;
  }
  Work& w = *work_;
  w.w.resize(static_cast<long>(widest) * block);
  for (VecX* v : {&w.xa, &w.r1, &w.dx, &w.u}) v->resize(n_);
  for (VecX* v : {&w.t, &w.tp, &w.sp, &w.r2, &w.dy}) v->resize(m_);
}

RangeSpaceKkt::~RangeSpaceKkt() = default;

void RangeSpaceKkt::release() {
  applicable_ = false;
  for (std::vector<int>* v :
       {&rows_start_, &rows_, &b_slot_, &pair_slot_, &a_slot_, &perm_, &diag_slot_})
    *v = {};
  for (std::vector<long>* v : {&dense_start_, &pair_start_}) *v = {};
  for (std::vector<double>* v : {&a_dense_, &a_inv_, &a_factored_, &b_dense_}) *v = {};
  work_.reset();
}

Status RangeSpaceKkt::factor(const SparseMatrixCSR& A, const SparseMatrixCSR& B) {
  CATENA_CHECK(applicable_, "range-space KKT: factor() of a system it does not apply to");
  const long a_nnz = A.nonZeros(), b_nnz = B.nonZeros();
  CATENA_CHECK(A.rows() == n_ && B.rows() == m_ && a_nnz == static_cast<long>(a_slot_.size()) &&
                   b_nnz == static_cast<long>(b_slot_.size()),
               "range-space KKT: matrices of another pattern");
  const auto t0 = std::chrono::steady_clock::now();
  ++stats_.factorizations;
  const double* a = A.valuePtr();
  for (long k = 0; k < a_nnz; ++k)
    if (a_slot_[k] >= 0) a_dense_[a_slot_[k]] = a[k];
  const double* bv = B.valuePtr();
  for (long k = 0; k < b_nnz; ++k) b_dense_[b_slot_[k]] = bv[k];
  const Status st = block_ == 6 ? factorBlocks<6>() : factorBlocks<3>();
  stats_.factor_seconds += secondsSince(t0);
  return st;
}

template <int BS>
Status RangeSpaceKkt::factorBlocks() {
  Work& w = *work_;
  double* s = w.S.valuePtr();
  std::fill(s, s + w.S.nonZeros(), 0.0);
  for (int b = 0; b < blocks_; ++b) {
    const long a0 = static_cast<long>(b) * BS * BS;
    const Eigen::Map<const Square<BS>> Ab(a_dense_.data() + a0);
    Eigen::Map<Square<BS>> Ainv(a_inv_.data() + a0);
    Eigen::Map<Square<BS>> Afactored(a_factored_.data() + a0);
    // A body's mass matrix changes only where its frame is off its centre of mass.
    if (!inverted_ || Ab != Afactored) {
      const Eigen::LLT<Square<BS>> llt(Ab);
      if (llt.info() != Eigen::Success) {
        // A block keeps its eigenvalues under the body's rotation: never regular at any q.
        inverted_ = false;
        std::ostringstream os;
        os << "range-space KKT: the mass block of body " << b << " is not positive definite";
        release();
        return Status::failure(Status::Code::kSingular, os.str());
      }
      Ainv = llt.solve(Square<BS>::Identity());
      Afactored = Ab;
    }
    // S += B_b A_b^-1 B_b^T over the block's row pairs (i <= j).
    const int r = rows_start_[b + 1] - rows_start_[b];
    const RowsMap<BS> Bb(b_dense_.data() + dense_start_[b], r, BS);
    ColumnsMap<BS> Z(w.w.data(), BS, r);
    for (int j = 0; j < r; ++j) Z.col(j).noalias() = Ainv * Bb.row(j).transpose();
    long p = pair_start_[b];
    for (int j = 0; j < r; ++j)
      for (int i = 0; i <= j; ++i) s[pair_slot_[p++]] += Bb.row(i).dot(Z.col(j));
  }
  inverted_ = true;
  if (m_ == 0) return Status::success();
  w.ldlt.factorize(w.S);
  const VecX& d = w.ldlt.vectorD();
  int worst = -1;
  double ratio = 1.0;
  if (w.ldlt.info() == Eigen::Success)
    for (int k = 0; k < m_; ++k) {
      const double rk = d[k] / s[diag_slot_[k]];
      if (!(rk >= ratio)) ratio = rk, worst = k;
    }
  if (w.ldlt.info() == Eigen::Success && ratio >= kRangeSpacePivot) return Status::success();
  const long row = worst < 0 ? -1 : std::find(perm_.begin(), perm_.end(), worst) - perm_.begin();
  std::ostringstream os;
  os << "range-space KKT: the Schur complement B A^-1 B^T is nearly singular (pivot of "
        "constraint row "
     << row << " at " << ratio << " of its diagonal, below " << kRangeSpacePivot << ")";
  return Status::failure(Status::Code::kSingular, os.str());
}

template <int BS>
void RangeSpaceKkt::applyInverseA(const double* in, double* out) const {
  for (int b = 0; b < blocks_; ++b) {
    const long c0 = static_cast<long>(b) * BS;
    Segment<BS>(out + c0).noalias() =
        Eigen::Map<const Square<BS>>(a_inv_.data() + c0 * BS) * ConstSegment<BS>(in + c0);
  }
}

template <int BS>
void RangeSpaceKkt::solveOnce(const double* f, const double* g, double* x, double* y) {
  Work& w = *work_;
  applyInverseA<BS>(f, w.xa.data());
  for (int r = 0; r < m_; ++r) w.t[r] = -g[r];
  for (int b = 0; b < blocks_; ++b) {
    const int r0 = rows_start_[b], r = rows_start_[b + 1] - r0;
    const RowsMap<BS> Bb(b_dense_.data() + dense_start_[b], r, BS);
    const ConstSegment<BS> xb(w.xa.data() + static_cast<long>(b) * BS);
    for (int i = 0; i < r; ++i) w.t[rows_[r0 + i]] += Bb.row(i).dot(xb);
  }
  for (int r = 0; r < m_; ++r) w.tp[perm_[r]] = w.t[r];
  if (m_ > 0) w.sp = w.ldlt.solve(w.tp);
  for (int r = 0; r < m_; ++r) y[r] = w.sp[perm_[r]];
  for (int b = 0; b < blocks_; ++b) {
    const int r0 = rows_start_[b], r = rows_start_[b + 1] - r0;
    const RowsMap<BS> Bb(b_dense_.data() + dense_start_[b], r, BS);
    Segment<BS> ub(w.u.data() + static_cast<long>(b) * BS);
    ub = ConstSegment<BS>(f + static_cast<long>(b) * BS);
    for (int i = 0; i < r; ++i) ub -= Bb.row(i).transpose() * y[rows_[r0 + i]];
  }
  applyInverseA<BS>(w.u.data(), x);
}

template <int BS>
double RangeSpaceKkt::residual(const double* f, const double* g, const double* x, const double* y,
                               double* r1, double* r2, bool judge) const {
  // r1 = f - A x - B^T y, r2 = g - B x; judged: with the magnitudes of their terms in d1, d2.
  Work& w = *work_;
  double* d1 = w.dx.data();
  double* d2 = w.dy.data();
  for (int r = 0; r < m_; ++r) r2[r] = g[r];
  if (judge)
    for (int r = 0; r < m_; ++r) d2[r] = std::abs(g[r]);
  for (int b = 0; b < blocks_; ++b) {
    const long c0 = static_cast<long>(b) * BS;
    const Eigen::Map<const Square<BS>> Ab(a_dense_.data() + c0 * BS);
    const ConstSegment<BS> xb(x + c0);
    Segment<BS> rb(r1 + c0), db(d1 + c0);
    rb = ConstSegment<BS>(f + c0) - Ab * xb;
    const int r0 = rows_start_[b], r = rows_start_[b + 1] - r0;
    const RowsMap<BS> Bb(b_dense_.data() + dense_start_[b], r, BS);
    for (int i = 0; i < r; ++i) {
      const int row = rows_[r0 + i];
      rb -= Bb.row(i).transpose() * y[row];
      r2[row] -= Bb.row(i).dot(xb);
    }
    if (!judge) continue;
    db = ConstSegment<BS>(f + c0).cwiseAbs() + Ab.cwiseAbs() * xb.cwiseAbs();
    for (int i = 0; i < r; ++i) {
      const int row = rows_[r0 + i];
      db += Bb.row(i).transpose().cwiseAbs() * std::abs(y[row]);
      d2[row] += Bb.row(i).cwiseAbs().dot(xb.cwiseAbs());
    }
  }
  if (!judge) return NAN;
  double worst = 0.0;
  auto update = [&](double r, double d) {
    if (r != 0.0) worst = std::max(worst, d > 0.0 ? std::abs(r) / d : INFINITY);
  };
  for (int c = 0; c < n_; ++c) update(r1[c], d1[c]);
  for (int r = 0; r < m_; ++r) update(r2[r], d2[r]);
  return worst;
}

template <int BS>
double RangeSpaceKkt::solveRefined(const VecX& f, const VecX& g, VecX& x, VecX& y) {
  Work& w = *work_;
  solveOnce<BS>(f.data(), g.data(), x.data(), y.data());
  // The first solution's backward error is 1e-13 .. 1e-10 on a 1000-link chain (S squares the
  // condition of B): one refinement step always, then more while the error is above the
  // accepted one and each step at least halves it.
  residual<BS>(f.data(), g.data(), x.data(), y.data(), w.r1.data(), w.r2.data(), false);
  double error = INFINITY;
  for (int step = 0; step < 3; ++step) {
    // The correction lands in xa (n) and t (m): solveOnce is done with them as scratch by then.
    solveOnce<BS>(w.r1.data(), w.r2.data(), w.xa.data(), w.t.data());
    x += w.xa;
    y += w.t;
    ++refinements_;
    const double next =
        residual<BS>(f.data(), g.data(), x.data(), y.data(), w.r1.data(), w.r2.data(), true);
    const bool halved = next <= 0.5 * error;
    error = next;
    if (error <= kRangeSpaceBackwardError || !halved) break;
  }
  return error;
}

Status RangeSpaceKkt::solve(const VecX& f, const VecX& g, VecX& x, VecX& y) {
  CATENA_CHECK(f.size() == n_ && g.size() == m_, "range-space KKT: right-hand side sizes");
  const auto t0 = std::chrono::steady_clock::now();
  ++stats_.solves;
  x.resize(n_);
  y.resize(m_);
  const double error = block_ == 6 ? solveRefined<6>(f, g, x, y) : solveRefined<3>(f, g, x, y);
  stats_.solve_seconds += secondsSince(t0);
  if (error > kRangeSpaceBackwardError) {
    std::ostringstream os;
    os << "range-space KKT: the solution's backward error " << error << " stays above "
       << kRangeSpaceBackwardError;
    return Status::failure(Status::Code::kNotConverged, os.str());
  }
  return Status::success();
}

}  // namespace catena
