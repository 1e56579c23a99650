#pragma once
/// @file run_report.hpp
/// Tables on stdout and JSON summaries for the statics and modal runs of the driver.

#include <iosfwd>
#include <string>

#include "analysis/reactions.hpp"
#include "modal/modal.hpp"
#include "statics/statics.hpp"

namespace catena {

/// Equilibrium facts that a user checks first: the lowest joint point along gravity and the
/// reactions at the joints to the ground.
struct EquilibriumSummary {
  std::string lowest_joint;  ///< joint whose F1 point is lowest along gravity
  Vec3 lowest_point = Vec3::Zero();
  double sag = 0.0;                      ///< m: depth of that point below the highest ground joint
  std::vector<JointReaction> reactions;  ///< every joint
};

/// The summary at `state` (q, lambda, t): the lowest joint point, the sag, every reaction.
EquilibriumSummary summarizeEquilibrium(const Model& model, const AssemblyPlan& plan,
                                        const State& state);

/// The statics table (status, residual history, sag, ground reactions) and the modes table
/// (frequency, eigenvalue, damping, direction) for people; a failure is printed as such.
void printStatics(std::ostream& os, const Model& model, const StaticsResult& result,
                  const EquilibriumSummary& summary);
void printModes(std::ostream& os, const Model& model, const ModalResult& result);

/// JSON summary of a run: input, model counts, solver statistics, timings, results. `modal`
/// may be null (statics only).
void writeRunJson(std::ostream& os, const std::string& input, const Model& model,
                  const StaticsResult& statics, const EquilibriumSummary& summary,
                  const ModalResult* modal, double statics_seconds, double modal_seconds);

}  // namespace catena
