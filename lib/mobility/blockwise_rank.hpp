#pragma once
/// @file blockwise_rank.hpp
/// Rank and redundant rows of a large constraint Jacobian A = C_q (m x n) block by block
/// (DESIGN.md, "QR projection, continuation, redundancy"): the bodies are partitioned into
/// blocks; the rows of a joint whose bodies are all in block b (the ground counts as in every
/// block) form A_bb, the other rows are the interface rows A_I. With Z = blockdiag(Z_b), Z_b an
/// orthonormal basis of the null space of A_bb,
///   rank(A) = sum_b rank(A_bb) + rank(A_I Z),
/// because the rows of A_I Z are the parts of the interface rows orthogonal to the row space
/// of the internal ones. rank(A_I Z) is found by the same idea one level up, recursively: a
/// merge tree over the blocks (a BlockTree) joins blocks into larger ones, and at each join the
/// interface rows that have become internal are factored in the basis of the null spaces found
/// so far. Every factorization is a QR with column pivoting of the transposed rows (the paper's
/// QRCP of A^T, section 2.5), so the whole computation is a QRCP of A^T in which the pivot order
/// is restricted by the tree: the rank decisions use the same threshold as the dense
/// analyzeConstraintRank (constraint_rank.hpp) would.
///
/// Threshold. The dense QRCP keeps |R_ii| > tol * |R_11|, and |R_11| is the largest row norm of
/// A (the first pivot is the longest column of A^T). Here every factorization, of a block or of
/// a join, keeps a pivot when its norm exceeds the absolute threshold tol * max_i |A(i, :)|: a
/// block's pivots are not judged against the block's own largest one (a block of short bars is
/// not up-scaled), and a join's pivots keep A's scale because Z has orthonormal columns.
///
/// Only the rows of Z that interface rows still have to see are kept (the columns of the
/// bodies at a block's boundary), and a basis is compressed, without loss, to the dimension of
/// those rows when it has more columns (a blocked Householder QR of its transpose): each merge
/// node costs O(s^3) for a boundary of size s, not the cube of its number of bodies. The trees
/// of block_tree.hpp keep s small for chains (s <= 2 bodies) and the merged lattice (two
/// couplers and a run of cranks), and near sqrt(cells) for the unmerged lattice (nested
/// dissection of the cell grid: O(m^1.5) in all, like a sparse QR of a 2D grid).
///
/// Parallelism (OpenMP): the blocks, then the merge nodes of each height of the tree, are
/// shared by a static schedule; each writes only its own results, into storage sized before
/// the parallel loop. When a height has fewer nodes than threads, its nodes are processed one
/// after the other and the work inside a factorization is split over columns instead. The
/// arithmetic of every entry is the same for any number of threads: results are bitwise equal.
/// (Eigen's products, fixed chunks of the level-3 updates, run inside those regions or with
/// one thread: Eigen's own split of a large product depends on the thread count.)

#include <string>
#include <vector>

#include "mobility/block_tree.hpp"
#include "mobility/constraint_rank.hpp"
#include "assembly/plan.hpp"

namespace catena {

/// Above this many velocity coordinates `catena mobility` takes the block-wise path: the dense
/// QRCP costs O(m n min(m, n)) time and O(n^2) memory for T (2000: about 1 s and 32 MB).
inline constexpr Index kDenseRankMaxCoordinates = 2000;

struct BlockwiseRankOptions {
  double tolerance = kDefaultRankTolerance;  ///< relative to the largest row norm of A
  /// Multiply-adds below which work stays on one thread: the blocks of phase 1, the merges of
  /// one height of the tree, and the loops of one Householder step (which open a region per
  /// step). On a machine shared with other work a parallel region can wait a whole time slice
  /// for a descheduled thread, so only work of several milliseconds is split. The result does
  /// not depend on it (nor on the number of threads); 0 splits everything (tests).
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

BlockFactor factorBlock(const MatX& B, double threshold);

}  // namespace catena
