#pragma once
/// @file energy.hpp
/// Mechanical energy of a state, for the conservation checks of the integrators and the energy
/// columns of time histories. J.

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

}  // namespace catena
