#include "solvers/klu_lu.hpp"

#include <klu.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>
#include <vector>

#include "core/check.hpp"
#include "core/huge_pages.hpp"
#include "solvers/kkt_ordering.hpp"
#include "solvers/suitesparse_memory.hpp"

namespace catena {

namespace {
/// F = A^T in compressed columns, with its values.
struct KluPattern {
  const int* start;
  const int* rows;
  const double* values;
};
}  // namespace

struct KluLu::Klu {
  klu_common common;
  klu_symbolic* symbolic = nullptr;
  klu_numeric* numeric = nullptr;
  std::vector<int> row_start, columns;
  std::vector<double> values;  // KLU's interface takes non-const arrays
  double rcond_at_full = 0.0;
  KluPattern pattern() const { return {row_start.data(), columns.data(), values.data()}; }
  ~Klu() {
    if (numeric) klu_free_numeric(&numeric, &common);
    if (symbolic) klu_free_symbolic(&symbolic, &common);
  }
};

KluLu::KluLu(int n, const int* row_start, const int* columns)
    : KluLu(n, std::vector<int>(row_start, row_start + n + 1),
            std::vector<int>(columns, columns + row_start[n])) {}

KluLu::KluLu(int n, std::vector<int> row_start, std::vector<int> columns, int coordinates,
             const std::vector<int>& groups)
    : klu_(std::make_unique<Klu>()), n_(n), singular_pivot_(kSingularPivot) {
  Klu& k = *klu_;
  CATENA_CHECK(n >= 0 && row_start.size() == static_cast<std::size_t>(n) + 1 &&
                   columns.size() == static_cast<std::size_t>(row_start[n]),
               "KLU pattern of " << n << " rows: " << row_start.size() << " row pointers and "
                                 << columns.size() << " columns");
  klu_defaults(&k.common);
  // No row scaling, as PETSc's KLU interface (the callers scale their constraint rows), and no
  // check of the values on every factorization (the pattern is checked once, here): the check
  // alone cost 6 % of a chain's integration.
  k.common.scale = -1;
  k.common.tol = kPivotTolerance;
  k.common.initmem = kGivenOrderReserve;  // the saddle-point order's case
  k.row_start = std::move(row_start);
  k.columns = std::move(columns);
  resizeHuge(k.values, k.columns.size());
  // KLU's own analysis, while its search of a zero-free diagonal stays cheap (a chain); where
  // it does not (a planar mesh of loops), the saddle-point order (solvers/kkt_ordering.hpp).
  // With groups, the saddle-point order straight away.
  if (coordinates > 0) k.common.maxwork = kMaxTransversalWork;
  if (groups.empty()) k.symbolic = klu_analyze(n, k.row_start.data(), k.columns.data(), &k.common);
  if (coordinates > 0 && (!groups.empty() || (k.symbolic && k.common.structural_rank < n))) {
    if (k.symbolic) klu_free_symbolic(&k.symbolic, &k.common);
    std::vector<int> P, Q;
    if (saddlePointPivotOrder(n, coordinates, k.row_start.data(), k.columns.data(), P, Q, {},
                              groups)) {
      k.common.btf = 0;  // the order has its zero-free diagonal
      saddle_point_order_ = true;
      k.symbolic =
          klu_analyze_given(n, k.row_start.data(), k.columns.data(), P.data(), Q.data(), &k.common);
    } else {
      // No such order (B has no full row matching): KLU's complete search, which finds the
      // structural singularity.
      k.common.maxwork = 0.0;
      k.symbolic = klu_analyze(n, k.row_start.data(), k.columns.data(), &k.common);
    }
  }
  CATENA_CHECK(k.symbolic != nullptr, "KLU could not analyse the " << n << " x " << n
                                                                   << " pattern (status "
                                                                   << k.common.status << ")");
}

KluLu::KluLu(int n, std::vector<int> row_start, std::vector<int> columns,
             const std::vector<int>& row_order, const std::vector<int>& column_order)
    : klu_(std::make_unique<Klu>()), n_(n), singular_pivot_(kSingularPivot) {
  const std::vector<int>& order = column_order;
  Klu& k = *klu_;
  CATENA_CHECK(n >= 0 && row_start.size() == static_cast<std::size_t>(n) + 1 &&
                   columns.size() == static_cast<std::size_t>(row_start[n]) &&
                   order.size() == static_cast<std::size_t>(n),
               "KLU pattern of " << n << " rows: " << row_start.size() << " row pointers, "
                                 << columns.size() << " columns, an order of " << order.size());
  klu_defaults(&k.common);
  k.common.scale = -1;
  k.common.tol = kPivotTolerance;
  k.common.btf = 0;
  k.common.initmem = kGivenOrderReserve;
  k.common.halt_if_singular = 0;  // a singular factorization lists all its singular columns
  k.row_start = std::move(row_start);
  k.columns = std::move(columns);
  resizeHuge(k.values, k.columns.size());
  CATENA_CHECK(row_order.size() == order.size(), "KLU row and column orders of unequal sizes");
  std::vector<int> P(row_order), Q(order);
  k.symbolic =
      klu_analyze_given(n, k.row_start.data(), k.columns.data(), P.data(), Q.data(), &k.common);
  CATENA_CHECK(k.symbolic != nullptr && k.symbolic->nblocks <= 1,
               "KLU could not analyse the " << n << " x " << n << " pattern in the given order "
                                            << "(status " << k.common.status << ")");
}

KluLu::~KluLu() = default;

const int* KluLu::patternRowStart() const {
  return klu_->row_start.data();
}

const int* KluLu::patternColumns() const {
  return klu_->columns.data();
}

std::vector<int> positionsAfterDrop(int n, const std::vector<int>& dropped) {
  std::vector<int> renumbered(n, 0);
  for (int p : dropped) {
    CATENA_CHECK(p >= 0 && p < n && renumbered[p] == 0,
                 "dropped position " << p << " of " << n << ": out of range or given twice");
    renumbered[p] = -1;
  }
  for (int j = 0, kept = 0; j < n; ++j)
    if (renumbered[j] == 0) renumbered[j] = kept++;
  return renumbered;
}

std::vector<char> KluLu::dropPositions(const std::vector<int>& positions) {
  Klu& k = *klu_;
  const int n = n_;
  CATENA_CHECK(k.symbolic && k.symbolic->nblocks <= 1 && !k.common.btf,
               "KluLu::dropPositions needs the order-given constructor's analysis");
  for (int j = 0; j < n; ++j)
    CATENA_CHECK(k.symbolic->Q[j] == j, "KluLu::dropPositions needs the identity column order");
  const std::vector<int> renumbered = positionsAfterDrop(n, positions);
  const int kept = n - static_cast<int>(positions.size());
  std::vector<int> P;
  P.reserve(kept);
  for (int j = 0; j < n; ++j)
    if (renumbered[k.symbolic->P[j]] >= 0) P.push_back(renumbered[k.symbolic->P[j]]);
  if (k.numeric) klu_free_numeric(&k.numeric, &k.common);
  klu_free_symbolic(&k.symbolic, &k.common);
  // Compacted in place: a kept row's entries move down, a row's columns stay sorted.
  std::vector<char> kept_entry(k.columns.size(), 0);
  int w = 0;
  for (int i = 0, r = 0; i < n; ++i) {
    const int begin = k.row_start[i], end = k.row_start[i + 1];
    if (renumbered[i] < 0) continue;
    k.row_start[r] = w;
    for (int a = begin; a < end; ++a)
      if (renumbered[k.columns[a]] >= 0) {
        kept_entry[a] = 1;
        k.columns[w++] = renumbered[k.columns[a]];
      }
    ++r;
  }
  k.row_start[kept] = w;
  k.row_start.resize(kept + 1);
  k.columns.resize(w);
  k.values.resize(w);
  n_ = kept;
  std::vector<int> Q(kept);
  for (int j = 0; j < kept; ++j) Q[j] = j;
  k.symbolic =
      klu_analyze_given(kept, k.row_start.data(), k.columns.data(), P.data(), Q.data(), &k.common);
  CATENA_CHECK(k.symbolic != nullptr && k.symbolic->nblocks <= 1,
               "KLU could not analyse the " << kept << " x " << kept << " pattern in the given "
                                            << "order (status " << k.common.status << ")");
  new_pivots_ = false;
  last_refactored_ = false;
  singular_columns_.clear();
  return kept_entry;
}

namespace {

/// KLU keeps each column of L and U in its block's Unit array as the row indices followed by
/// the values, starting at a whole Unit (klu_internal.h's GET_POINTER; Unit is double for the
/// real factorization).
KluLu::FactorColumn packedColumn(const klu_numeric& numeric, const int* start, const int* length,
                                 int k) {
  const double* base = static_cast<const double*>(numeric.LUbx[0]) + start[k];
  const int size = length[k];
  const std::size_t index_units = (sizeof(int) * size + sizeof(double) - 1) / sizeof(double);
  return {reinterpret_cast<const int*>(base), base + index_units, size};
}

}  // namespace

KluLu::FactorColumn KluLu::lowerColumn(int k) const {
  const klu_numeric& num = *klu_->numeric;
  return packedColumn(num, num.Lip, num.Llen, k);
}

KluLu::FactorColumn KluLu::upperColumn(int k) const {
  const klu_numeric& num = *klu_->numeric;
  return packedColumn(num, num.Uip, num.Ulen, k);
}

double KluLu::upperDiagonal(int k) const {
  return static_cast<const double*>(klu_->numeric->Udiag)[k];
}

long KluLu::factorNonZeros() const {
  const klu_numeric* num = klu_->numeric;
  return num ? static_cast<long>(num->lnz) + static_cast<long>(num->unz) : 0;
}

const int* KluLu::rowPivots() const {
  return klu_->numeric->Pnum;
}

const int* KluLu::columnOrder() const {
  return klu_->symbolic->Q;
}

const int* KluLu::givenRowOrder() const {
  return klu_->symbolic->P;
}

void KluLu::upperTransposedSolve(const double* b, double* y) const {
  CATENA_CHECK(klu_->numeric && !klu_->numeric->Rs && klu_->symbolic->nblocks <= 1,
               "KluLu::upperTransposedSolve needs an unscaled order-given factorization");
  const int* Q = klu_->symbolic->Q;
  const auto* diagonal = static_cast<const double*>(klu_->numeric->Udiag);
  for (int k = 0; k < n_; ++k) {  // U^T lower triangular
    const FactorColumn u = upperColumn(k);
    double sum = b[Q[k]];
    for (int r = 0; r < u.size; ++r) sum -= u.values[r] * y[u.rows[r]];
    y[k] = sum / diagonal[k];
  }
}

void KluLu::lowerTransposedSolve(double* y, double* x) const {
  const int* P = klu_->numeric->Pnum;
  for (int k = n_ - 1; k >= 0; --k) {  // L^T unit upper triangular
    const FactorColumn l = lowerColumn(k);
    double sum = y[k];
    for (int r = 0; r < l.size; ++r) sum -= l.values[r] * y[l.rows[r]];
    y[k] = sum;
    x[P[k]] = sum;
  }
}

namespace {

Status failure(const klu_common& c, int n, const char* what) {
  std::ostringstream os;
  os << "the " << n << " x " << n << " matrix could not be factored by klu (" << what;
  if (c.status == KLU_OUT_OF_MEMORY) {
    os << ": out of memory)";
    return Status::failure(Status::Code::kResources, os.str());
  }
  if (c.status == KLU_SINGULAR)
    os << ": numerically singular, zero pivot in row " << c.singular_col << ")";
  else
    os << ": KLU status " << c.status << ")";
  return Status::failure(Status::Code::kSingular, os.str());
}

/// The largest entry of column `column` of the matrix KLU factored: F's, each row divided by
/// its scale factor where KLU scaled (numeric.Rs; scaleByLargestEntries).
double largestEntry(int column, const klu_numeric& numeric, const KluPattern& f) {
  const double* rs = numeric.Rs;
  double largest = 0.0;
  for (int a = f.start[column]; a < f.start[column + 1]; ++a)
    largest = std::max(largest, std::abs(rs ? f.values[a] / rs[f.rows[a]] : f.values[a]));
  return largest;
}

/// The smallest pivot relative to the largest entry of its column of the matrix, and that
/// column. Partial pivoting keeps each pivot within kPivotTolerance of the largest entry of its
/// updated column, so a pivot at round-off of the column's entries means the updated column
/// vanished: the column depends on those before it.
std::pair<double, int> smallestRelativePivot(const klu_symbolic& symbolic,
                                             const klu_numeric& numeric, const KluPattern& f) {
  const double* u = static_cast<const double*>(numeric.Udiag);
  std::pair<double, int> worst{1.0, -1};
  for (int k = 0; k < symbolic.n; ++k) {
    const int column = symbolic.Q[k];
    const double largest = largestEntry(column, numeric, f);
    const double ratio = largest > 0.0 ? std::abs(u[k]) / largest : 0.0;
    if (ratio < worst.first) worst = {ratio, column};
  }
  return worst;
}

/// Every column whose pivot is below threshold of the column's largest entry (see above).
std::vector<int> columnsBelowSingularPivot(const klu_symbolic& symbolic, const klu_numeric& numeric,
                                           const KluPattern& f, double threshold) {
  const double* u = static_cast<const double*>(numeric.Udiag);
  std::vector<int> out;
  for (int k = 0; k < symbolic.n; ++k) {
    const int column = symbolic.Q[k];
    const double largest = largestEntry(column, numeric, f);
    if (!(std::abs(u[k]) >= threshold * largest) || largest == 0.0) out.push_back(column);
  }
  return out;
}

Status singularPivot(int n, std::pair<double, int> pivot, double threshold) {
  std::ostringstream os;
  os << "the " << n << " x " << n
     << " matrix could not be factored by klu (numerically singular: the pivot of column "
     << pivot.second << " is " << pivot.first << " of the column's largest entry, below "
     << threshold << ")";
  return Status::failure(Status::Code::kSingular, os.str());
}

}  // namespace

void KluLu::scaleByLargestEntries() {
  klu_->common.scale = 2;
}

double* KluLu::values() {
  return klu_->values.data();
}

Status KluLu::factor(const double* values) {
  std::copy(values, values + klu_->values.size(), klu_->values.begin());
  return factor();
}

Status KluLu::factor() {
  Klu& k = *klu_;
  if (k.numeric && !new_pivots_) {
    const int ok = klu_refactor(k.row_start.data(), k.columns.data(), k.values.data(), k.symbolic,
                                k.numeric, &k.common);
    if (ok && klu_rcond(k.symbolic, k.numeric, &k.common) &&
        smallestRelativePivot(*k.symbolic, *k.numeric, k.pattern()).first >= singular_pivot_) {
      // The crude estimate may drop where a column's entries all became small (a tangent
      // stiffness that vanishes along the Newton path) with the pivots sound: the pivot growth
      // decides then, for callers that check each solve's backward error.
      bool sound = k.common.rcond * kMaxRcondDrop >= k.rcond_at_full;
      if (!sound && max_refactor_growth_ > 0.0 &&
          klu_rgrowth(k.row_start.data(), k.columns.data(), k.values.data(), k.symbolic, k.numeric,
                      &k.common))
        sound = k.common.rgrowth * max_refactor_growth_ >= 1.0;
      if (sound) {
        ++refactor_;
        last_refactored_ = true;
        return Status::success();
      }
    }
  }
  // The previous factors' pages go to the new ones (solvers/suitesparse_memory.hpp).
  const SuiteSparseBlockReuse reuse;
  if (k.numeric) klu_free_numeric(&k.numeric, &k.common);
  new_pivots_ = false;
  last_refactored_ = false;
  k.numeric =
      klu_factor(k.row_start.data(), k.columns.data(), k.values.data(), k.symbolic, &k.common);
  ++full_;
  singular_columns_.clear();
  if (k.numeric && !k.common.halt_if_singular)
    singular_columns_ =
        columnsBelowSingularPivot(*k.symbolic, *k.numeric, k.pattern(), singular_pivot_);
  // A singular matrix stops KLU (halt_if_singular, the default): no factorization, a status.
  if (!k.numeric || k.common.status != KLU_OK) {
    const Status st = failure(k.common, n_, "factorization");
    if (k.numeric) klu_free_numeric(&k.numeric, &k.common);
    return st;
  }
  const auto pivot = smallestRelativePivot(*k.symbolic, *k.numeric, k.pattern());
  if (pivot.first < singular_pivot_) {
    klu_free_numeric(&k.numeric, &k.common);
    return singularPivot(n_, pivot, singular_pivot_);
  }
  klu_rcond(k.symbolic, k.numeric, &k.common);
  k.rcond_at_full = k.common.rcond;
  return Status::success();
}

Status KluLu::solve(double* b) {
  Klu& k = *klu_;
  CATENA_CHECK(k.numeric != nullptr, "KluLu::solve without a successful factor()");
  if (!klu_tsolve(k.symbolic, k.numeric, n_, 1, b, &k.common))
    return failure(k.common, n_, "solve");
  return Status::success();
}

}  // namespace catena
