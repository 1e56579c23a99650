#include "statics/distributed_statics.hpp"

#include <petscsys.h>

#include <limits>

#include "analysis/mpi_space.hpp"
#include "model/state.hpp"

namespace catena {

DistributedStaticsResult solveDistributedStatics(DistributedAssembly& as, const StaticsOptions& o,
                                                 const SaddlePointSolverOptions& linear) {
  return solveDistributedStatics(as, initialState(as.distributedModel().local()), o, linear);
}

DistributedStaticsResult solveDistributedStatics(DistributedAssembly& as, State start,
                                                 const StaticsOptions& o,
                                                 const SaddlePointSolverOptions& linear) {
  as.distributedModel().updateGhosts(start.q);
  MpiSpace space(as, linear);
  return solveStatics(space, std::move(start), o);
}

double lowestMarkerHeight(const DistributedModel& dm, const VecX& q) {
  const Model& m = dm.local();
  const double g = m.gravity.norm();
  const Vec3 up = g > 0.0 ? Vec3(-m.gravity / g) : Vec3::UnitZ();
  double z = std::numeric_limits<double>::infinity();
  for (Index k = 0; k < static_cast<Index>(m.markers.size()); ++k) {
    const Index b = m.markers[k].body;
    if (b >= 0 && b < dm.part().owned_bodies)
      z = std::min(z, markerPosition(m, q.data(), k).dot(up));
  }
  return -dm.max(-z);
}

JointReaction distributedJointReaction(const DistributedAssembly& as, const VecX& q, double t,
                                       const VecX& lambda, Index joint) {
  const DistributedModel& dm = as.distributedModel();
  const Model& m = dm.local();
  const Index local = joint - dm.part().first_joint;
  Eigen::Matrix<double, 12, 1> x = Eigen::Matrix<double, 12, 1>::Zero();
  if (local >= 0 && local < static_cast<Index>(m.joints.size())) {
    const JointReaction r = computeJointReactions(m, as.plan(), q, t, lambda)[local];
    x << r.force_joint, r.torque_joint, r.force_world, r.torque_world;
  }
  Eigen::Matrix<double, 12, 1> y;
  MPI_Allreduce(x.data(), y.data(), 12, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD);
  JointReaction r;
  r.force_joint = y.segment<3>(0);
  r.torque_joint = y.segment<3>(3);
  r.force_world = y.segment<3>(6);
  r.torque_world = y.segment<3>(9);
  return r;
}

}  // namespace catena
