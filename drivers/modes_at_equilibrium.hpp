#pragma once
/// @file modes_at_equilibrium.hpp
/// The modes at the equilibrium of solveStaticsWithIndependentRows, as `catena modal` and the
/// Python module compute them: on the model without its redundant rows when rows were left out
/// (its pencil is regular; the modes are the model's), else on the model itself.

#include "modal/modal.hpp"
#include "statics/redundant_statics.hpp"

namespace catena {

/// Modes of `model` (its `plan`) at `statics`'s equilibrium (which must have converged).
inline ModalResult solveModesAtEquilibrium(const Model& model, const AssemblyPlan& plan,
                                           const StaticsWithIndependentRows& statics,
                                           const ModalOptions& options) {
  if (!statics.rows) return solveModal(model, plan, statics.result.state, options);
  State s = statics.result.state;
  s.lambda = statics.reduced_lambda;
  return solveModal(statics.rows->model, buildAssemblyPlan(statics.rows->model), s, options);
}

}  // namespace catena
