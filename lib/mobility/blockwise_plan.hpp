#pragma once
/// @file blockwise_plan.hpp
/// (mobility/ internal.) The plan of the block-wise rank (blockwise_rank.hpp): the tree's shape,
/// the rows of every factorization and the workspace sizes, made once from the model and the
/// block tree before any factorization.

#include <cstddef>
#include <vector>

#include "mobility/block_tree.hpp"
#include "model/model.hpp"

namespace catena::blockwise {

/// Columns per chunk of the blocked basis update; fixed, so each chunk is the same product
/// (same sizes, same bits) whichever thread computes it.
constexpr Index kChunk = 128;

/// Everything the two phases read: the tree's shape and the rows of each factorization.
struct Plan {
  Index nv = 0;  ///< velocity coordinates per body
  Index nblocks = 0, nnodes = 0;
  std::vector<Index> parent, position, depth, height;
  std::vector<Index> leaf_of;         ///< per body
  std::vector<Index> local_of;        ///< per body: position in its block
  std::vector<Index> release_node;    ///< per body: node of its last interface joint, -1: none
  std::vector<Index> release_step;    ///< per body: step at that node
  std::vector<Index> leaf_row_start;  ///< internal rows of each block (CSR over blocks)
  std::vector<Index> leaf_rows;
  /// Rows joined at each merge step: merge j's steps start at step_start[j]; step s (>= 1) of
  /// merge j has rows step_rows[step_row_start[step_start[j] + s - 1] ...].
  std::vector<Index> step_start, step_row_start, step_rows;
  /// Boundary bodies of every node's result, from a dry run of the merges.
  std::vector<std::vector<Index>> boundary;
  std::vector<std::vector<Index>> by_height;  ///< merge nodes (node ids) per height 1, 2, ...
  /// Multiply-adds of each node's factorizations (an upper bound from the sizes): small ones
  /// are not worth a parallel region.
  std::vector<double> work;
  // Workspace sizes (entries).
  std::size_t max_x = 0, max_w = 0, max_y = 0, max_cols = 0, max_t = 0, max_s = 0;
  std::size_t max_boundary = 0;  ///< bodies, over every node and merge step
};

/// Is body b still at the boundary after step s of node p?
inline bool stillBoundary(const Plan& P, Index b, Index p, Index s) {
  return P.release_node[b] >= 0 && (P.release_node[b] != p || P.release_step[b] > s);
}

/// The plan of `tree` over `model`'s bodies and joints. Throws catena::Error when a
/// factorization would need more entries than a 32-bit index holds.
Plan buildPlan(const Model& model, const BlockTree& tree);

}  // namespace catena::blockwise
