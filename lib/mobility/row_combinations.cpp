#include "mobility/row_combinations.hpp"

#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/check.hpp"
#include "solvers/sparse_qr.hpp"

namespace catena {
namespace {

/// Entries of a whole-matrix combination above this fraction of its largest form its support.
/// The exact combination has a few entries of order one; the solve's round-off on the others
/// grows with the model (1e-14 of the largest at 10^3 rows, above it at 10^4).
constexpr double kSupport = 1e-8;
/// Entries of a whole-matrix combination kept where its support does not represent the row.
constexpr double kFill = 1e-14;

/// c_d on the given kept rows (ascending), or nothing if they do not represent row d.
std::optional<VecX> solveOnSupport(const SparseMatrixCSR& Cq, Index d,
                                   const std::vector<Index>& support) {
  const double row_norm = Cq.row(d).norm();
  if (support.empty() || row_norm == 0.0) return std::nullopt;
  // The columns the rows touch, ascending.
  std::vector<Index> cols;
  for (SparseMatrixCSR::InnerIterator it(Cq, d); it; ++it) cols.push_back(it.col());
  for (Index row : support)
    for (SparseMatrixCSR::InnerIterator it(Cq, row); it; ++it) cols.push_back(it.col());
  std::sort(cols.begin(), cols.end());
  cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
  auto local = [&](Index col) {
    return static_cast<Index>(std::lower_bound(cols.begin(), cols.end(), col) - cols.begin());
  };
  MatX A = MatX::Zero(static_cast<Index>(cols.size()), static_cast<Index>(support.size()));
  for (std::size_t k = 0; k < support.size(); ++k)
    for (SparseMatrixCSR::InnerIterator it(Cq, support[k]); it; ++it)
      A(local(it.col()), static_cast<Index>(k)) = it.value();
  VecX b = VecX::Zero(A.rows());
  for (SparseMatrixCSR::InnerIterator it(Cq, d); it; ++it) b[local(it.col())] = it.value();
  const Eigen::ColPivHouseholderQR<MatX> qr(A);
  VecX c = qr.solve(b);
  if (!((A * c - b).norm() <= kRowMisfit * row_norm)) return std::nullopt;
  return c;
}

/// The rows whose coefficient in c is above kSupport of its largest.
std::vector<Index> supportOf(const std::vector<Index>& rows, const VecX& c) {
  std::vector<Index> out;
  const double largest = c.size() > 0 ? c.cwiseAbs().maxCoeff() : 0.0;
  for (std::size_t k = 0; k < rows.size(); ++k)
    if (std::abs(c[static_cast<Index>(k)]) > kSupport * largest) out.push_back(rows[k]);
  return out;
}

/// The rows in `which` (original numbering) as a sparse matrix.
SparseMatrixCSR selectRows(const SparseMatrixCSR& Cq, const std::vector<Index>& which) {
  SparseMatrixCSR S(static_cast<Index>(which.size()), Cq.rows());
  std::vector<Eigen::Triplet<double>> ones;
  for (std::size_t k = 0; k < which.size(); ++k)
    ones.emplace_back(static_cast<int>(k), static_cast<int>(which[k]), 1.0);
  S.setFromTriplets(ones.begin(), ones.end());
  return SparseMatrixCSR(S * Cq);
}

/// Bodies and ears up to which a loop is grown before the row is left to the whole matrix.
constexpr std::size_t kMaxLoopBodies = 64;
constexpr int kMaxEars = 8;

/// The body-joint graph over the joints with kept rows: node nb is the ground.
struct RowJointGraph {
  Index nb = 0;
  std::vector<std::vector<std::pair<Index, Index>>> adjacent;  ///< per node: (joint, other node)
  std::vector<std::vector<Index>> kept_rows;                   ///< per joint, ascending
  std::vector<std::pair<Index, Index>> ends;                   ///< per joint: its two nodes

  RowJointGraph(const Model& model, const std::vector<Index>& kept)
      : nb(static_cast<Index>(model.bodies.size())),
        adjacent(model.bodies.size() + 1),
        kept_rows(model.joints.size()),
        ends(model.joints.size()) {
    for (Index row : kept) kept_rows[model.jointOfRow(row)].push_back(row);
    for (std::size_t j = 0; j < model.joints.size(); ++j) {
      auto node = [&](Index marker) {
        const Index body = model.markerBody(marker);
        return body == kGround ? nb : body;
      };
      ends[j] = {node(model.joints[j].marker1), node(model.joints[j].marker2)};
      if (kept_rows[j].empty() || ends[j].first == ends[j].second) continue;
      adjacent[ends[j].first].emplace_back(static_cast<Index>(j), ends[j].second);
      adjacent[ends[j].second].emplace_back(static_cast<Index>(j), ends[j].first);
    }
  }
};

/// Breadth-first marks of one thread, reset after each search.
struct EarSearch {
  std::vector<Index> source, parent;  ///< per node: the loop node it was reached from, -1
  std::vector<Index> touched;
  explicit EarSearch(Index nodes) : source(nodes, -1), parent(nodes, -1) {}
  void reset() {
    for (Index v : touched) source[v] = parent[v] = -1;
    touched.clear();
  }
};

/// The shortest path outside `in_loop` between two different nodes of the loop (an ear), its
/// inner nodes appended to loop; false if there is none.
bool addEar(const RowJointGraph& g, std::vector<char>& in_loop, std::vector<Index>& loop,
            EarSearch& w) {
  std::vector<Index> queue;
  for (Index u : loop) {
    w.source[u] = u;
    w.touched.push_back(u);
  }
  // Each loop node's outside neighbours first, then outwards.
  auto visit = [&](Index from, Index v) -> std::pair<Index, Index> {  // (outside end, loop end)
    if (in_loop[v]) {
      if (!in_loop[from] && w.source[from] != v) return {from, v};
      return {-1, -1};
    }
    if (w.source[v] < 0) {
      w.source[v] = w.source[from];
      w.parent[v] = from;
      w.touched.push_back(v);
      queue.push_back(v);
      return {-1, -1};
    }
    if (w.source[v] != w.source[from]) return {from, v};  // two regions meet
    return {-1, -1};
  };
  std::pair<Index, Index> meet{-1, -1};
  for (std::size_t i = 0; i < loop.size() && meet.first < 0; ++i)
    for (const auto& [joint, v] : g.adjacent[loop[i]])
      if (!in_loop[v] && (meet = visit(loop[i], v)).first >= 0) break;
  for (std::size_t head = 0; head < queue.size() && meet.first < 0; ++head) {
    const Index from = queue[head];
    for (const auto& [joint, v] : g.adjacent[from]) {
      meet = visit(from, v);
      if (meet.first >= 0) break;
    }
    if (queue.size() > 50 * kMaxLoopBodies) break;  // far from any ear: give up
  }
  bool found = meet.first >= 0;
  if (found) {
    for (Index end : {meet.first, meet.second})
      for (Index v = end; v >= 0 && !in_loop[v]; v = w.parent[v]) {
        in_loop[v] = 1;
        loop.push_back(v);
      }
  }
  w.reset();
  return found;
}

/// The kept rows of every joint between two nodes of the loop, ascending.
std::vector<Index> rowsOfLoop(const RowJointGraph& g, const std::vector<char>& in_loop,
                              const std::vector<Index>& loop, Index joint) {
  std::vector<Index> rows = g.kept_rows[joint];
  for (Index u : loop)
    for (const auto& [j, v] : g.adjacent[u])
      if (in_loop[v] && u < v)
        rows.insert(rows.end(), g.kept_rows[j].begin(), g.kept_rows[j].end());
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

}  // namespace

RowSupports supportsOnLoops(const Model& model, const SparseMatrixCSR& Cq,
                            const std::vector<Index>& kept, const std::vector<Index>& dropped) {
  const RowJointGraph g(model, kept);
  RowSupports out(dropped.size());
  const Index nd = static_cast<Index>(dropped.size());
#pragma omp parallel
  {
    EarSearch w(g.nb + 1);
    std::vector<char> in_loop(g.nb + 1, 0);
#pragma omp for schedule(dynamic, 16)
    for (Index j = 0; j < nd; ++j) {
      const Index joint = model.jointOfRow(dropped[j]);
      std::vector<Index> loop{g.ends[joint].first};
      if (g.ends[joint].second != loop[0]) loop.push_back(g.ends[joint].second);
      for (Index u : loop) in_loop[u] = 1;
      // The joint's own kept rows first (a row of a joint that repeats another of its rows),
      // then one ear more at a time.
      for (int ears = 0; ears <= kMaxEars && loop.size() <= kMaxLoopBodies; ++ears) {
        if (ears > 0 && !addEar(g, in_loop, loop, w)) break;
        const std::vector<Index> rows = rowsOfLoop(g, in_loop, loop, joint);
        if (!solveOnSupport(Cq, dropped[j], rows)) continue;
        // Every kept row of the loop, not only those with a coefficient here: which rows and
        // joints carry the combination depends on the configuration (at vertical cranks a
        // merged lattice's loops put none on some of their hinges, at other angles they do).
        out[j] = rows;
        break;
      }
      for (Index u : loop) in_loop[u] = 0;
    }
  }
  return out;
}

RowCombinations combinationsOfKeptRows(const SparseMatrixCSR& Cq, const std::vector<Index>& kept,
                                       const std::vector<Index>& dropped,
                                       const RowSupports* supports) {
  const Index nd = static_cast<Index>(dropped.size());
  RowCombinations out;
  out.supports.assign(dropped.size(), {});
  std::vector<std::optional<VecX>> values(dropped.size());
  const bool reuse = supports != nullptr && supports->size() == dropped.size();
  if (reuse) {
#pragma omp parallel for schedule(dynamic, 16)
    for (Index j = 0; j < nd; ++j) values[j] = solveOnSupport(Cq, dropped[j], (*supports)[j]);
  }
  std::vector<Index> unsolved;  // positions j
  for (Index j = 0; j < nd; ++j)
    if (values[j]) {
      out.supports[j] = (*supports)[j];
      ++out.reused;
    } else {
      unsolved.push_back(j);
    }

  // The rest on the whole matrix: C_K^T c = C_d^T for all of them at once, each column's
  // support read off its entries above kSupport of its largest, and the values solved again on
  // that support alone.
  std::vector<VecX> raw(unsolved.size());
  std::vector<std::vector<Index>> raw_rows(unsolved.size());
  if (!unsolved.empty()) {
    // In chunks of right-hand sides: each solution is filled with round-off on every row.
    constexpr std::size_t kChunk = 64;
    const SparseMatrixCSR kept_t(selectRows(Cq, kept).transpose());
    Eigen::SparseMatrix<double> whole;
    for (std::size_t u = 0; u < unsolved.size(); ++u) {
      if (u % kChunk == 0) {
        std::vector<Index> rows;
        for (std::size_t v = u; v < std::min(u + kChunk, unsolved.size()); ++v)
          rows.push_back(dropped[unsolved[v]]);
        whole = solveLeastSquares(kept_t, SparseMatrixCSR(selectRows(Cq, rows).transpose()));
      }
      std::vector<Index> rows;
      std::vector<double> values_of_rows;
      for (Eigen::SparseMatrix<double>::InnerIterator it(whole, static_cast<Index>(u % kChunk)); it;
           ++it) {
        rows.push_back(kept[it.row()]);
        values_of_rows.push_back(it.value());
      }
      const VecX column =
          Eigen::Map<const VecX>(values_of_rows.data(), static_cast<Index>(values_of_rows.size()));
      out.supports[unsolved[u]] = supportOf(rows, column);
      // The pruned values, kept in case the support does not represent the row.
      const double largest = column.size() > 0 ? column.cwiseAbs().maxCoeff() : 0.0;
      std::vector<double> kept_values;
      for (std::size_t k = 0; k < rows.size(); ++k)
        if (std::abs(values_of_rows[k]) > kFill * largest) {
          raw_rows[u].push_back(rows[k]);
          kept_values.push_back(values_of_rows[k]);
        }
      raw[u] = Eigen::Map<const VecX>(kept_values.data(), static_cast<Index>(kept_values.size()));
    }
    const Index nu = static_cast<Index>(unsolved.size());
#pragma omp parallel for schedule(dynamic, 16)
    for (Index u = 0; u < nu; ++u)
      values[unsolved[u]] = solveOnSupport(Cq, dropped[unsolved[u]], out.supports[unsolved[u]]);
    for (std::size_t u = 0; u < unsolved.size(); ++u) {
      const Index j = unsolved[u];
      ++out.found;
      if (values[j]) continue;
      // The support misses a row of the loop (an ill-conditioned solve): the pruned values.
      ++out.unclean;
      out.supports[j] = raw_rows[u];
      values[j] = raw[u];
    }
  }

  std::vector<Index> kept_index(Cq.rows(), -1);
  for (std::size_t k = 0; k < kept.size(); ++k) kept_index[kept[k]] = static_cast<Index>(k);
  std::vector<Eigen::Triplet<double>> entries;
  for (Index j = 0; j < nd; ++j)
    for (std::size_t k = 0; k < out.supports[j].size(); ++k)
      entries.emplace_back(static_cast<int>(kept_index[out.supports[j][k]]), static_cast<int>(j),
                           (*values[j])[static_cast<Index>(k)]);
  out.c.resize(static_cast<Index>(kept.size()), nd);
  out.c.setFromTriplets(entries.begin(), entries.end());
  return out;
}

}  // namespace catena
