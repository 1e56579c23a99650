#pragma once
/// @file row_combinations.hpp
/// The rows left out of C_q as combinations of the kept ones, C_K^T c_d = C_d^T. The
/// combination of a redundant row is unique (the kept rows are independent) and sparse: the rows
/// of its own loop. A sparse solve on the whole matrix finds it with round-off on every other
/// kept row (too large to prune safely above a few thousand rows) at a cost of the whole matrix
/// per row, which made the minimum-norm multipliers quadratic in the model size. So each
/// combination's support (its rows) is found on its loop in the body-joint graph, and the
/// values are solved on that support alone. The supports are properties of the selection and
/// are reused along a run (docs/dynamics-redundant.md, "Cost").

#include <vector>

#include "assembly/plan.hpp"
#include "model/model.hpp"

namespace catena {

/// The kept rows (original numbering, ascending) of each dropped row's combination.
using RowSupports = std::vector<std::vector<Index>>;

struct RowCombinations {
  /// kept.size() x dropped.size(): column j holds c_j with C_K^T c_j = C_q(dropped j, :)^T
  /// (least squares where the dependence is not exact, as off the constraint manifold).
  Eigen::SparseMatrix<double> c;
  RowSupports supports;  ///< the support of each c_j, for the next call
  Index reused = 0;      ///< combinations solved on a given support
  Index found = 0;       ///< combinations whose support a whole-matrix solve found
  Index unclean = 0;     ///< combinations left with the whole-matrix solve's values (pruned)
};

/// A support represents its row when |C_S^T c - C_d^T| <= kRowMisfit |C_d|: far above the
/// round-off of an exact dependence and the drift of a state off its constraints (1e-8), far
/// below the misfit of a support that misses a row of the loop (order |C_d|).
inline constexpr double kRowMisfit = 1e-6;

/// Cq: m x n; kept and dropped: disjoint row sets, ascending, kept rows linearly independent.
/// supports: per dropped row, a support from an earlier call (empty or nullptr: none). Rows
/// whose support is missing or no longer represents them are solved on the whole matrix
/// (SuiteSparseQR). OpenMP over the dropped rows; bitwise the same for any thread count.
/// Throws catena::Error if the whole-matrix solve fails.
RowCombinations combinationsOfKeptRows(const SparseMatrixCSR& Cq, const std::vector<Index>& kept,
                                       const std::vector<Index>& dropped,
                                       const RowSupports* supports = nullptr);

/// The supports of the rows `dropped` of model's C_q = Cq (kept: the rest), found on loops of
/// the body-joint graph (the joints with kept rows): first the rows of the dropped row's joint
/// and the joints parallel to it, then one ear more at a time (the shortest path outside the
/// loop between two of its bodies), until the rows of the loop represent the row (dense QR).
/// The support is every kept row of that loop, so that it holds along the motion, not only at
/// the configuration where it was found. A row not represented
/// within 8 ears or 64 bodies gets an empty support (left to the whole matrix by
/// combinationsOfKeptRows). OpenMP over the rows; bitwise the same for any thread count. Cost:
/// about the bodies within reach of the loop's hubs, per row.
RowSupports supportsOnLoops(const Model& model, const SparseMatrixCSR& Cq,
                            const std::vector<Index>& kept, const std::vector<Index>& dropped);

}  // namespace catena
