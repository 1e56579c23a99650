#pragma once
/// @file reproducible_sum.hpp
/// Sums over MPI ranks whose bits do not depend on how the terms are split over the ranks, nor
/// on their order: what makes the distributed IDA take the same steps on any rank count
/// (docs/parallel.md, "Bitwise across rank counts").
///
/// Method: each term, scaled by 2^-e with 2^e > max |x| over all ranks, is cut exactly into three
/// 32-bit pieces summed as 64-bit integers (docs/parallel.md, item 5 of "Bitwise across rank
/// counts"). Error: at most n 2^-96 max |x| plus the final rounding. Non-finite terms give the
/// plain sum's inf or NaN. At most 2^31 terms in all.

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "core/types.hpp"

namespace catena {

namespace reproducible {

/// What the first pass agrees on over the ranks.
struct Scale {
  /// 2^e with e the smallest exponent such that |x| < 2^e for every term of every rank (at
  /// least 2^-960); 0 if every term is 0.
  double scale = 0.0;
  /// A term not finite or of 2^1023 or more somewhere: then the result is the plain sum
  /// (inf or NaN, or huge), which is all such a sum can say.
  bool plain = false;
  double plain_sum = 0.0;
};

/// From every rank's largest |term|, plain local sum and whether a term is not finite.
/// Collective.
Scale globalScale(MPI_Comm comm, double local_max_abs, double local_plain_sum,
                  bool local_nonfinite);

/// The three integer sums of the pieces.
using Pieces = std::array<std::int64_t, 3>;

/// Adds the pieces of x (|x| < scale) to p; inverse_scale = 1 / scale.
inline void addPieces(double x, double inverse_scale, Pieces& p) {
  double t = x * inverse_scale;  // exact (a power of two), |t| < 1
  for (std::int64_t& sum : p) {
    t *= 4294967296.0;  // 2^32, exact
    const double whole = std::trunc(t);
    sum += static_cast<std::int64_t>(whole);
    t -= whole;  // exact: the fraction of t
  }
}

/// Sums p over the ranks (exact) and forms the result. Collective.
double finish(MPI_Comm comm, const Pieces& p, double scale);

}  // namespace reproducible

/// sum_{i < n} term(i) over all ranks of comm, the same bits for any split of the terms over
/// the ranks. term(i) is called twice per i and must return the same both times. Collective.
template <class Term>
double reproducibleSum(MPI_Comm comm, Index n, Term&& term) {
  double max_abs = 0.0, plain = 0.0;
  bool nonfinite = false;
  for (Index i = 0; i < n; ++i) {
    const double x = term(i);
    nonfinite = nonfinite || !std::isfinite(x);
    max_abs = std::max(max_abs, std::abs(x));
    plain += x;
  }
  const reproducible::Scale s = reproducible::globalScale(comm, max_abs, plain, nonfinite);
  if (s.plain) return s.plain_sum;
  if (s.scale == 0.0) return 0.0;
  const double inverse = 1.0 / s.scale;  // exact: a power of two, at most 2^960
  reproducible::Pieces p{};
  for (Index i = 0; i < n; ++i) reproducible::addPieces(term(i), inverse, p);
  return reproducible::finish(comm, p, s.scale);
}

/// The same for an array of n local values.
inline double reproducibleSum(MPI_Comm comm, const double* x, Index n) {
  return reproducibleSum(comm, n, [x](Index i) { return x[i]; });
}

}  // namespace catena
