#include "formulations/rotation_matrix/rm_assembly.hpp"

#include <algorithm>

#include "formulations/rotation_matrix/rm_body.hpp"
#include "formulations/rotation_matrix/rm_joints.hpp"

namespace catena::rm {
namespace {

Eigen::Map<const Mat3> rotation(const double* q, Index offset) {
  return Eigen::Map<const Mat3>(q + offset + 3);
}

}  // namespace

void assembleRmMassMatrix(const RmModel& model, MatX& M) {
  M.setZero(model.n, model.n);
  for (Index b = 0; b < static_cast<Index>(model.bodies.size()); ++b) {
    const Index o = model.qOffset(b);
    M.block<12, 12>(o, o) = computeBodyMassMatrix(model.bodies[b]);
  }
}

void assembleRmForces(const RmModel& model, VecX& f) {
  f.resize(model.n);
  for (Index b = 0; b < static_cast<Index>(model.bodies.size()); ++b) {
    Vec3 X;
    Mat3 Y;
    computeBodyGravity(model.bodies[b], model.gravity, X, Y);
    const Index o = model.qOffset(b);
    f.segment<3>(o) = X;
    f.segment<9>(o + 3) = Eigen::Map<const Eigen::Matrix<double, 9, 1>>(Y.data());
  }
}

void assembleRmConstraints(const RmModel& model, const Eigen::Ref<const VecX>& q, VecX* C,
                           MatX* Cq) {
  if (C) C->resize(model.m);
  if (Cq) Cq->setZero(model.m, model.n);
  for (Index b = 0; b < static_cast<Index>(model.bodies.size()); ++b) {
    const Index o = model.qOffset(b), r = model.orthogonalityRow(b);
    const Mat3 R = rotation(q.data(), o);
    if (C) C->segment<6>(r) = computeOrthogonalityResidual(R);
    if (Cq) Cq->block<6, 9>(r, o + 3) = computeOrthogonalityJacobian(R);
  }
  for (Index j = 0; j < static_cast<Index>(model.joints.size()); ++j) {
    const RmSphericalJoint& joint = model.joints[j];
    const Index r = model.jointRow(j);
    const Index o1 = model.qOffset(joint.body1);
    const bool ground = joint.body2 == kGround;
    const Index o2 = ground ? 0 : model.qOffset(joint.body2);
    if (C)
      C->segment<3>(r) =
          computeSphericalResidual(joint, q.data() + o1, ground ? nullptr : q.data() + o2);
    if (Cq) {
      Cq->block<3, 12>(r, o1) = computeSphericalJacobianBlock(joint.point1, 1.0);
      if (!ground) Cq->block<3, 12>(r, o2) = computeSphericalJacobianBlock(joint.point2, -1.0);
    }
  }
}

void assembleRmGamma(const RmModel& model, const VecX& v, VecX& gamma) {
  gamma.setZero(model.m);
  for (Index b = 0; b < static_cast<Index>(model.bodies.size()); ++b)
    gamma.segment<6>(model.orthogonalityRow(b)) =
        computeOrthogonalityGamma(rotation(v.data(), model.qOffset(b)));
}

void addRmConstraintHessianTimes(const RmModel& model, const VecX& w, double scale,
                                 Eigen::Ref<MatX> H) {
  for (Index b = 0; b < static_cast<Index>(model.bodies.size()); ++b) {
    const Index o = model.qOffset(b) + 3;
    H.block<9, 9>(o, o) +=
        scale * computeOrthogonalityHessianTimes(w.segment<6>(model.orthogonalityRow(b)));
  }
}

RmEnergy computeRmEnergy(const RmModel& model, const VecX& q, const VecX& v) {
  RmEnergy e;
  for (Index b = 0; b < static_cast<Index>(model.bodies.size()); ++b) {
    const Index o = model.qOffset(b);
    const RmBody& body = model.bodies[b];
    e.kinetic += computeBodyKineticEnergy(body, v.segment<3>(o), rotation(v.data(), o));
    e.potential +=
        computeBodyPotentialEnergy(body, model.gravity, q.segment<3>(o), rotation(q.data(), o));
  }
  return e;
}

RmDrift computeRmDrift(const RmModel& model, const VecX& q, const VecX& v) {
  RmDrift d;
  for (Index b = 0; b < static_cast<Index>(model.bodies.size()); ++b) {
    const Index o = model.qOffset(b);
    const Mat3 R = rotation(q.data(), o);
    d.orthogonality =
        std::max(d.orthogonality, computeOrthogonalityResidual(R).cwiseAbs().maxCoeff());
    const Vec6 rate =
        computeOrthogonalityJacobian(R) * Eigen::Matrix<double, 9, 1>(v.segment<9>(o + 3));
    d.velocity = std::max(d.velocity, rate.cwiseAbs().maxCoeff());
  }
  for (Index j = 0; j < static_cast<Index>(model.joints.size()); ++j) {
    const RmSphericalJoint& joint = model.joints[j];
    const bool ground = joint.body2 == kGround;
    const Index o1 = model.qOffset(joint.body1), o2 = ground ? 0 : model.qOffset(joint.body2);
    d.joints = std::max(
        d.joints, computeSphericalResidual(joint, q.data() + o1, ground ? nullptr : q.data() + o2)
                      .cwiseAbs()
                      .maxCoeff());
    // The joint is linear: its rate is the residual of the velocities with the ground fixed.
    Vec3 rate = v.segment<3>(o1) + rotation(v.data(), o1) * joint.point1;
    if (!ground) rate -= v.segment<3>(o2) + rotation(v.data(), o2) * joint.point2;
    d.velocity = std::max(d.velocity, rate.cwiseAbs().maxCoeff());
  }
  return d;
}

}  // namespace catena::rm
