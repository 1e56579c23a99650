#pragma once
/// @file dense_qr.hpp
/// (mobility/ internal: the block-wise rank's kernels, blockwise_rank.cpp.)
/// Dense kernels on column-major buffers. Written out (no Eigen reductions) so that the
/// arithmetic of each column is fixed: the same bits whichever thread, and whichever split of
/// the columns between threads, computes it.

#include <omp.h>

#include <cmath>
#include <exception>
#include <limits>

#include "core/types.hpp"

namespace catena::blockwise {

/// a . b in a fixed order (four partial sums).
inline double dot(const double* a, const double* b, Index n) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  Index i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; ++i) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

inline void axpy(double* y, double alpha, const double* x, Index n) {
  for (Index i = 0; i < n; ++i) y[i] += alpha * x[i];
}

/// "Never split": the loops of a step stay on the calling thread.
constexpr double kNoSplit = std::numeric_limits<double>::infinity();

/// The first exception thrown in the iterations of a parallel loop, rethrown after the loop:
/// none may leave an OpenMP region (STYLE.md rule 6). Only allocation can throw here.
class FirstException {
 public:
  template <class F>
  void run(F&& f) noexcept {
    try {
      f();
    } catch (...) {
#pragma omp critical(catena_blockwise_rank_exception)
      if (!first_) first_ = std::current_exception();
    }
  }
  void rethrow() const {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::exception_ptr first_;
};

/// f(j) for j in [begin, end): over the threads (static schedule) when `par`, else a plain loop
/// (no region at all: an inactive nested region per call costs more than small loops).
template <class F>
inline void loop(Index begin, Index end, bool par, F&& f) {
  if (par) {
#pragma omp parallel for schedule(static)
    for (Index j = begin; j < end; ++j) f(j);
  } else {
    for (Index j = begin; j < end; ++j) f(j);
  }
}

/// Householder reflector for column x (length n): on return x[0] = beta, x[1:] the essential
/// part of v (v[0] = 1), H = I - tau v v^T maps x to (beta, 0, ...). |beta| = |x|.
inline double makeHouseholder(double* x, Index n) {
  const double alpha = x[0];
  const double sigma = n > 1 ? dot(x + 1, x + 1, n - 1) : 0.0;
  if (sigma == 0.0) return 0.0;  // already (alpha, 0, ...): H = I
  const double mu = std::sqrt(alpha * alpha + sigma);
  const double beta = alpha <= 0.0 ? mu : -mu;
  const double scale = 1.0 / (alpha - beta);
  for (Index i = 1; i < n; ++i) x[i] *= scale;
  x[0] = beta;
  return (beta - alpha) / beta;
}

/// y <- H y for H = I - tau v v^T, v = (1, ess), y and ess of length n (ess: n - 1).
inline void applyHouseholder(double* y, const double* ess, double tau, Index n) {
  const double w = tau * (y[0] + dot(ess, y + 1, n - 1));
  y[0] -= w;
  axpy(y + 1, -w, ess, n - 1);
}

struct QrcpOutcome {
  Index rank = 0;
  double smallest_retained = std::numeric_limits<double>::infinity();  ///< absolute
  double largest_dropped = 0.0;                                        ///< absolute
};

/// QR with column pivoting of X (rows x cols, column-major, leading dimension rows), in place,
/// LAPACK's xGEQPF scheme: the column of largest remaining norm is the next pivot, the norms
/// are downdated and recomputed when cancellation makes the downdate unreliable. Stops when the
/// largest remaining norm is <= threshold; the remaining norms are then recomputed exactly, so
/// the decision never rests on a downdated value. On return column i < rank holds R(0..i, i)
/// and, below the diagonal, the essential part of reflector i; perm[i] is the original column
/// now at i. Workspace: perm (cols), tau (min(rows, cols)), vn1, vn2 (cols).
inline QrcpOutcome qrcpInPlace(double* X, Index rows, Index cols, double threshold, Index* perm,
                               double* tau, double* vn1, double* vn2, double split) {
  QrcpOutcome out;
  const double tol3z = std::sqrt(std::numeric_limits<double>::epsilon());
  for (Index j = 0; j < cols; ++j) {
    perm[j] = j;
    vn1[j] = vn2[j] = std::sqrt(dot(X + j * rows, X + j * rows, rows));
  }
  auto argmax = [&](Index from) {
    Index p = from;
    for (Index j = from + 1; j < cols; ++j)
      if (vn1[j] > vn1[p]) p = j;
    return p;
  };
  const Index steps = std::min(rows, cols);
  Index i = 0;
  for (; i < steps; ++i) {
    Index p = argmax(i);
    if (vn1[p] <= threshold) {
      for (Index j = i; j < cols; ++j)
        vn1[j] = vn2[j] = std::sqrt(dot(X + j * rows + i, X + j * rows + i, rows - i));
      p = argmax(i);
      if (vn1[p] <= threshold) break;
    }
    if (p != i) {
      std::swap_ranges(X + p * rows, X + (p + 1) * rows, X + i * rows);
      std::swap(perm[p], perm[i]);
      std::swap(vn1[p], vn1[i]);
      std::swap(vn2[p], vn2[i]);
    }
    double* x = X + i * rows + i;
    tau[i] = makeHouseholder(x, rows - i);
    out.smallest_retained = std::min(out.smallest_retained, std::abs(x[0]));
    const double t = tau[i];
    const Index n = rows - i;
    const bool par = double(cols - i) * double(n) > split;
    loop(i + 1, cols, par, [&](Index j) {
      double* y = X + j * rows + i;
      if (t != 0.0) applyHouseholder(y, x + 1, t, n);
      // Downdate the norm of the rest of column j (rows i+1..).
      if (vn1[j] != 0.0) {
        double temp = std::abs(y[0]) / vn1[j];
        temp = std::max(0.0, (1.0 - temp) * (1.0 + temp));
        const double ratio = vn1[j] / vn2[j];
        if (temp * ratio * ratio <= tol3z) {
          vn1[j] = vn2[j] = n > 1 ? std::sqrt(dot(y + 1, y + 1, n - 1)) : 0.0;
        } else {
          vn1[j] *= std::sqrt(temp);
        }
      }
    });
  }
  out.rank = i;
  if (i < cols && i < rows) {
    for (Index j = i; j < cols; ++j) out.largest_dropped = std::max(out.largest_dropped, vn1[j]);
  }
  if (out.rank == 0) out.smallest_retained = 0.0;
  return out;
}

/// Rows of W (nrows x K, row-major, row stride ld >= K) times Q = H_0 H_1 ... H_{r-1}, the
/// reflectors of a factored X (K x ., leading dimension K): w <- w H_0 ... H_{r-1}, row by row.
inline void applyQFromRight(double* W, Index nrows, Index ld, const double* X, Index K, Index r,
                            const double* tau, double split) {
  const bool par = double(nrows) * double(K) * double(r) > split;
  loop(0, nrows, par, [&](Index row) {
    double* w = W + std::size_t(row) * ld;
    for (Index i = 0; i < r; ++i)
      if (tau[i] != 0.0) applyHouseholder(w + i, X + i * K + i + 1, tau[i], K - i);
  });
}

/// Householder QR without pivoting of Y (rows x cols, column-major, leading dimension ld), in
/// place: R in the upper triangle, the essential parts of the reflectors below it, tau (min(rows,
/// cols) entries).
inline void qrUnblocked(double* Y, Index ld, Index rows, Index cols, double* tau, double split) {
  const Index steps = std::min(rows, cols);
  for (Index i = 0; i < steps; ++i) {
    double* x = Y + std::size_t(i) * ld + i;
    const double t = makeHouseholder(x, rows - i);
    tau[i] = t;
    if (t == 0.0) continue;
    const Index n = rows - i;
    const bool par = double(cols - i) * double(n) > split;
    loop(i + 1, cols, par,
         [&](Index j) { applyHouseholder(Y + std::size_t(j) * ld + i, x + 1, t, n); });
  }
}

}  // namespace catena::blockwise
