#define BOOST_TEST_MODULE ida_jacobian
// The Newton matrix dF/dy + c_j dF/dy' of the three IDA formulations
// (formulations/mixed_basis/multibody_dae.hpp) against central differences of the residual, at
// seeded random states: random q with unit (and, separately, non-unit) quaternions, random v, v',
// lambda, mu, nu, t and c_j. Models: the spatial pendulum (universal joint), a 3-body chain with
// spherical and revolute joints, random rheonomic mechanisms with every joint type, springs and
// loads (3D and 2D, the 2D one with distance joints), and the double four-bar.
#include <omp.h>

#include <string>

#include "assembly/assemble.hpp"
#include "formulations/mixed_basis/constraint_derivatives.hpp"
#include "formulations/mixed_basis/multibody_dae.hpp"
#include "ida_support.hpp"
#include "io/yaml_loader.hpp"
#include "model/generators.hpp"
#include "random_model.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {

const std::string kInputs = std::string(CATENA_SOURCE_DIR) + "/inputs/";
const auto& kFormulations = test::kIdaFormulations;

/// Compares J with central differences at one random point; rho_scale multiplies every
/// quaternion (the residual must see rho / |rho| and the norm row |rho|^2 - 1).
void checkNewtonMatrix(const Model& m, IdaFormulation f, unsigned seed, double rho_scale) {
  const AssemblyPlan plan = buildAssemblyPlan(m);
  MultibodyDae dae(m, plan, f);
  const DaeLayout& L = dae.layout();
  test::Random rnd(seed);
  const State s = test::randomState(rnd, m);
  VecX y = VecX::Zero(L.size), yp = VecX::Zero(L.size);
  y.segment(L.q, L.nq) = s.q;
  if (m.dimension == 3)
    for (Index b = 0; b < static_cast<Index>(m.bodies.size()); ++b)
      y.segment<4>(L.q + m.qOffset(b) + 3) *= rho_scale;
  y.segment(L.v, L.nv) = s.v;
  y.segment(L.lambda, L.nc) = s.lambda;
  for (Index i = L.mu; i < L.mu + L.nmu; ++i) y(i) = rnd.uniform(-2.0, 2.0);
  for (Index i = L.nu; i < L.nu + L.nnu; ++i) y(i) = rnd.uniform(-0.5, 0.5);
  for (Index i = 0; i < L.size; ++i) yp(i) = rnd.uniform(-3.0, 3.0);
  const double cj = rnd.uniform(0.5, 30.0), t = s.t;

  const MatX J = MatX(dae.newtonMatrix(t, y.data(), yp.data(), cj));
  MatX fd(L.size, L.size);
  VecX Fp(L.size), Fm(L.size);
  const double h = 1e-5;
  for (Index j = 0; j < L.size; ++j) {
    VecX a = y;
    a(j) += h;
    dae.residual(t, a.data(), yp.data(), Fp.data());
    a(j) -= 2.0 * h;
    dae.residual(t, a.data(), yp.data(), Fm.data());
    fd.col(j) = (Fp - Fm) / (2.0 * h);
    VecX b = yp;
    b(j) += h;
    dae.residual(t, y.data(), b.data(), Fp.data());
    b(j) -= 2.0 * h;
    dae.residual(t, y.data(), b.data(), Fm.data());
    fd.col(j) += cj * (Fp - Fm) / (2.0 * h);
  }
  // Relative to the largest entry: the entries of one matrix mix units (c_j M, C_q, K_c).
  const double scale = fd.cwiseAbs().maxCoeff();
  test::checkClose(MatX(J / scale), MatX(fd / scale), 1e-6,
                   m.name + " " + idaFormulationName(f) + " (scale " + std::to_string(scale) +
                       ", rho scale " + std::to_string(rho_scale) + ")");
  BOOST_TEST_MESSAGE(m.name << " " << idaFormulationName(f) << ": n = " << L.size
                            << ", nnz = " << dae.jacobian().nonZeros() << ", max |J - FD| = "
                            << (J - fd).cwiseAbs().maxCoeff() << " of " << scale);
}

void checkAll(const Model& m, unsigned seed) {
  for (IdaFormulation f : kFormulations) {
    checkNewtonMatrix(m, f, seed, 1.0);
    if (m.dimension == 3) checkNewtonMatrix(m, f, seed + 1000, 1.3);
  }
}

/// Body 0 hinged to the ground by a spherical joint, body 1 to body 0 by a revolute, body 2 to
/// body 1 by a spherical; random markers.
Model chain3() {
  test::Random rnd(7);
  ModelBuilder b(3, "chain3");
  b.setGravity(Vec3(0, 0, -9.81));
  for (int i = 0; i < 3; ++i) b.addBody(test::randomBody(rnd, 3, i));
  test::addRandomJoint(rnd, b, JointType::kSpherical, 0, kGround, false);
  test::addRandomJoint(rnd, b, JointType::kRevolute, 1, 0, false);
  test::addRandomJoint(rnd, b, JointType::kSpherical, 2, 1, false);
  return b.finalize();
}

}  // namespace

BOOST_AUTO_TEST_CASE(spatial_pendulum_universal_joint) {
  checkAll(loadMechanismFile(kInputs + "spatial_pendulum.yaml").model, 1);
}

BOOST_AUTO_TEST_CASE(chain_of_three_bodies_spherical_and_revolute) {
  checkAll(chain3(), 2);
}

BOOST_AUTO_TEST_CASE(random_rheonomic_mechanism_3d) {
  test::Random rnd(3);
  checkAll(test::randomModel(rnd, 3, 4, true), 3);
}

BOOST_AUTO_TEST_CASE(random_rheonomic_mechanism_2d_with_distance_joints) {
  test::Random rnd(4);
  checkAll(test::randomModel(rnd, 2, 4, true), 4);
}

BOOST_AUTO_TEST_CASE(double_four_bar) {
  checkAll(loadMechanismFile(kInputs + "double_four_bar.yaml").model, 5);
}

// The pattern is fixed: a second evaluation at another point reuses it, and the values change.
BOOST_AUTO_TEST_CASE(pattern_is_refilled_in_place) {
  const Model m = loadMechanismFile(kInputs + "spatial_pendulum.yaml").model;
  const AssemblyPlan plan = buildAssemblyPlan(m);
  MultibodyDae dae(m, plan, IdaFormulation::kIndex2);
  const int nnz = static_cast<int>(dae.jacobian().nonZeros());
  const double* values = dae.jacobian().valuePtr();
  VecX y = VecX::Random(dae.layout().size), yp = VecX::Random(dae.layout().size);
  y.segment<4>(3) = Vec4(1, 0, 0, 0);
  const VecX first =
      Eigen::Map<const VecX>(dae.newtonMatrix(0.1, y.data(), yp.data(), 2.0).valuePtr(), nnz);
  const VecX second =
      Eigen::Map<const VecX>(dae.newtonMatrix(0.2, y.data(), yp.data(), 5.0).valuePtr(), nnz);
  BOOST_TEST(dae.jacobian().nonZeros() == nnz);
  BOOST_TEST(dae.jacobian().valuePtr() == values);
  BOOST_TEST((first - second).cwiseAbs().maxCoeff() > 0.0);
}

// From 512 joints on, the constraint-rate derivatives refill in parallel (each joint writes its
// own rows): the result must not depend on the thread count.
BOOST_AUTO_TEST_CASE(parallel_refill_is_thread_independent) {
  CatenaryChainOptions o;
  o.links = 600;
  const Model m = buildCatenaryChain(o);
  BOOST_REQUIRE_GE(m.joints.size(), 512u);
  const AssemblyPlan plan = buildAssemblyPlan(m);
  test::Random rnd(11);
  const State s = test::randomState(rnd, m);
  VecX a(m.nv);
  for (Index i = 0; i < m.nv; ++i) a(i) = rnd.uniform();
  auto refill = [&](int threads) {
    omp_set_num_threads(threads);
    std::vector<SparseMatrixCSR> out(3, makeConstraintMatrix(plan));
    assembleJacobianProductDerivative(m, plan, s.q, s.t, a, true, out[0]);
    assembleGammaDerivatives(m, plan, s.q, s.v, s.t, out[1], out[2]);
    return out;
  };
  const int threads = omp_get_max_threads();
  const auto serial = refill(1), parallel = refill(std::max(2, threads));
  omp_set_num_threads(threads);
  for (int k = 0; k < 3; ++k)
    BOOST_TEST(test::bitwiseEqual(values(serial[k]), values(parallel[k])));
}
