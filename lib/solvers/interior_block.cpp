#include "solvers/interior_block.hpp"

#include <algorithm>
#include <numeric>

#include "core/huge_pages.hpp"
#include "solvers/kkt_ordering.hpp"

namespace catena {
namespace {

/// An interior pivot below this fraction of its column's largest entry moves its unknown to the
/// interface. Stricter than KLU's singular test (kSingularPivot, 1e-13): a nearly singular
/// interior block passes its error on to S (a pinned 24 x 8 lattice's blocks, pivots at 1e-12,
/// cost Newton 19 iterations instead of 10 and 1e-10 of its multipliers), while moving a regular
/// unknown only enlarges the interface.
constexpr double kInteriorPivot = 1e-8;

/// The block's KLU set up on its rows renumbered in pivot order (A's row pivoted k-th becomes row
/// k; InteriorBlock::renumbered, source), so that KLU's factorization, refactorization, solves
/// and pivot checks sweep its arrays in memory order. CAMD's order on the chain's blocks
/// interleaves two index ranges (coordinates, multipliers) and runs backwards where the block's
/// boundary is at its low end: that block refactored at half the other's rate for the same
/// flops (2 ranks, 5·10^5 links, hand run). P, Q: the order in the block's own numbering.
void setUpInPivotOrder(InteriorBlock& blk, const std::vector<int>& start,
                       const std::vector<int>& col, const std::vector<PetscInt>& source,
                       std::vector<int> P, const std::vector<int>& Q) {
  const int n = blk.size, e0 = blk.first;
  const auto entries = static_cast<std::size_t>(start[e0 + n] - start[e0]);
  std::vector<int> pos(n);
  for (int k = 0; k < n; ++k) pos[Q[k]] = k;
  // Each renumbered row's columns come out ascending without a sort (a sort of each row took
  // 0.4-0.7 s per 10^5 chain links, hand runs): the rows are dealt into their new columns in
  // row order, then the columns back into the rows in column order (a double transpose).
  std::vector<int> ns(n + 1, 0), cs(n + 1, 0);
  for (int k = 0; k < n; ++k) {
    const int e = e0 + Q[k];
    ns[k + 1] = ns[k] + (start[e + 1] - start[e]);
    for (int a = start[e]; a < start[e + 1]; ++a) ++cs[pos[col[a]] + 1];
  }
  std::partial_sum(cs.begin(), cs.end(), cs.begin());
  std::vector<int> nc;
  std::vector<PetscInt> nsource;
  resizeHuge(nc, entries);
  resizeHuge(nsource, entries);
  {
    std::vector<int> column_row;  // by new column: the new rows, ascending, and their sources
    std::vector<PetscInt> column_source;
    resizeHuge(column_row, entries);
    resizeHuge(column_source, entries);
    std::vector<int> next(cs.begin(), cs.end() - 1);
    for (int k = 0; k < n; ++k) {
      const int e = e0 + Q[k];
      for (int a = start[e]; a < start[e + 1]; ++a) {
        const int t = next[pos[col[a]]]++;
        column_row[t] = k;
        column_source[t] = source[a];
      }
    }
    next.assign(ns.begin(), ns.end() - 1);
    for (int c = 0; c < n; ++c)
      for (int t = cs[c]; t < cs[c + 1]; ++t) {
        const int a = next[column_row[t]]++;
        nc[a] = c;
        nsource[a] = column_source[t];
      }
  }
  blk.source = std::move(nsource);
  blk.renumbered = Q;
  for (int& r : P) r = pos[r];
  std::vector<int> identity(n);
  std::iota(identity.begin(), identity.end(), 0);
  blk.klu = std::make_unique<KluLu>(n, std::move(ns), std::move(nc), P, identity);
}

}  // namespace

// KLU's own kind of order (maximum transversal, then a fill-reducing order of the matched
// pattern) with the rows next to the boundary last; where the transversal is costly (a planar
// mesh of loops, klu_lu.hpp's kMaxTransversalWork) the saddle-point pair order (no multiplier
// before a coordinate of its row), and CAMD on the plain graph where neither exists. The pair
// order factored a 10^5-link chain's blocks 2x slower than the transversal; the plain graph
// without a transversal let KLU's pivoting fill one 5000-unknown block of a 2000-link chain on
// 4 ranks densely (90 s instead of 0.04 s). Hand runs of catena-scale, not in committed output.
void analyseBlock(InteriorBlock& blk, const std::vector<int>& start, const std::vector<int>& col,
                  const std::vector<PetscInt>& source, const std::vector<char>& last,
                  const std::vector<char>& ordered_last, int coordinates) {
  const int n = blk.size, e0 = blk.first;
  if (n == 0) return;  // a part with no interior rows (all of them on the interface)
  std::vector<int> bs(n + 1);
  for (int e = 0; e <= n; ++e) bs[e] = start[e0 + e] - start[e0];
  const int* bc = col.data() + start[e0];  // the block's columns, in place
  const std::vector<char> olast(ordered_last.begin() + e0, ordered_last.begin() + e0 + n);
  std::vector<int> P, Q;
  if (!matchedOrder(n, bs.data(), bc, olast, kMaxTransversalWork, P, Q) &&
      !saddlePointPivotOrder(n, coordinates, bs.data(), bc, P, Q, olast)) {
    P = constrainedOrder(n, bs.data(), bc, olast);
    Q = P;
  }
  blk.window = trailingWindow(P, Q, last.data() + e0);
  bs.clear();  // the ordering's row starts; the factorization's are built in pivot order
  bs.shrink_to_fit();
  setUpInPivotOrder(blk, start, col, source, std::move(P), Q);
  blk.klu->setSingularPivot(kInteriorPivot);
}

int trailingWindow(const std::vector<int>& P, const std::vector<int>& Q, const char* last) {
  const int n = static_cast<int>(Q.size());
  for (int k = 0; k < n; ++k)
    if (last[P[k]] || last[Q[k]]) return n - k;
  return 0;
}

void dropFromBlock(InteriorBlock& blk, InteriorBlock&& old, const std::vector<int>& dropped,
                   std::vector<int> renumbered, int window) {
  // The sources follow the pattern's entries as dropPositions compacts them.
  const std::vector<char> kept = old.klu->dropPositions(dropped);
  std::size_t w = 0;
  for (std::size_t a = 0; a < kept.size(); ++a)
    if (kept[a]) old.source[w++] = old.source[a];
  old.source.resize(w);
  blk.klu = std::move(old.klu);
  blk.source = std::move(old.source);
  blk.renumbered = std::move(renumbered);
  blk.window = window;
}

/// With F = K_BB^T factored as P F Q = L U (solvers/klu_lu.hpp), K_BB^-1 = P^T L^-T U^-T Q^T and
/// Sb(h, g) = (L^-1 P k_h)^T (U^-T Q^T k_g). The right-hand sides live on the pivots of the
/// rows next to the boundary; where the order put them last (ordered_last), their triangular
/// solves run over a trailing window of pivots only, the others' from their first pivot on.
void blockSchurPart(InteriorBlock& blk, const BoundaryCouplings& c, Eigen::MatrixXd& Sb,
                    long& window) {
  const int n = blk.size, e0 = blk.first;
  const auto m = static_cast<Eigen::Index>(blk.boundary.size());
  Sb.setZero(m, m);
  blk.upper.assign(m, {});
  blk.lower.assign(m, {});
  blk.upper_first.assign(m, n);
  blk.lower_first.assign(m, n);
  if (n == 0 || m == 0) return;
  const KluLu& klu = *blk.klu;
  const int* p = klu.rowPivots();
  const int* q = klu.columnOrder();
  std::vector<int> p_inv(n), q_inv(n);
  for (int k = 0; k < n; ++k) {
    p_inv[p[k]] = k;
    q_inv[q[k]] = k;
  }
  // Each right-hand side runs from its own first pivot: one that KLU's pivoting moved early
  // (a boundary neighbour's row picked for a zero diagonal) costs its own solve only.
  // fromFirstPivot: the coupling entries [start[a], start[a + 1]) on this block, at their pivot
  // positions (inv), as a dense vector from the first of them; returns that first position.
  const auto fromFirstPivot = [&](const std::vector<PetscInt>& start,
                                  const std::vector<PetscInt>& index,
                                  const std::vector<double>& value, const std::vector<int>& inv,
                                  PetscInt a, std::vector<double>& out) {
    const auto mine = [&](PetscInt e) { return e >= e0 && e < e0 + n; };
    int first = n;
    for (PetscInt s = start[a]; s < start[a + 1]; ++s)
      if (mine(index[s])) first = std::min(first, inv[index[s] - e0]);
    out.assign(n - first, 0.0);
    for (PetscInt s = start[a]; s < start[a + 1]; ++s)
      if (mine(index[s])) out[inv[index[s] - e0] - first] = value[s];
    return first;
  };
  for (Eigen::Index h = 0; h < m; ++h) {
    const PetscInt a = blk.boundary[h];
    blk.upper_first[h] = fromFirstPivot(c.ig_start, c.ig_row, c.ig_value, q_inv, a, blk.upper[h]);
    blk.lower_first[h] = fromFirstPivot(c.gi_start, c.gi_col, c.gi_value, p_inv, a, blk.lower[h]);
    window = std::max<long>(window, n - std::min(blk.upper_first[h], blk.lower_first[h]));
  }
  // All right-hand sides in one sweep through U and one through L, each column of the factors
  // read once for all of them: a middle rank's interface columns on one side run over its
  // whole block (oneSidedLast), and reading the factors once per column made the Schur part
  // cost as much as the block's factorization.
  std::vector<Eigen::Index> by_upper(m), by_lower(m);
  std::iota(by_upper.begin(), by_upper.end(), 0);
  std::iota(by_lower.begin(), by_lower.end(), 0);
  std::sort(by_upper.begin(), by_upper.end(), [&](Eigen::Index x, Eigen::Index y) {
    return blk.upper_first[x] < blk.upper_first[y];
  });
  std::sort(by_lower.begin(), by_lower.end(), [&](Eigen::Index x, Eigen::Index y) {
    return blk.lower_first[x] < blk.lower_first[y];
  });
  std::size_t active = 0;
  for (int k = blk.upper_first[by_upper[0]]; k < n; ++k) {  // U^T y = c, U^T lower triangular
    while (active < by_upper.size() && blk.upper_first[by_upper[active]] <= k) ++active;
    const KluLu::FactorColumn u = klu.upperColumn(k);
    const double d = klu.upperDiagonal(k);
    for (std::size_t j = 0; j < active; ++j) {
      const Eigen::Index h = by_upper[j];
      const int k0 = blk.upper_first[h];
      double* y = blk.upper[h].data();  // y[k - k0]: pivot k
      double sum = y[k - k0];
      for (int r = 0; r < u.size; ++r)
        if (u.rows[r] >= k0) sum -= u.values[r] * y[u.rows[r] - k0];
      y[k - k0] = sum / d;
    }
  }
  active = 0;
  for (int k = blk.lower_first[by_lower[0]]; k < n; ++k) {  // L z = c, L unit lower triangular
    while (active < by_lower.size() && blk.lower_first[by_lower[active]] <= k) ++active;
    const KluLu::FactorColumn l = klu.lowerColumn(k);
    for (std::size_t j = 0; j < active; ++j) {
      const Eigen::Index h = by_lower[j];
      const int j0 = blk.lower_first[h];
      double* z = blk.lower[h].data();  // z[k - j0]: pivot k
      const double zk = z[k - j0];
      if (zk == 0.0) continue;
      for (int r = 0; r < l.size; ++r) z[l.rows[r] - j0] -= l.values[r] * zk;
    }
  }
  for (Eigen::Index h = 0; h < m; ++h)
    for (Eigen::Index g = 0; g < m; ++g) {
      const int z0 = blk.lower_first[h], y0 = blk.upper_first[g];
      const int k0 = std::max(z0, y0);
      Sb(h, g) =
          Eigen::Map<const Eigen::VectorXd>(blk.lower[h].data() + (k0 - z0), n - k0)
              .dot(Eigen::Map<const Eigen::VectorXd>(blk.upper[g].data() + (k0 - y0), n - k0));
    }
}

void blockInterfaceResidual(const InteriorBlock& blk, const double* y, double* r) {
  for (std::size_t h = 0; h < blk.lower.size(); ++h) {
    const int z0 = blk.lower_first[h];
    r[h] -= Eigen::Map<const Eigen::VectorXd>(blk.lower[h].data(), blk.size - z0)
                .dot(Eigen::Map<const Eigen::VectorXd>(y + z0, blk.size - z0));
  }
}

void blockInterfaceCorrection(const InteriorBlock& blk, const double* x, double* y) {
  for (std::size_t g = 0; g < blk.upper.size(); ++g) {
    const int y0 = blk.upper_first[g];
    for (int k = y0; k < blk.size; ++k) y[k] -= blk.upper[g][k - y0] * x[g];
  }
}

std::vector<PetscInt> partSplits(PetscInt n, const PetscInt* start, const PetscInt* col, int parts,
                                 PetscInt window) {
  std::vector<PetscInt> split;
  if (parts <= 1 || n == 0) return split;
  std::vector<long> crossing(n + 1, 0);  // differences, then the count crossing each s
  for (PetscInt i = 0; i < n; ++i)
    for (PetscInt k = start[i]; k < start[i + 1]; ++k)
      if (col[k] > i) {
        ++crossing[i + 1];
        --crossing[col[k] + 1];
      }
  for (PetscInt s = 1; s <= n; ++s) crossing[s] += crossing[s - 1];
  for (int b = 1; b < parts; ++b) {
    const PetscInt equal = b * n / parts;
    PetscInt best = equal;
    for (PetscInt d = 1; d <= window; ++d)
      for (const PetscInt s : {equal - d, equal + d})
        if (s > 0 && s < n && crossing[s] < crossing[best]) best = s;
    split.push_back(std::max(best, split.empty() ? 0 : split.back()));
  }
  return split;
}

}  // namespace catena
