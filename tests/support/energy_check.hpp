#pragma once
/// @file energy_check.hpp
/// The energy witness of the dynamics tests: how far a conservative run's total energy strays.

#include <algorithm>
#include <cmath>
#include <vector>

#include "analysis/energy.hpp"
#include "assembly/plan.hpp"
#include "model/state.hpp"

namespace catena::test {

/// max |E - E0| over the states relative to their largest kinetic energy (the energy
/// exchanged; the zero of the potential is arbitrary). states: at least one, E0 the first's.
inline double relativeEnergyError(const Model& m, const AssemblyPlan& plan,
                                  const std::vector<State>& states) {
  const double E0 = computeEnergy(m, plan, states.front()).total();
  double worst = 0.0, kinetic = 0.0;
  for (const State& s : states) {
    const Energy e = computeEnergy(m, plan, s);
    worst = std::max(worst, std::abs(e.total() - E0));
    kinetic = std::max(kinetic, e.kinetic);
  }
  return worst / kinetic;
}

}  // namespace catena::test
