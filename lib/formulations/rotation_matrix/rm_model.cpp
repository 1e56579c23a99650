#include "formulations/rotation_matrix/rm_model.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

#include "core/check.hpp"
#include "model/model.hpp"

namespace catena::rm {
namespace {

Mat3 skew(const Vec3& w) {
  Mat3 S;
  S << 0, -w.z(), w.y(), w.z(), 0, -w.x(), -w.y(), w.x(), 0;
  return S;
}

}  // namespace

void finalizeRmModel(RmModel& model) {
  const Index nb = static_cast<Index>(model.bodies.size());
  CATENA_CHECK(nb > 0, "rotation-matrix model '" << model.name << "': expected at least one body");
  double scale = 1e-3;
  for (RmBody& b : model.bodies) {
    CATENA_CHECK(b.mass > 0.0, "rotation-matrix body '"
                                   << b.name << "': expected a positive mass, got " << b.mass);
    CATENA_CHECK((b.inertia - b.inertia.transpose()).norm() <= 1e-12 * b.inertia.norm(),
                 "rotation-matrix body '" << b.name << "': the inertia matrix is not symmetric");
    const double drift = (b.R.transpose() * b.R - Mat3::Identity()).cwiseAbs().maxCoeff();
    CATENA_CHECK(drift <= 1e-10,
                 "rotation-matrix body '"
                     << b.name << "': the initial R is not orthogonal (|R^T R - I| = " << drift
                     << ")");
    b.poinsot = 0.5 * b.inertia.trace() * Mat3::Identity() - b.inertia;  // eq. (11)
    b.poinsot_O = b.poinsot + b.mass * b.com * b.com.transpose();
    const Eigen::SelfAdjointEigenSolver<Mat3> eig(b.poinsot);
    b.poinsot_axes = eig.eigenvectors();
    b.poinsot_principal = eig.eigenvalues();
    // K_G0 = int r r^T dm is positive definite unless the body is flat (or a point, or a rod).
    CATENA_CHECK(
        b.poinsot_principal.minCoeff() > 1e-12 * std::max(1.0, b.poinsot_principal.maxCoeff()),
        "rotation-matrix body '" << b.name
                                 << "': the Poinsot matrix tr(J)/2 I - J must be positive definite "
                                 << "(a body with volume), its eigenvalues are "
                                 << b.poinsot_principal.transpose());
    scale = std::max(scale, b.com.norm());
  }
  for (const RmSphericalJoint& j : model.joints) {
    CATENA_CHECK(j.body1 >= 0 && j.body1 < nb, "rotation-matrix joint '"
                                                   << j.name << "': body1 " << j.body1
                                                   << " out of range [0, " << nb << ")");
    CATENA_CHECK(j.body2 == kGround || (j.body2 >= 0 && j.body2 < nb && j.body2 != j.body1),
                 "rotation-matrix joint '" << j.name << "': body2 " << j.body2
                                           << " must be the ground or another body");
    scale = std::max({scale, j.point1.norm(), j.point2.norm()});
  }
  model.n = kBodyCoordinates * nb;
  model.m_orthogonality = kOrthogonalityRows * nb;
  model.m_joints = kSphericalRows * static_cast<Index>(model.joints.size());
  model.m = model.m_orthogonality + model.m_joints;
  model.length_scale = scale;
  model.finalized = true;
}

RmState initialRmState(const RmModel& model) {
  CATENA_CHECK(model.finalized, "initialRmState: the model must be finalized");
  RmState s;
  s.q.resize(model.n);
  s.v.resize(model.n);
  s.lambda.setZero(model.m);
  for (Index b = 0; b < static_cast<Index>(model.bodies.size()); ++b) {
    const RmBody& body = model.bodies[b];
    const Index o = model.qOffset(b);
    s.q.segment<3>(o) = body.T;
    s.q.segment<9>(o + 3) = Eigen::Map<const Eigen::Matrix<double, 9, 1>>(body.R.data());
    s.v.segment<3>(o) = body.T_dot;
    s.v.segment<9>(o + 3) = Eigen::Map<const Eigen::Matrix<double, 9, 1>>(body.R_dot.data());
  }
  return s;
}

RmModel rmModelFromCatenaModel(const Model& model) {
  CATENA_CHECK(model.dimension == 3,
               "rotation-matrix bodies: model '" << model.name << "' must be 3D");
  CATENA_CHECK(model.loads.empty() && model.springs.empty() && model.rotational_springs.empty(),
               "rotation-matrix bodies: model '"
                   << model.name << "' has loads or springs, which are not supported");
  RmModel rm;
  rm.name = model.name;
  rm.gravity = model.gravity;
  std::vector<Mat3> R0;
  for (const Body& b : model.bodies) {
    const Mat3 R = b.orientation.normalized().toRotationMatrix();
    R0.push_back(R);
    RmBody body;
    body.name = b.name;
    body.mass = b.mass;
    body.com = b.position + R * b.com;
    body.inertia = R * b.inertia * R.transpose();
    // Reference = initial configuration: R(0) = I, T*(0) = 0 (eq. 4), and eq. (8) with M the
    // body's frame origin: R'(0) = j(Omega0), T*'(0) = V0(B) - Omega0 x OB0.
    const Vec3 omega = R * b.angular_velocity;
    body.R_dot = skew(omega);
    body.T_dot = b.velocity - omega.cross(b.position);
    rm.bodies.push_back(body);
  }
  auto worldPoint = [&](Index marker) -> Vec3 {
    const Marker& mk = model.markers[marker];
    if (mk.body == kGround) return mk.position;
    return model.bodies[mk.body].position + R0[mk.body] * mk.position;
  };
  for (const Joint& j : model.joints) {
    CATENA_CHECK(
        j.type == JointType::kSpherical && !j.motion.active,
        "rotation-matrix bodies: joint '" << j.name << "' is not a scleronomic spherical joint");
    RmSphericalJoint sj;
    sj.name = j.name;
    sj.body1 = model.markers[j.marker1].body;
    sj.point1 = worldPoint(j.marker1);
    sj.body2 = model.markers[j.marker2].body;
    sj.point2 = worldPoint(j.marker2);
    if (sj.body1 == kGround) {
      std::swap(sj.body1, sj.body2);
      std::swap(sj.point1, sj.point2);
    }
    rm.joints.push_back(sj);
  }
  finalizeRmModel(rm);
  return rm;
}

RmModel buildRmDoublePendulum(double m, double l, double a, double b, double phi0, double psi0,
                              double g) {
  CATENA_CHECK(m > 0 && l > 0 && a > 0 && b > 0,
               "buildRmDoublePendulum: expected positive m, l, a, b");
  auto poinsot = [&](double angle) {  // eq. (15)
    const double c = std::cos(angle), s = std::sin(angle);
    Mat3 K;
    K << l * l * c * c + a * a * s * s, (l * l - a * a) * s * c, 0, (l * l - a * a) * s * c,
        l * l * s * s + a * a * c * c, 0, 0, 0, b * b;
    return Mat3(m / 12.0 * K);
  };
  const Vec3 OG1(0.5 * l * std::cos(phi0), 0.5 * l * std::sin(phi0), 0);  // eq. (18)
  const Vec3 OH1(l * std::cos(phi0), l * std::sin(phi0), 0);
  const Vec3 OG2 = OH1 + Vec3(0.5 * l * std::cos(psi0), 0.5 * l * std::sin(psi0), 0);
  RmModel rm;
  rm.name = "rotation_matrix_double_pendulum";
  rm.gravity = Vec3(g, 0, 0);  // x0 vertical, pointing down
  const Vec3 centres[2] = {OG1, OG2};
  const double angles[2] = {phi0, psi0};
  for (int i = 0; i < 2; ++i) {
    RmBody body;
    body.name = std::string(i == 0 ? "S1" : "S2");
    body.mass = m;
    body.com = centres[i];
    const Mat3 K = poinsot(angles[i]);
    body.inertia = K.trace() * Mat3::Identity() - K;  // eq. (11) inverted: tr K = tr J / 2
    rm.bodies.push_back(body);                        // R(0) = I, T*(0) = 0, at rest (eq. 16)
  }
  rm.joints.push_back({"O", 0, Vec3::Zero(), kGround, Vec3::Zero()});  // eq. (20)
  rm.joints.push_back({"H1", 1, OH1, 0, OH1});
  finalizeRmModel(rm);
  return rm;
}

}  // namespace catena::rm
