#include "solvers/kkt_ordering.hpp"

#include <algorithm>

#include <amd.h>
#include <btf.h>
#include <camd.h>

#include "core/check.hpp"

namespace catena {

bool saddlePointPivotOrder(int N, int n, const int* Ap, const int* Ai, std::vector<int>& P,
                           std::vector<int>& Q, const std::vector<char>& last,
                           const std::vector<int>& groups) {
  P.clear();
  Q.clear();
  const int m = N - n;
  if (n <= 0 || m <= 0) return false;
  for (int k = Ap[n]; k < Ap[N]; ++k)
    if (Ai[k] >= n) return false;  // the (2,2) block is not empty
  // Columns n..N-1 of F hold B's rows (their coordinate entries): as compressed columns they
  // are B^T (n rows, m columns), whose maximum transversal matches every multiplier r with a
  // coordinate c with B(r, c) != 0. Work arrays: btf_maxtrans's contract.
  std::vector<int> bt_start(m + 1);
  for (int r = 0; r <= m; ++r) bt_start[r] = Ap[n + r] - Ap[n];
  std::vector<int> match(n), work(5 * m);
  double btf_work = 0.0;
  const int matched = btf_maxtrans(n, m, bt_start.data(), const_cast<int*>(Ai + Ap[n]), 0.0,
                                   &btf_work, match.data(), work.data());
  if (matched != m) return false;
  // Each matched pair (coordinate c, multiplier n + r) is one node of the graph that AMD
  // orders, and is eliminated as c, then n + r: c's pivot is A's diagonal, and eliminating it
  // fills in n + r's (-B(r, c)^2 / A(c, c)). So the order is symmetric (P = Q), the fill that of
  // the coordinates' graph, and no multiplier comes before a coordinate of its row.
  // Nodes: the coordinates' groups (each coordinate its own by default), each with the
  // multipliers matched to its coordinates.
  int nodes = n;
  if (!groups.empty()) {
    if (groups.size() != static_cast<std::size_t>(n)) return false;
    nodes = 0;
    for (int g : groups) {
      if (g < 0) return false;
      nodes = std::max(nodes, g + 1);
    }
  }
  std::vector<int> node(N, -1);
  for (int c = 0; c < n; ++c) {
    node[c] = groups.empty() ? c : groups[c];
    if (match[c] >= 0) node[n + match[c]] = node[c];
  }
  for (int c = 0; c < n; ++c) {
    bool diagonal = false;
    for (int k = Ap[c]; k < Ap[c + 1] && !diagonal; ++k) diagonal = Ai[k] == c;
    if (!diagonal) return false;
  }
  std::vector<int> g_start(nodes + 1, 0), g_rows;
  g_rows.reserve(Ap[N]);
  // Compressed columns of the nodes' graph: the entries of all columns of a node.
  std::vector<std::vector<int>> members(nodes);
  for (int j = 0; j < N; ++j) members[node[j]].push_back(j);
  for (int v = 0; v < nodes; ++v) {
    for (int j : members[v])
      for (int k = Ap[j]; k < Ap[j + 1]; ++k)
        if (node[Ai[k]] != v) g_rows.push_back(node[Ai[k]]);
    g_start[v + 1] = static_cast<int>(g_rows.size());
  }
  std::vector<int> order(nodes);
  if (last.empty()) {
    double control[AMD_CONTROL], info[AMD_INFO];
    amd_defaults(control);
    const int status = amd_order(nodes, g_start.data(), g_rows.data(), order.data(), control, info);
    if (status != AMD_OK && status != AMD_OK_BUT_JUMBLED) return false;
  } else {
    // CAMD: the nodes with a flagged column (constraint set 1) after all others (set 0).
    std::vector<int> set(nodes, 0);
    for (int j = 0; j < N; ++j)
      if (last[j]) set[node[j]] = 1;
    double control[CAMD_CONTROL], info[CAMD_INFO];
    camd_defaults(control);
    const int status =
        camd_order(nodes, g_start.data(), g_rows.data(), order.data(), control, info, set.data());
    if (status != CAMD_OK && status != CAMD_OK_BUT_JUMBLED) return false;
  }
  // Within a node: its coordinates, then the multipliers whose equation holds a coordinate of
  // the node whose own equation holds the multiplier (that coordinate's elimination fills the
  // multiplier's diagonal), then the others (IDA's position multipliers, filled only by a
  // second coordinate). 56 x 56 merged lattice, IDA: nnz(U) 5.3e6 in index order, 1.3e6 so
  // (hand probes, docs/dynamics-ida.md).
  auto holds = [&](int equation, int unknown) {
    for (int k = Ap[equation]; k < Ap[equation + 1]; ++k)
      if (Ai[k] == unknown) return true;
    return false;
  };
  std::vector<char> late(N, 0);
  for (int j = n; j < N; ++j) {
    bool filled = false;
    for (int k = Ap[j]; k < Ap[j + 1] && !filled; ++k)
      filled = node[Ai[k]] == node[j] && holds(Ai[k], j);
    late[j] = !filled;
  }
  P.reserve(N);
  for (int v : order) {
    for (int j : members[v])
      if (!late[j]) P.push_back(j);
    for (int j : members[v])
      if (late[j]) P.push_back(j);
  }
  Q = P;
  return true;
}

bool matchedOrder(int N, const int* Ap, const int* Ai, const std::vector<char>& last,
                  double maxwork, std::vector<int>& P, std::vector<int>& Q) {
  P.clear();
  Q.clear();
  std::vector<int> match(N), work(5 * static_cast<std::size_t>(N));
  double btf_work = 0.0;
  const int matched = btf_maxtrans(N, N, const_cast<int*>(Ap), const_cast<int*>(Ai), maxwork,
                                   &btf_work, match.data(), work.data());
  if (matched < N) return false;
  // match[i]: the column of F matched to row i. B = F with row i renamed match[i] has a
  // structurally nonzero diagonal; node j of B is column j and row row_of[j] of F.
  std::vector<int> row_of(N);
  for (int i = 0; i < N; ++i) row_of[match[i]] = i;
  // CAMD orders the pattern of B + B^T and, given B's columns (unsorted after the renaming),
  // first builds B^T with sorted columns (camd_preprocess: a fifth of its time, 5·10^5-link
  // chain blocks). With F structurally symmetric, column c of B^T is row row_of[c] of F, that
  // is column row_of[c] of F, sorted as F's are: B^T is F's columns in the order row_of, which
  // is what CAMD would have built, so the order is the same (bits included).
  std::vector<int> Tp(N + 1, 0), Ti(Ap[N]);
  for (int c = 0; c < N; ++c) {
    const int j = row_of[c];
    Tp[c + 1] = Tp[c] + (Ap[j + 1] - Ap[j]);
    std::copy(Ai + Ap[j], Ai + Ap[j + 1], Ti.begin() + Tp[c]);
  }
  std::vector<int> set(N, 0);
  for (int j = 0; j < N; ++j)
    if ((!last.empty() && (last[j] || last[row_of[j]]))) set[j] = 1;
  std::vector<int> order(N);
  double control[CAMD_CONTROL], info[CAMD_INFO];
  camd_defaults(control);
  const int status = camd_order(N, Tp.data(), Ti.data(), order.data(), control, info, set.data());
  CATENA_CHECK(
      status == CAMD_OK || status == CAMD_OK_BUT_JUMBLED,
      "CAMD could not order a " << N << " x " << N << " pattern (status " << status << ")");
  Q = order;
  P.resize(N);
  for (int k = 0; k < N; ++k) P[k] = row_of[order[k]];
  return true;
}

std::vector<int> constrainedOrder(int N, const int* Ap, const int* Ai,
                                  const std::vector<char>& last) {
  std::vector<int> order(N), set(last.begin(), last.end());
  if (Ap[N] == 0) {  // no entries (CAMD calls that invalid): any order is as good
    for (int j = 0; j < N; ++j) order[j] = j;
    return order;
  }
  set.resize(N, 0);
  double control[CAMD_CONTROL], info[CAMD_INFO];
  camd_defaults(control);
  const int status = camd_order(N, Ap, Ai, order.data(), control, info, set.data());
  CATENA_CHECK(
      status == CAMD_OK || status == CAMD_OK_BUT_JUMBLED,
      "CAMD could not order a " << N << " x " << N << " pattern (status " << status << ")");
  return order;
}

}  // namespace catena
