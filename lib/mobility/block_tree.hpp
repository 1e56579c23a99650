#pragma once
/// @file block_tree.hpp
/// Partitions of a model's bodies into blocks and merge trees over the blocks, for the
/// block-wise rank of C_q (mobility/blockwise_rank.hpp): from the model's structure (the
/// levels and cells of a four-bar lattice, the segments of a catenary chain) or from a
/// recursive bisection of the body-joint graph for any model. Only the cost of the block-wise
/// rank depends on the tree, never its result.

#include <string>
#include <vector>

#include "model/generators.hpp"
#include "model/model.hpp"

namespace catena {

/// A partition of the bodies into blocks and a merge tree over them. Node i < blocks.size() is
/// block i; node blocks.size() + j is merges[j]. Every node except the root (the last node) is
/// the child of exactly one merge, which comes after it; a merge joins its children in the
/// order listed (the first two, then the third into the result, ...).
struct BlockTree {
  std::vector<std::vector<Index>> blocks;  ///< bodies of each block
  std::vector<std::vector<Index>> merges;  ///< children of each merge node
  std::string description;                 ///< how it was built, for reports

  Index nodes() const { return static_cast<Index>(blocks.size() + merges.size()); }
};

/// Four-bar lattice (generators.hpp, the generator's body order). Unmerged: blocks of
/// `block_cells` x `block_cells` cells (cell (l, k) = crank_l_k and coupler_l_k, the last crank
/// of a level goes with the level's last cell), joined by nested dissection of the grid of
/// blocks (halving the side with more cells). Merged: one block per level, the coupler with
/// the first `block_cells` of the level's cranks, plus blocks of `block_cells` cranks; the
/// levels are joined by halving, and at the join of two halves the cranks between them are
/// taken one block at a time (the two couplers they hinge to are already in: each join step
/// stays small, however many cells a level has).
BlockTree blockTreeForFourBarLattice(const FourBarLatticeOptions& options, int block_cells);

/// Catenary chain (generators.hpp, links in order): blocks of `block_links` consecutive links,
/// joined by halving.
BlockTree blockTreeForChain(Index links, Index block_links);

/// Any model: recursive bisection of the body-joint graph (bodies are vertices, joints between
/// two bodies edges), breadth-first from a pseudo-peripheral body, until a part has at most
/// `max_block_bodies` bodies. Cost O(N log N). Good for chains and grids; poor for a body
/// jointed to many others (docs/lattice-mobility.md, "How the block-wise rank works").
BlockTree blockTreeByBisection(const Model& model, Index max_block_bodies = 8);

/// The tree for a model: the four-bar lattice or catenary chain tree when the bodies carry the
/// generator's names in the generator's order (a lattice read from a YAML `generator:`), else
/// the bisection. Only the cost depends on the tree, never the rank.
BlockTree blockTreeForModel(const Model& model);

}  // namespace catena
