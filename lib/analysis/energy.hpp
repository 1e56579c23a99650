#pragma once
/// @file energy.hpp
/// Mechanical energy of a state (J), for the conservation checks of the integrators and the
/// energy columns of time histories.

#include <string>

#include "assembly/plan.hpp"
#include "model/state.hpp"

namespace catena {

struct Energy {
  double kinetic = 0.0;  ///< 1/2 v^T M(q) v
  double gravity = 0.0;  ///< -sum m g . x_com (zero at the world origin)
  double springs = 0.0;  ///< stored in spring-dampers (with the preload's work) and torsion springs
  double total() const { return kinetic + gravity + springs; }
};

/// World position of the centre of mass of body b (2D: z = 0).
Vec3 centreOfMass(const Model& model, const VecX& q, Index b);

/// Marker loads and dampers are not potentials: a system with them need not conserve total().
/// No allocation (body by body).
Energy computeEnergy(const Model& model, const AssemblyPlan& plan, const State& s);

/// True if nothing in the model adds or removes energy: no marker loads, dampers or driven
/// joints. Then total() is conserved by the equations of motion.
bool isConservative(const Model& model);

/// The change of the total energy of a conservative run, judged for the user.
struct EnergyChange {
  bool suspicious = false;  ///< larger than round-off and than the run's tolerance
  /// How large, for a sentence "the energy changed DESCRIPTION": "by 3.1 % of the largest kinetic
  /// energy (2 J)" when that reference can measure it, else the change in joules and why no
  /// relative size is given; "from E0 J to E1 J" when either is not a finite number.
  std::string description;
};

/// Judges the change from e0 to e1 (J) of a run whose largest kinetic energy was `kinetic` (J).
/// The zero of the potential is arbitrary, so a relative size is taken against the kinetic
/// energy, and only when that is above the round-off of the totals (1e-8 (|e0| + |e1|)); a
/// change within round-off (1e-10 (|e0| + |e1|)) is never suspicious. Otherwise the change is
/// suspicious above `limit` times the kinetic energy, or, when the kinetic energy is too small
/// to measure against (a mechanism that hardly moves), above round-off, in joules.
EnergyChange judgeEnergyChange(double e0, double e1, double kinetic, double limit = 1e-2);

}  // namespace catena
