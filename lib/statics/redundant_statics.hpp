#pragma once
/// @file redundant_statics.hpp
/// Statics of an over-constrained mechanism (a merged four-bar lattice, planar loops modelled
/// with full revolutes): its saddle-point matrix is singular, so solveStatics fails at its
/// first multiplier estimate. The equilibrium is then found on the model without the rows a
/// QRCP finds redundant at the start (mobility/independent_rows.hpp), as the integrators do
/// (docs/dynamics-redundant.md). Serial.

#include <optional>

#include "mobility/independent_rows.hpp"
#include "statics/statics.hpp"

namespace catena {

struct StaticsWithIndependentRows {
  /// The equilibrium of the model: q, and lambda the minimum-norm multipliers of every row
  /// (reactions of redundant joints are not unique); result.redundant_rows names the rows
  /// left out.
  StaticsResult result;
  std::optional<IndependentRows> rows;  ///< the selection, when rows were left out
  /// The multipliers of rows->model's rows at the equilibrium (for the modes: modal analysis
  /// runs on rows->model, whose pencil is regular).
  VecX reduced_lambda;
};

/// solveStatics(model, plan, start, options); if it fails at its multiplier estimate with a
/// singular matrix and C_q has redundant rows at start, the statics of the model without them
/// from the same start. The rows left out must hold at the equilibrium found (RedundancyWatch),
/// else a failed Status naming them (the start was a singular configuration). Never throws on
/// numerical failure.
StaticsWithIndependentRows solveStaticsWithIndependentRows(const Model& model,
                                                           const AssemblyPlan& plan,
                                                           const State& start,
                                                           const StaticsOptions& options = {});

/// Whether the rows left out (rows) hold at `equilibrium`, a state of `model` found without
/// them (RedundancyWatch); if not, r.status fails saying that the start was a singular
/// configuration, with the rows as r.worst_rows. Used by the serial and distributed statics.
bool checkRowsLeftOut(const Model& model, const AssemblyPlan& plan, const IndependentRows& rows,
                      const State& equilibrium, StaticsResult& r);

}  // namespace catena
