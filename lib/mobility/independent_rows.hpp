#pragma once
/// @file independent_rows.hpp
/// Redundant constraint rows left out of a model, so that the saddle-point integrators
/// (generalized-alpha, IDA) run on over-constrained mechanisms: the rows that a QRCP of C_q^T at
/// a configuration drops (constraint_rank.hpp, the QRCP paper's rank decision) are cleared from
/// their joints' row masks, and the multipliers of the reduced model are mapped back to every
/// row as the minimum-norm set with the same generalized constraint force C_q^T lambda. The
/// reactions of redundant joints are not unique; the minimum-norm set is the one reported
/// (docs/dynamics-redundant.md).

#include <string>
#include <vector>

#include "assembly/plan.hpp"
#include "core/status.hpp"
#include "mobility/row_combinations.hpp"
#include "model/model.hpp"
#include "model/state.hpp"

namespace catena {

/// Velocity coordinates up to which the selection and the multipliers use dense QR: above it
/// the sparse paths are cheaper (a merged lattice of 30 x 30 cells, 2880 coordinates, spent
/// minutes in dense QRCPs; the sparse paths agree with the dense ones, tests/verification/
/// redundant_rows_test.cpp).
inline constexpr Index kDenseRowLimit = 500;

struct IndependentRows {
  Model model;              ///< the model without the redundant rows (joints without rows removed)
  std::vector<Index> kept;  ///< row r of `model` is row kept[r] of the original model
  std::vector<Index> dropped;              ///< the original rows left out, ascending
  std::vector<std::string> dropped_names;  ///< Model::rowName of each (original model)
  /// Above the dense limit, the kept rows whose combination is each dropped row at the
  /// selection (row_combinations.hpp), reused by minimumNormMultipliers; else empty.
  RowSupports supports;
};

/// The model without the constraint rows `rows` (original numbering; any order, no repeats).
/// Throws catena::Error on a row out of range.
IndependentRows withoutRows(const Model& model, std::vector<Index> rows);

/// The model without the rows that the QRCP of C_q^T at (q, t) finds redundant (none: `model`
/// itself, dropped empty): dense QRCP up to dense_limit velocity coordinates, the block-wise
/// rank (blockwise_rank.hpp, blockTreeForModel) and the supports of the dropped rows above.
IndependentRows independentRows(const Model& model, const AssemblyPlan& plan, const VecX& q,
                                double t, Index dense_limit = kDenseRowLimit);

/// The minimum-norm multipliers of every original row with the generalized constraint force of
/// the reduced ones: min |lambda| subject to C_q^T lambda = C_qr^T lambda_r at (q, t).
/// lambda_r: multipliers of rows.model's rows. Up to dense_limit velocity coordinates a dense
/// complete orthogonal decomposition of C_q^T; above, sparse: the rows left out as combinations
/// of the kept ones (C_qr^T c = C_q(d, :)^T on rows.supports where they still hold:
/// row_combinations.hpp), which span the null space W of C_q^T, and lambda = padded - W (W^T W)^-1
/// W^T padded (padded: lambda_r on the kept rows, zero on the others; W^T W by sparse Cholesky).
VecX minimumNormMultipliers(const Model& model, const AssemblyPlan& plan,
                            const IndependentRows& rows, const VecX& q, double t,
                            const VecX& lambda_r, Index dense_limit = kDenseRowLimit);

/// Watches the rows left out along a run (or at an equilibrium) of the reduced model: they must
/// stay as satisfied as the kept ones, |C_left out| <= 100 |C_kept| + 1e-8 L (L: the length
/// scale).
class RedundancyWatch {
 public:
  RedundancyWatch(const Model& model, const AssemblyPlan& plan, const IndependentRows& rows);
  /// false, with status() set, once the rows left out drift at s.
  bool holds(const State& s);
  const Status& status() const { return status_; }
  /// The rows left out with their values where they drifted (Model::rowName: value).
  const std::vector<std::string>& rows() const { return rows_; }

 private:
  const Model& model_;
  const AssemblyPlan& plan_;
  const IndependentRows& selection_;
  VecX C_;
  double length_scale_ = 1.0;
  Status status_;
  std::vector<std::string> rows_;
};

}  // namespace catena
