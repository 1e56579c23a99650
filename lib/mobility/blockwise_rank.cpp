#include "mobility/blockwise_rank.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <numeric>
#include <string>

#include "assembly/assemble.hpp"
#include "core/check.hpp"
#include "core/wall_clock.hpp"
#include "mobility/blockwise_plan.hpp"
#include "mobility/dense_qr.hpp"

namespace catena {
namespace {

using namespace blockwise;

/// Below this width the basis update applies the reflectors one by one (applyQFromRight).
constexpr Index kBlockedWidth = 48;

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMap = Eigen::Map<RowMat, 0, Eigen::OuterStride<>>;
using ConstRowMap = Eigen::Map<const RowMat, 0, Eigen::OuterStride<>>;
using ColMap = Eigen::Map<MatX>;
using ConstColMap = Eigen::Map<const MatX>;

// ---------------------------------------------------------------------------------------------
// The state of a node: the bodies at its boundary (those with joints still to be joined) and
// the rows of its null-space basis at their coordinates, Z_bd (nbd x k, row-major).

struct NodeBasis {
  std::vector<Index> boundary;  ///< bodies, in a fixed order
  std::vector<double> z;        ///< (boundary.size() * nv) x k, row-major
  Index k = 0;
};

/// Per-thread scratch, sized before the parallel loops.
struct Workspace {
  std::vector<double> x, w, y, z, t, s, tvec;
  std::vector<double> s_chunk, n_chunk;  ///< per-thread scratch of the blocked basis update
  std::vector<double> panel_v, panel_t, panel_w;  ///< blocked QR of a basis (qrInPlace)
  std::vector<double> tau, vn1, vn2;
  std::vector<Index> perm;
  NodeBasis acc[2];  ///< a merge's running result (ping-pong)
  std::size_t bytes() const {
    std::size_t b = (x.capacity() + w.capacity() + y.capacity() + z.capacity() + t.capacity() +
                     s.capacity() + tvec.capacity() + s_chunk.capacity() + n_chunk.capacity() +
                     panel_v.capacity() + panel_t.capacity() + panel_w.capacity() + tau.capacity() +
                     vn1.capacity() + vn2.capacity()) *
                        sizeof(double) +
                    perm.capacity() * sizeof(Index);
    for (const NodeBasis& a : acc)
      b += a.z.capacity() * sizeof(double) + a.boundary.capacity() * sizeof(Index);
    return b;
  }
};

void reserveAtLeast(std::vector<double>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
}
void reserveAtLeast(std::vector<Index>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
}

/// Runs body(i, workspace) for the chunks i in [0, count): over the threads when `parallel`,
/// each with its own workspace, else in order with `ws`. Eigen's products stay
/// single-threaded inside an active parallel region (and with one thread), so a chunk is the
/// same product, with the same bits, for any number of threads.
template <class Body>
void forChunks(Index count, bool parallel, Workspace& ws, std::vector<Workspace>* all,
               Body&& body) {
  if (parallel && all != nullptr) {
    FirstException failure;
#pragma omp parallel for schedule(static)
    for (Index i = 0; i < count; ++i) failure.run([&] { body(i, (*all)[omp_get_thread_num()]); });
    failure.rethrow();
  } else {
    for (Index i = 0; i < count; ++i) body(i, ws);
  }
}

/// Turns the first r columns of a factored X (K x ., leading dimension K) into V (unit lower
/// trapezoidal: the reflectors) and computes T (r x r, upper triangular, leading dimension r)
/// with H_0 ... H_{r-1} = I - V T V^T (LAPACK xLARFT, forward, columnwise), from the Gram
/// matrix V^T V: T(0:i, i) = -tau_i T(0:i, 0:i) (V^T V)(0:i, i).
void compactWY(double* X, Index K, Index r, const double* tau, double* T, bool parallel,
               Workspace& ws, std::vector<Workspace>* all) {
  for (Index i = 0; i < r; ++i) {
    double* v = X + std::size_t(i) * K;
    std::fill_n(v, i, 0.0);
    v[i] = 1.0;
  }
  const ConstColMap V(X, K, r);
  forChunks((r + kChunk - 1) / kChunk, parallel, ws, all, [&](Index ch, Workspace&) {
    const Index c0 = ch * kChunk, cc = std::min(kChunk, r - c0);
    ColMap(T + std::size_t(c0) * r, r, cc).noalias() = V.transpose() * V.middleCols(c0, cc);
  });
  std::vector<double>& t = ws.tvec;
  for (Index i = 0; i < r; ++i) {
    double* col = T + std::size_t(i) * r;
    for (Index j = 0; j < i; ++j) t[j] = -tau[i] * col[j];
    for (Index a = 0; a < i; ++a) {
      double sum = 0.0;
      for (Index b = a; b < i; ++b) sum += T[std::size_t(b) * r + a] * t[b];
      col[a] = sum;
    }
    col[i] = tau[i];
    std::fill(col + i + 1, col + r, 0.0);
  }
}

/// Columns per panel of the blocked QR that compresses a basis.
constexpr Index kPanel = 32;

/// Householder QR without pivoting of Y (rows x cols, column-major), in place; R in the upper
/// triangle (only R is used: it compresses a basis). Panels of kPanel columns are factored one
/// reflector at a time, the columns to their right updated with the panel's compact WY form,
/// C <- (I - V T^T V^T) C, in chunks of kChunk columns (each chunk the same products, the same
/// bits, whichever thread computes it). Workspace: ws.tau, panel_v, panel_t, panel_w.
void qrInPlace(double* Y, Index rows, Index cols, Workspace& ws, std::vector<Workspace>* all,
               bool parallel, double split) {
  const Index steps = std::min(rows, cols);
  if (cols < 2 * kPanel || rows < 2 * kPanel) {
    qrUnblocked(Y, rows, rows, cols, ws.tau.data(), split);
    return;
  }
  for (Index j0 = 0; j0 < steps; j0 += kPanel) {
    const Index jb = std::min(kPanel, steps - j0), pr = rows - j0, tc = cols - j0 - jb;
    double* panel = Y + std::size_t(j0) * rows + j0;
    qrUnblocked(panel, rows, pr, jb, ws.tau.data(), split);
    if (tc == 0) continue;
    double* V = ws.panel_v.data();  // pr x jb: the panel's reflectors
    for (Index c = 0; c < jb; ++c)
      std::copy_n(panel + std::size_t(c) * rows, pr, V + std::size_t(c) * pr);
    compactWY(V, pr, jb, ws.tau.data(), ws.panel_t.data(), parallel, ws, all);
    const ConstColMap Vm(V, pr, jb), T(ws.panel_t.data(), jb, jb);
    double* C = panel + std::size_t(jb) * rows;
    forChunks((tc + kChunk - 1) / kChunk, parallel, ws, all, [&](Index ch, Workspace& own) {
      const Index c0 = ch * kChunk, cc = std::min(kChunk, tc - c0);
      Eigen::Map<MatX, 0, Eigen::OuterStride<>> Cm(C + std::size_t(c0) * rows, pr, cc,
                                                   Eigen::OuterStride<>(rows));
      ColMap W(own.panel_w.data(), jb, cc), TW(own.panel_w.data() + kPanel * kChunk, jb, cc);
      W.noalias() = Vm.transpose() * Cm;
      TW.noalias() = T.transpose().triangularView<Eigen::Lower>() * W;
      Cm.noalias() -= Vm * TW;
    });
  }
}

/// The new basis at the boundary: Z = W Q[:, r:] (nbd x (K - r), row-major) for
/// W = [A_rem 0; 0 C_rem] (na x ka over nc x kc, nbd = na + nc, K = ka + kc) and the r
/// reflectors in X. Three ways, chosen by sizes only (so by the same rule for any thread
/// count): below kBlockedWidth the reflectors one at a time; else the compact WY form
/// Q = I - V T V^T, either forming N = Q[:, r:] = E - V (T V2^T) and multiplying the two
/// blocks of W by it, or as Z = W[:, r:] - (W V)(T V2^T), whichever takes fewer operations.
void updateBasis(double* X, Index K, Index r, const double* tau, Index ka, Index na, Index nbd,
                 const double* Arem, const double* Crem, double* Z, Workspace& ws,
                 std::vector<Workspace>* all, bool parallel, double split) {
  const Index kc = K - ka, nc = nbd - na, kn = K - r;
  if (nbd == 0 || kn == 0) return;
  // Row i of W, columns r.. (the part of W Q that survives when there is nothing to apply).
  auto wTail = [&](Index i, double* out) {
    std::fill_n(out, kn, 0.0);
    if (i < na) {
      if (r < ka) std::copy_n(Arem + std::size_t(i) * ka + r, ka - r, out);
    } else {
      const double* c = Crem + std::size_t(i - na) * kc;
      if (r <= ka)
        std::copy_n(c, kc, out + (ka - r));
      else
        std::copy_n(c + (r - ka), K - r, out);
    }
  };
  if (r == 0 || K < kBlockedWidth) {
    double* W = ws.y.data();
    std::fill_n(W, std::size_t(nbd) * K, 0.0);
    for (Index i = 0; i < na; ++i)
      std::copy_n(Arem + std::size_t(i) * ka, ka, W + std::size_t(i) * K);
    for (Index i = na; i < nbd; ++i)
      std::copy_n(Crem + std::size_t(i - na) * kc, kc, W + std::size_t(i) * K + ka);
    applyQFromRight(W, nbd, K, X, K, r, tau, split);
    for (Index i = 0; i < nbd; ++i)
      std::copy_n(W + std::size_t(i) * K + r, kn, Z + std::size_t(i) * kn);
    return;
  }
  compactWY(X, K, r, tau, ws.t.data(), parallel, ws, all);
  const ConstColMap V(X, K, r), T(ws.t.data(), r, r);
  const double blocks = double(na) * ka + double(nc) * kc;
  const double viaN = 2.0 * K * r * kn + 2.0 * blocks * kn;
  const double viaRows = 2.0 * blocks * r + 2.0 * nbd * r * kn;
  if (viaN <= viaRows) {
    forChunks((kn + kChunk - 1) / kChunk, parallel, ws, all, [&](Index ch, Workspace& own) {
      const Index c0 = ch * kChunk, cc = std::min(kChunk, kn - c0);
      ColMap S(own.s_chunk.data(), r, cc), N(own.n_chunk.data(), K, cc);
      S.noalias() = T.triangularView<Eigen::Upper>() * V.middleRows(r + c0, cc).transpose();
      N.noalias() = -V * S;
      for (Index c = 0; c < cc; ++c) N(r + c0 + c, c) += 1.0;
      if (na > 0)
        RowMap(Z + c0, na, cc, Eigen::OuterStride<>(kn)).noalias() =
            ConstRowMap(Arem, na, ka, Eigen::OuterStride<>(ka)) * N.topRows(ka);
      if (nc > 0)
        RowMap(Z + std::size_t(na) * kn + c0, nc, cc, Eigen::OuterStride<>(kn)).noalias() =
            ConstRowMap(Crem, nc, kc, Eigen::OuterStride<>(kc)) * N.bottomRows(kc);
    });
    return;
  }
  // S = T V2^T (r x kn), then row chunks of Z = W[:, r:] - (W V) S.
  double* Sbuf = ws.s.data();
  forChunks((kn + kChunk - 1) / kChunk, parallel, ws, all, [&](Index ch, Workspace&) {
    const Index c0 = ch * kChunk, cc = std::min(kChunk, kn - c0);
    ColMap(Sbuf + std::size_t(c0) * r, r, cc).noalias() =
        T.triangularView<Eigen::Upper>() * V.middleRows(r + c0, cc).transpose();
  });
  const ConstColMap S(Sbuf, r, kn);
  const Index chunks_a = (na + kChunk - 1) / kChunk, chunks_c = (nc + kChunk - 1) / kChunk;
  forChunks(chunks_a + chunks_c, parallel, ws, all, [&](Index ch, Workspace& own) {
    const bool from_a = ch < chunks_a;
    const Index i0 = from_a ? ch * kChunk : na + (ch - chunks_a) * kChunk;
    const Index ic = std::min(kChunk, (from_a ? na : nbd) - i0);
    ColMap Pm(own.s_chunk.data(), ic, r);
    if (from_a)
      Pm.noalias() = ConstRowMap(Arem + std::size_t(i0) * ka, ic, ka, Eigen::OuterStride<>(ka)) *
                     V.topRows(ka);
    else
      Pm.noalias() =
          ConstRowMap(Crem + std::size_t(i0 - na) * kc, ic, kc, Eigen::OuterStride<>(kc)) *
          V.bottomRows(kc);
    for (Index i = 0; i < ic; ++i) wTail(i0 + i, Z + std::size_t(i0 + i) * kn);
    RowMap(Z + std::size_t(i0) * kn, ic, kn, Eigen::OuterStride<>(kn)).noalias() -= Pm * S;
  });
}

/// Eigen's products on one thread while this lives. Outside a parallel region Eigen splits a
/// large product over omp_get_max_threads() threads, with blocking sizes that depend on the
/// count, which can change the bits; inside the parallel regions here it never splits. The
/// setting is the calling thread's own (nthreads-var), restored on exit.
class OneEigenThread {
 public:
  OneEigenThread() : saved_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~OneEigenThread() { omp_set_num_threads(saved_); }
  OneEigenThread(const OneEigenThread&) = delete;
  OneEigenThread& operator=(const OneEigenThread&) = delete;

 private:
  int saved_;
};

/// Results of one factorization, merged into the report in a fixed order afterwards.
struct StepRecord {
  Index rank = 0;
  double smallest_retained = 0.0, largest_dropped = 0.0;
  std::vector<Index> redundant;
  Index rows = 0, cols = 0;

  /// Fills the record from a QRCP of a rows x cols matrix whose column i is constraint row
  /// row_ids[i]; perm is the QRCP's pivot order.
  void record(const QrcpOutcome& q, Index m, Index n, const Index* row_ids, const Index* perm) {
    rank = q.rank;
    smallest_retained = q.smallest_retained;
    largest_dropped = q.largest_dropped;
    rows = m;
    cols = n;
    redundant.clear();
    for (Index i = q.rank; i < m; ++i) redundant.push_back(row_ids[perm[i]]);
  }
};

/// Stores W's trailing columns (the new basis, nbd x k, row stride ld) in `out`, compressed to
/// nbd columns when k > nbd: Z = R^T Q^T with Z^T = Q R, and Z Q = R^T has the same rows'
/// geometry (Gram matrix) in nbd columns, which is all later joins see.
void storeBasis(const double* W, Index nbd, Index ld, Index first, Index k, Workspace& ws,
                NodeBasis& out, std::vector<Workspace>* all, bool parallel, double split) {
  if (k <= nbd) {
    out.k = k;
    out.z.resize(std::size_t(nbd) * k);
    for (Index i = 0; i < nbd; ++i)
      std::copy_n(W + std::size_t(i) * ld + first, k, out.z.data() + std::size_t(i) * k);
    return;
  }
  // Z^T (k x nbd, column-major) is Z row-major: column i = row i of Z.
  double* Y = ws.y.data();
  for (Index i = 0; i < nbd; ++i)
    std::copy_n(W + std::size_t(i) * ld + first, k, Y + std::size_t(i) * k);
  qrInPlace(Y, k, nbd, ws, all, parallel, split);
  out.k = nbd;
  out.z.assign(std::size_t(nbd) * nbd, 0.0);
  for (Index i = 0; i < nbd; ++i)
    for (Index c = 0; c <= i; ++c) out.z[std::size_t(i) * nbd + c] = Y[std::size_t(i) * k + c];
}

/// Phase 1 for one block: X = A_bb^T, QRCP, then the boundary rows of Z_b = Q[:, r:].
void factorLeaf(const Plan& P, const SparseMatrixCSR& A, const BlockTree& tree, Index blk,
                double threshold, Workspace& ws, NodeBasis& out, StepRecord& rec) {
  const std::vector<Index>& bodies = tree.blocks[blk];
  const Index nv = P.nv;
  const Index n = static_cast<Index>(bodies.size()) * nv;
  const Index r0 = P.leaf_row_start[blk], m = P.leaf_row_start[blk + 1] - r0;
  double* X = ws.x.data();
  std::fill_n(X, std::size_t(n) * m, 0.0);
  for (Index i = 0; i < m; ++i) {
    const Index row = P.leaf_rows[r0 + i];
    for (SparseMatrixCSR::InnerIterator it(A, row); it; ++it) {
      const Index b = it.col() / nv;
      X[std::size_t(i) * n + P.local_of[b] * nv + it.col() % nv] = it.value();
    }
  }
  const QrcpOutcome q = qrcpInPlace(X, n, m, threshold, ws.perm.data(), ws.tau.data(),
                                    ws.vn1.data(), ws.vn2.data(), kNoSplit);
  rec.record(q, m, n, P.leaf_rows.data() + r0, ws.perm.data());
  // Boundary rows of Q: unit rows e_c^T Q for the boundary coordinates c.
  const std::vector<Index>& bd = P.boundary[blk];
  const Index nbd = static_cast<Index>(bd.size()) * nv;
  double* W = ws.w.data();
  std::fill_n(W, std::size_t(nbd) * n, 0.0);
  for (std::size_t i = 0; i < bd.size(); ++i)
    for (Index d = 0; d < nv; ++d)
      W[(i * nv + d) * std::size_t(n) + P.local_of[bd[i]] * nv + d] = 1.0;
  applyQFromRight(W, nbd, n, X, n, q.rank, ws.tau.data(), kNoSplit);
  out.boundary = bd;
  storeBasis(W, nbd, n, q.rank, n - q.rank, ws, out, nullptr, false, kNoSplit);
}

/// Position of each boundary body's rows in its holder's basis, and which holder (0: the
/// running result, 1: the child being joined). Written only for the bodies of the node at hand.
struct BodySlots {
  std::vector<Index> row;
  std::vector<char> side;
};

/// Phase 2 for one merge node: join its children in order.
void factorMerge(const Plan& P, const SparseMatrixCSR& A, const BlockTree& tree, Index node,
                 double threshold, std::vector<NodeBasis>& bases, Workspace& ws, BodySlots& slots,
                 std::vector<StepRecord>& recs, std::vector<Workspace>* all, double split_work) {
  // all != nullptr: this node has the threads to itself (they split its larger loops).
  const bool parallel = all != nullptr;
  const double split = parallel ? split_work : kNoSplit;
  const Index j = node - P.nblocks;
  const std::vector<Index>& ch = tree.merges[j];
  const Index nv = P.nv;
  int cur = 0;
  NodeBasis* acc = &ws.acc[cur];
  acc->boundary = bases[ch[0]].boundary;
  acc->k = bases[ch[0]].k;
  acc->z.assign(bases[ch[0]].z.begin(), bases[ch[0]].z.end());
  for (std::size_t s = 1; s < ch.size(); ++s) {
    const NodeBasis& c = bases[ch[s]];
    const Index ka = acc->k, kc = c.k, K = ka + kc;
    const Index g = P.step_start[j] + static_cast<Index>(s) - 1;
    const Index r0 = P.step_row_start[g], m = P.step_row_start[g + 1] - r0;
    for (std::size_t i = 0; i < acc->boundary.size(); ++i) {
      slots.row[acc->boundary[i]] = static_cast<Index>(i) * nv;
      slots.side[acc->boundary[i]] = 0;
    }
    for (std::size_t i = 0; i < c.boundary.size(); ++i) {
      slots.row[c.boundary[i]] = static_cast<Index>(i) * nv;
      slots.side[c.boundary[i]] = 1;
    }
    // X = (A_rows Z)^T: column i = row i in the two bases, [Z_acc^T a; Z_c^T a].
    double* X = ws.x.data();
    const bool par_x = double(m) * double(K) * 2.0 * nv > split;
    loop(0, m, par_x, [&](Index i) {
      double* x = X + std::size_t(i) * K;
      std::fill_n(x, K, 0.0);
      for (SparseMatrixCSR::InnerIterator it(A, P.step_rows[r0 + i]); it; ++it) {
        const Index b = it.col() / nv;
        const Index zr = slots.row[b] + it.col() % nv;
        if (slots.side[b] == 0)
          axpy(x, it.value(), acc->z.data() + std::size_t(zr) * ka, ka);
        else
          axpy(x + ka, it.value(), c.z.data() + std::size_t(zr) * kc, kc);
      }
    });
    const QrcpOutcome q = qrcpInPlace(X, K, m, threshold, ws.perm.data(), ws.tau.data(),
                                      ws.vn1.data(), ws.vn2.data(), split);
    recs[g].record(q, m, K, P.step_rows.data() + r0, ws.perm.data());
    // New boundary and W = blockdiag(Z_acc, Z_c) on its rows; then W Q, keep Q's last columns.
    NodeBasis* nxt = &ws.acc[1 - cur];
    nxt->boundary.clear();
    for (Index b : acc->boundary)
      if (stillBoundary(P, b, node, static_cast<Index>(s))) nxt->boundary.push_back(b);
    const Index from_acc = static_cast<Index>(nxt->boundary.size());
    for (Index b : c.boundary)
      if (stillBoundary(P, b, node, static_cast<Index>(s))) nxt->boundary.push_back(b);
    const Index nbd = static_cast<Index>(nxt->boundary.size()) * nv;
    const Index na = from_acc * nv, kn = K - q.rank;
    // Rows of the two bases that stay at the boundary: A_rem (na x ka), C_rem ((nbd-na) x kc).
    double* Arem = ws.w.data();
    double* Crem = Arem + std::size_t(na) * ka;
    for (Index i = 0; i < static_cast<Index>(nxt->boundary.size()); ++i) {
      const Index b = nxt->boundary[i];
      for (Index d = 0; d < nv; ++d) {
        if (i < from_acc)
          std::copy_n(acc->z.data() + std::size_t(slots.row[b] + d) * ka, ka,
                      Arem + std::size_t(i * nv + d) * ka);
        else
          std::copy_n(c.z.data() + std::size_t(slots.row[b] + d) * kc, kc,
                      Crem + std::size_t(i * nv + d - na) * kc);
      }
    }
    double* Z = ws.z.data();  // nbd x kn, row-major
    updateBasis(X, K, q.rank, ws.tau.data(), ka, na, nbd, Arem, Crem, Z, ws, all, parallel, split);
    storeBasis(Z, nbd, kn, 0, kn, ws, *nxt, all, parallel, split);
    cur = 1 - cur;
    acc = nxt;
  }
  NodeBasis& out = bases[node];
  out.boundary = acc->boundary;
  out.k = acc->k;
  out.z.assign(acc->z.begin(), acc->z.end());
}

}  // namespace

// ---------------------------------------------------------------------------------------------

BlockwiseRank analyzeBlockwiseRank(const Model& model, const SparseMatrixCSR& A,
                                   const BlockTree& tree, const BlockwiseRankOptions& options) {
  CATENA_CHECK(options.tolerance > 0.0 && options.tolerance < 1.0,
               "the rank tolerance must be in (0, 1), got " << options.tolerance);
  CATENA_CHECK(A.rows() == model.nc && A.cols() == model.nv,
               "block-wise rank: A is " << A.rows() << " x " << A.cols() << ", the model's C_q is "
                                        << model.nc << " x " << model.nv);
  const WallClock::time_point t0 = WallClock::now();
  BlockwiseRank out;
  out.n = model.nv;
  out.m = model.nc;
  out.tolerance = options.tolerance;
  out.blocking = tree.description;
  CATENA_CHECK(options.parallel_work >= 0.0, "parallel_work must be >= 0");
  for (Index i = 0; i < A.rows(); ++i)
    out.largest_row_norm = std::max(out.largest_row_norm, A.row(i).norm());
  out.threshold = options.tolerance * out.largest_row_norm;
  if (model.bodies.empty()) return out;
  const Plan P = buildPlan(model, tree);
  const int threads = omp_get_max_threads();
  std::vector<Workspace> ws(threads);
  for (Workspace& w : ws) {
    reserveAtLeast(w.x, P.max_x);
    reserveAtLeast(w.w, P.max_w);
    reserveAtLeast(w.y, P.max_y);
    reserveAtLeast(w.z, P.max_w);
    reserveAtLeast(w.t, P.max_t);
    reserveAtLeast(w.s, P.max_s);
    reserveAtLeast(w.tvec, P.max_cols);
    reserveAtLeast(w.s_chunk, P.max_cols * kChunk);
    reserveAtLeast(w.n_chunk, P.max_cols * kChunk);
    reserveAtLeast(w.panel_v, P.max_cols * kPanel);
    reserveAtLeast(w.panel_t, kPanel * kPanel);
    reserveAtLeast(w.panel_w, 2 * kPanel * kChunk);
    reserveAtLeast(w.tau, P.max_cols);
    reserveAtLeast(w.vn1, P.max_cols);
    reserveAtLeast(w.vn2, P.max_cols);
    reserveAtLeast(w.perm, P.max_cols);
    // A basis has at most as many columns as boundary coordinates.
    const std::size_t nbd = P.max_boundary * P.nv;
    for (NodeBasis& a : w.acc) {
      a.z.reserve(nbd * nbd);
      a.boundary.reserve(P.max_boundary);
    }
  }
  std::vector<NodeBasis> bases(P.nnodes);
  std::vector<StepRecord> leaf_recs(P.nblocks), step_recs(P.step_start.back());
  for (Index blk = 0; blk < P.nblocks; ++blk)
    leaf_recs[blk].redundant.reserve(P.leaf_row_start[blk + 1] - P.leaf_row_start[blk]);
  for (std::size_t g = 0; g < step_recs.size(); ++g)
    step_recs[g].redundant.reserve(P.step_row_start[g + 1] - P.step_row_start[g]);
  BodySlots slots;
  slots.row.assign(model.bodies.size(), 0);
  slots.side.assign(model.bodies.size(), 0);
  std::size_t live = 0;  // bytes of bases held
  auto basisBytes = [](const NodeBasis& b) {
    return b.z.capacity() * sizeof(double) + b.boundary.capacity() * sizeof(Index);
  };
  std::size_t ws_bytes = 0;
  for (const Workspace& w : ws) ws_bytes += w.bytes();
  out.setup_seconds = secondsSince(t0);

  // Phase 1: the blocks. Their results are sized before the loop (an upper bound: the basis
  // has at most min(n_b, boundary) columns).
  const WallClock::time_point t1 = WallClock::now();
  for (Index blk = 0; blk < P.nblocks; ++blk) {
    const std::size_t nbd = P.boundary[blk].size() * P.nv;
    const std::size_t nbk = tree.blocks[blk].size() * P.nv;
    bases[blk].z.reserve(nbd * std::min(nbd, nbk));
    bases[blk].boundary.reserve(P.boundary[blk].size());
  }
  double block_work = 0.0;
  for (Index blk = 0; blk < P.nblocks; ++blk) block_work += P.work[blk];
  if (block_work > options.parallel_work) {
    FirstException failure;
#pragma omp parallel for schedule(static)
    for (Index blk = 0; blk < P.nblocks; ++blk)
      failure.run([&] {
        factorLeaf(P, A, tree, blk, out.threshold, ws[omp_get_thread_num()], bases[blk],
                   leaf_recs[blk]);
      });
    failure.rethrow();
  } else {
    const OneEigenThread serial;
    for (Index blk = 0; blk < P.nblocks; ++blk)
      factorLeaf(P, A, tree, blk, out.threshold, ws[0], bases[blk], leaf_recs[blk]);
  }
  for (Index blk = 0; blk < P.nblocks; ++blk) live += basisBytes(bases[blk]);
  out.peak_bytes = live + ws_bytes;
  out.block_seconds = secondsSince(t1);

  // Phase 2: the merges, height by height. A height with few nodes runs them one after the
  // other with the threads inside each factorization.
  const WallClock::time_point t2 = WallClock::now();
  for (const std::vector<Index>& level : P.by_height) {
    const Index count = static_cast<Index>(level.size());
    for (Index node : level) {
      const std::size_t nbd = P.boundary[node].size() * P.nv;
      bases[node].z.reserve(nbd * nbd);
      bases[node].boundary.reserve(P.boundary[node].size());
    }
    double height_work = 0.0;
    for (Index node : level) height_work += P.work[node];
    if (height_work <= options.parallel_work) {
      const OneEigenThread serial;
      for (Index i = 0; i < count; ++i)
        factorMerge(P, A, tree, level[i], out.threshold, bases, ws[0], slots, step_recs, nullptr,
                    kNoSplit);
    } else if (count >= threads) {
      FirstException failure;
#pragma omp parallel for schedule(static)
      for (Index i = 0; i < count; ++i)
        failure.run([&] {
          factorMerge(P, A, tree, level[i], out.threshold, bases, ws[omp_get_thread_num()], slots,
                      step_recs, nullptr, kNoSplit);
        });
      failure.rethrow();
    } else {
      for (Index i = 0; i < count; ++i)
        factorMerge(P, A, tree, level[i], out.threshold, bases, ws[0], slots, step_recs, &ws,
                    options.parallel_work);
    }
    for (Index node : level) live += basisBytes(bases[node]);
    out.peak_bytes = std::max(out.peak_bytes, live + ws_bytes);
    // The children's bases are no longer needed.
    for (Index node : level)
      for (Index child : tree.merges[node - P.nblocks]) {
        live -= basisBytes(bases[child]);
        bases[child] = NodeBasis{};
      }
  }
  out.interface_seconds = secondsSince(t2);

  // The report, in a fixed order: blocks, then merge steps in tree order.
  double smallest = std::numeric_limits<double>::infinity();
  auto take = [&](const StepRecord& r) {
    out.rank += r.rank;
    if (r.rank > 0) smallest = std::min(smallest, r.smallest_retained);
    out.largest_dropped = std::max(out.largest_dropped, r.largest_dropped);
    out.redundant_rows.insert(out.redundant_rows.end(), r.redundant.begin(), r.redundant.end());
  };
  for (const StepRecord& r : leaf_recs) {
    take(r);
    out.internal_rows += r.rows;
    out.largest_block_cols = std::max(out.largest_block_cols, r.cols);
  }
  out.block_rank = out.rank;
  for (const StepRecord& r : step_recs) {
    take(r);
    out.largest_step_rows = std::max(out.largest_step_rows, r.rows);
    out.largest_step_cols = std::max(out.largest_step_cols, r.cols);
  }
  out.blocks = P.nblocks;
  out.merge_steps = static_cast<Index>(step_recs.size());
  const double scale = out.largest_row_norm > 0.0 ? out.largest_row_norm : 1.0;
  out.smallest_retained = out.rank > 0 ? smallest / scale : 0.0;
  out.largest_dropped /= scale;
  return out;
}

BlockwiseRank analyzeBlockwiseRank(const Model& model, const AssemblyPlan& plan, const VecX& q,
                                   double t, const BlockTree& tree,
                                   const BlockwiseRankOptions& options) {
  SparseMatrixCSR Cq = makeConstraintMatrix(plan);
  assembleConstraints(model, plan, q, t, nullptr, &Cq);
  return analyzeBlockwiseRank(model, Cq, tree, options);
}

BlockFactor factorBlock(const MatX& B, double threshold) {
  const Index m = static_cast<Index>(B.rows()), n = static_cast<Index>(B.cols());
  MatX X = B.transpose();
  std::vector<Index> perm(std::max<Index>(m, 1));
  std::vector<double> tau(std::max<Index>(std::min(m, n), 1)), vn1(perm.size()), vn2(perm.size());
  const QrcpOutcome q = qrcpInPlace(X.data(), n, m, threshold, perm.data(), tau.data(), vn1.data(),
                                    vn2.data(), kNoSplit);
  BlockFactor f;
  f.rank = q.rank;
  f.pivot_rows.assign(perm.begin(), perm.begin() + m);
  f.largest_dropped = q.largest_dropped;
  f.pivots.resize(q.rank);
  for (Index i = 0; i < q.rank; ++i) f.pivots(i) = std::abs(X(i, i));
  // Z = Q[:, r:]: rows of the identity times Q, trailing columns.
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> W =
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>::Identity(n, n);
  applyQFromRight(W.data(), n, n, X.data(), n, q.rank, tau.data(), kNoSplit);
  f.null_basis = W.rightCols(n - q.rank);
  return f;
}

}  // namespace catena
