#pragma once
/// @file reactions.hpp
/// Joint reactions from the multipliers (NOTATION.md). The equations of motion are
/// M a + C_q^T lambda = f, so the joint acts on its driven body B1, at the origin of F1, with the
/// force -lambda_f and the torque -P(rho) lambda_m, both in F2's basis; B2 receives the opposite.
/// (The paper's "reaction" gamma is lambda itself, i.e. minus the force on B1.)

#include <vector>

#include "assembly/plan.hpp"

namespace catena {

struct JointReaction {
  Vec3 force_joint = Vec3::Zero();   ///< N, exerted on B1, F2's basis
  Vec3 torque_joint = Vec3::Zero();  ///< N m, on B1, F2's basis (2D: z)
  Vec3 force_world = Vec3::Zero();   ///< N, on B1, world basis
  Vec3 torque_world = Vec3::Zero();  ///< N m, on B1, world basis
};

/// One reaction per joint at (q, t) with multipliers lambda (nc).
std::vector<JointReaction> computeJointReactions(const Model& model, const AssemblyPlan& plan,
                                                 const VecX& q, double t, const VecX& lambda);

}  // namespace catena
