#define BOOST_TEST_MODULE rm_model
// The rotation-matrix model (formulations/rotation_matrix/rm_model.hpp): the paper's double
// pendulum written from its eqs. (15), (18), (20) against the same mechanism converted from
// catena's quaternion input inputs/double_pendulum.yaml (two independent descriptions); the
// initial state satisfies the constraints; invalid models are refused with a message.
#include <cmath>
#include <string>

#include "core/check.hpp"
#include "formulations/rotation_matrix/rm_assembly.hpp"
#include "formulations/rotation_matrix/rm_model.hpp"
#include "io/yaml_loader.hpp"
#include "test_support.hpp"

using namespace catena;
using namespace catena::rm;

namespace {
const std::string kInputs = std::string(CATENA_SOURCE_DIR) + "/inputs/";
const double kDeg = M_PI / 180.0;
}  // namespace

BOOST_AUTO_TEST_CASE(paper_double_pendulum_equals_the_converted_yaml_model) {
  const RmModel paper = buildRmDoublePendulum(0.108, 0.20, 0.02, 0.01, 20 * kDeg, 10 * kDeg, 9.81);
  const RmModel yaml =
      rmModelFromCatenaModel(loadMechanismFile(kInputs + "double_pendulum.yaml").model);
  BOOST_REQUIRE_EQUAL(paper.bodies.size(), yaml.bodies.size());
  BOOST_REQUIRE_EQUAL(paper.joints.size(), yaml.joints.size());
  BOOST_TEST(paper.n == 24);
  BOOST_TEST(paper.m == 18);
  test::checkClose(paper.gravity, yaml.gravity, 0.0, "gravity");
  for (std::size_t b = 0; b < 2; ++b) {
    BOOST_TEST(paper.bodies[b].mass == yaml.bodies[b].mass);
    test::checkClose(paper.bodies[b].com, yaml.bodies[b].com, 1e-15, "X_G");
    // The yaml's inertia was rounded to 4 digits (3.609e-4, 3.636e-4 kg m^2).
    test::checkClose(paper.bodies[b].poinsot * 1e4, yaml.bodies[b].poinsot * 1e4, 1e-4,
                     "K_G0 (eq. 15)");
    test::checkClose(yaml.bodies[b].R, Mat3::Identity(), 0.0, "R(0) = I (eq. 4)");
  }
  for (std::size_t j = 0; j < 2; ++j) {
    BOOST_TEST(paper.joints[j].body1 == yaml.joints[j].body1);
    BOOST_TEST(paper.joints[j].body2 == yaml.joints[j].body2);
    test::checkClose(paper.joints[j].point1, yaml.joints[j].point1, 1e-15, "joint point 1");
    test::checkClose(paper.joints[j].point2, yaml.joints[j].point2, 1e-15, "joint point 2");
  }
}

BOOST_AUTO_TEST_CASE(initial_state_satisfies_the_constraints) {
  const RmModel m = buildRmDoublePendulum(0.108, 0.20, 0.02, 0.01, 20 * kDeg, 10 * kDeg, 9.81);
  const RmState s = initialRmState(m);
  const RmDrift d = computeRmDrift(m, s.q, s.v);
  BOOST_TEST(d.orthogonality == 0.0);
  BOOST_TEST(d.joints <= 1e-17);
  BOOST_TEST(d.velocity == 0.0);
}

BOOST_AUTO_TEST_CASE(converted_initial_velocity_is_rigid) {
  // A spinning, moving free body: every material point's velocity V = T*' + R' X (eq. 5) must
  // equal v_B + Omega x (X - r_B) with catena's world velocity v_B and Omega = R w_B (eq. 8).
  Model m;
  m.name = "spinner";
  Body b;
  b.name = "b";
  b.mass = 1.0;
  b.inertia = Vec3(1.0, 2.0, 2.5).asDiagonal();
  b.position = Vec3(0.3, -0.2, 0.5);
  b.orientation = Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
  b.velocity = Vec3(0.1, 0.2, -0.3);
  b.angular_velocity = Vec3(1.0, -2.0, 0.5);
  m.bodies.push_back(b);
  const RmModel rm = rmModelFromCatenaModel(m);
  const Vec3 omega = b.orientation.toRotationMatrix() * b.angular_velocity;
  const Vec3 X(0.7, 0.1, -0.4);
  const Vec3 V = rm.bodies[0].T_dot + rm.bodies[0].R_dot * X;
  test::checkClose(V, Vec3(b.velocity + omega.cross(X - b.position)), 1e-15, "V(M)");
}

BOOST_AUTO_TEST_CASE(invalid_models_are_refused) {
  RmModel m = buildRmDoublePendulum(0.108, 0.20, 0.02, 0.01, 20 * kDeg, 10 * kDeg, 9.81);
  RmModel flat = m;
  flat.bodies[0].inertia = Vec3(0.0, 1.0, 1.0).asDiagonal();  // a plate: K has a zero eigenvalue
  BOOST_CHECK_THROW(finalizeRmModel(flat), Error);
  RmModel bad_joint = m;
  bad_joint.joints[1].body2 = 5;
  BOOST_CHECK_THROW(finalizeRmModel(bad_joint), Error);
  RmModel not_orthogonal = m;
  not_orthogonal.bodies[1].R(0, 0) = 1.1;
  BOOST_CHECK_THROW(finalizeRmModel(not_orthogonal), Error);
}
