#pragma once
/// @file blockwise_rank.hpp
/// Rank and redundant rows of a large constraint Jacobian A = C_q (m x n) block by block: the
/// rows inside each block of bodies are factored first (A_bb, null-space bases Z_b), then the
/// interface rows up a merge tree (BlockTree), by
///   rank(A) = sum_b rank(A_bb) + rank(A_I Z),   Z = blockdiag(Z_b).
/// Every factorization is a QRCP of transposed rows that keeps a pivot above the absolute
/// threshold tolerance * max_i |A(i, :)|, the threshold of the dense analyzeConstraintRank
/// (constraint_rank.hpp). OpenMP inside; results are bitwise equal for any thread count, and the
/// rank does not depend on the tree (its cost does). Method, threshold, merge sizes and
/// parallelism: docs/lattice-mobility.md, "How the block-wise rank works".

#include <string>
#include <vector>

#include "assembly/plan.hpp"
#include "mobility/block_tree.hpp"
#include "mobility/constraint_rank.hpp"

namespace catena {

/// Above this many velocity coordinates `catena mobility` takes the block-wise path (the dense
/// QRCP costs O(m n min(m, n)) time and O(n^2) memory; measured in docs/lattice-mobility.md).
inline constexpr Index kDenseRankMaxCoordinates = 2000;

struct BlockwiseRankOptions {
  double tolerance = kDefaultRankTolerance;  ///< relative to the largest row norm of A
  /// Multiply-adds below which work stays on one thread (the blocks of phase 1, the merges of
  /// one height of the tree, the loops of one Householder step; why: docs/lattice-mobility.md).
  /// The result does not depend on it; 0 splits everything (tests).
  double parallel_work = 1.6e7;
};

struct BlockwiseRank {
  Index n = 0, m = 0;  ///< velocity coordinates, constraint rows
  Index rank = 0;
  double tolerance = kDefaultRankTolerance;
  double largest_row_norm = 0.0;  ///< max_i |A(i, :)| = |R_11| of a global QRCP of A^T
  double threshold = 0.0;         ///< tolerance * largest_row_norm, on every |R_ii|
  /// Rows that depend on the others: for each factorization (blocks in order, then the merge
  /// steps in order of processing) the rows it left beyond its rank.
  std::vector<Index> redundant_rows;
  /// min |R_ii| / largest_row_norm over the retained pivots (0 if rank = 0), and the largest
  /// norm left unfactored (the next pivot) / largest_row_norm over all factorizations: how
  /// clear-cut the decisions were.
  double smallest_retained = 0.0, largest_dropped = 0.0;

  std::string blocking;               ///< the tree's description
  Index blocks = 0, merge_steps = 0;  ///< factorizations of phase 1 and phase 2
  Index internal_rows = 0;            ///< rows inside one block
  Index block_rank = 0;               ///< sum_b rank(A_bb)
  Index largest_block_cols = 0;       ///< max n_b
  Index largest_step_rows = 0;        ///< most rows joined in one merge step
  Index largest_step_cols = 0;        ///< widest basis at a merge step
  double setup_seconds = 0.0;         ///< classification of rows, sizes
  double block_seconds = 0.0;         ///< phase 1: QRCP of every A_bb^T, Z_b
  double interface_seconds = 0.0;     ///< phase 2: rank(A_I Z) up the tree
  std::size_t peak_bytes = 0;         ///< peak of the bases and workspaces held

  Index dof() const { return n - rank; }
  Index interfaceRows() const { return m - internal_rows; }
  Index interfaceRank() const { return rank - block_rank; }
};

/// Rank of A = C_q (nc x nv of `model`, any values) with the blocks and merges of `tree`.
/// Preconditions (checked): the tree covers every body once and is well formed.
/// Cost: sum over blocks of O(n_b^2 m_b) plus sum over merge steps of O(k^2 r + s k^2) for a
/// basis of k columns, r joined rows and s boundary coordinates.
BlockwiseRank analyzeBlockwiseRank(const Model& model, const SparseMatrixCSR& A,
                                   const BlockTree& tree, const BlockwiseRankOptions& options = {});

/// The same for the model's constraint Jacobian at (q, t).
BlockwiseRank analyzeBlockwiseRank(const Model& model, const AssemblyPlan& plan, const VecX& q,
                                   double t, const BlockTree& tree,
                                   const BlockwiseRankOptions& options = {});

/// One block's factorization, as phase 1 computes it (exposed for tests): QRCP of B^T with the
/// absolute `threshold` on |R_ii|.
struct BlockFactor {
  Index rank = 0;
  std::vector<Index> pivot_rows;  ///< rows of B: the first `rank` retained, then the others
  VecX pivots;                    ///< |R_ii|, i < rank
  double largest_dropped = 0.0;   ///< largest remaining column norm when factoring stopped
  MatX null_basis;                ///< n_b x (n_b - rank), orthonormal, B Z = 0 (to round-off)
};

/// QRCP of B^T (B: rows x n_b, dense), keeping pivots with |R_ii| > threshold (absolute).
BlockFactor factorBlock(const MatX& B, double threshold);

}  // namespace catena
