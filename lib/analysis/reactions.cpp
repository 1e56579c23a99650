#include "analysis/reactions.hpp"

#include "kernels/lock2.hpp"
#include "kernels/lock3.hpp"

namespace catena {

std::vector<JointReaction> computeJointReactions(const Model& m, const AssemblyPlan& plan,
                                                 const VecX& q, double t, const VecX& lambda) {
  std::vector<JointReaction> out(m.joints.size());
  for (std::size_t j = 0; j < m.joints.size(); ++j) {
    const Joint& J = m.joints[j];
    const Index b1 = m.markerBody(J.marker1), b2 = m.markerBody(J.marker2);
    // Multipliers on all rows of the lock, zero where the mask leaves the joint free.
    Vec6 lam = Vec6::Zero();
    Index row = m.joint_row_offset[j];
    for (int r = 0; r < m.rows_per_joint; ++r)
      if (J.mask & (1u << r)) lam(r) = lambda(row++);
    JointReaction& R = out[j];
    const MarkerFrame &f1 = plan.markers[J.marker1], &f2 = plan.markers[J.marker2];
    switch (m.jointKernel(static_cast<Index>(j))) {
      case JointKernel::kLock3D: {
        const LockMotion3 mo = evaluateLockMotion3(J.motion, t);
        const LockFrames3 k =
            computeLockFrames3(bodyPose3(m, q.data(), b1), bodyPose3(m, q.data(), b2), f1, f2, mo);
        R.force_joint = -lam.head<3>();
        R.torque_joint = -(k.P * lam.tail<3>());
        R.force_world = k.RF2 * R.force_joint;
        R.torque_world = k.RF2 * R.torque_joint;
        break;
      }
      case JointKernel::kLock2D: {
        const LockFrames2 k =
            computeLockFrames2(bodyPose2(m, q.data(), b1), bodyPose2(m, q.data(), b2), f1, f2);
        R.force_joint = Vec3(-lam(0), -lam(1), 0.0);
        R.torque_joint = Vec3(0.0, 0.0, -lam(2));
        R.force_world.head<2>() = k.RF2 * R.force_joint.head<2>();
        R.torque_world = R.torque_joint;
        break;
      }
      case JointKernel::kDistance2D: {
        // C = |d| - L: the joint pushes B1 along n = d/|d| with -lambda (lambda > 0: tension).
        const DistanceFrames2 k =
            computeDistanceFrames2(bodyPose2(m, q.data(), b1), bodyPose2(m, q.data(), b2), f1, f2);
        R.force_world.head<2>() = -lam(0) * k.n;
        R.force_joint = R.force_world;
        break;
      }
    }
  }
  return out;
}

}  // namespace catena
