#define BOOST_TEST_MODULE assemble
// Global assembly: the sparse refill equals a naive dense assembly of the same kernels; every
// joint type (2D and 3D, scleronomic and rheonomic) passes finite-difference checks of C_q,
// C_t, gamma and K_c through the assembled matrices; force Jacobians K and D match differences
// of f; results are bitwise identical for 1, 2 and 3 OpenMP threads.
#include "assembly/assemble.hpp"

#include <omp.h>

#include "kernels/body.hpp"
#include "kernels/forces.hpp"
#include "kernels/lock2.hpp"
#include "kernels/lock3.hpp"
#include "model/generators.hpp"
#include "random_model.hpp"
#include "test_support.hpp"

using namespace catena;
using catena::test::checkClose;

namespace {

constexpr double kH = 1e-6;
constexpr double kTol = 1e-6;
constexpr int kConfigurations = 20;

struct Globals {
  VecX C, Ct, gamma, f, cforce;
  SparseMatrixCSR Cq, Kc, M, K, D;
};

Globals assembleAll(const Model& m, const AssemblyPlan& plan, const State& s) {
  Globals g;
  g.C.resize(m.nc);
  g.Ct.resize(m.nc);
  g.gamma.resize(m.nc);
  g.f.resize(m.nv);
  g.Cq = makeConstraintMatrix(plan);
  g.Kc = makeBodyMatrix(plan);
  g.M = makeBodyMatrix(plan);
  g.K = makeBodyMatrix(plan);
  g.D = makeBodyMatrix(plan);
  assembleConstraints(m, plan, s.q, s.t, &g.C, &g.Cq);
  assembleConstraintTimeDerivative(m, plan, s.q, s.t, g.Ct);
  assembleGamma(m, plan, s.q, s.v, s.t, g.gamma);
  assembleConstraintStiffness(m, plan, s.q, s.t, s.lambda, g.Kc);
  assembleConstraintForces(m, plan, s.q, s.t, s.lambda, g.cforce);
  assembleMass(m, plan, s.q, g.M);
  assembleForces(m, plan, s.q, s.v, s.t, g.f);
  assembleForceJacobians(m, plan, s.q, s.v, s.t, nullptr, g.K, g.D);
  return g;
}

// ---- naive dense reference: kernels placed by DOF offsets, no plan slots --------------------

struct Dense {
  MatX Cq, Kc, M, K, D;
  VecX C, f;
};

/// Places the (rows x 2N) element matrix of bodies (b1, b2) into a dense global one.
template <typename E>
void place(MatX& G, Index row0, const E& e, int N, Index b1, Index b2, bool add) {
  for (int r = 0; r < e.rows(); ++r)
    for (int side = 0; side < 2; ++side) {
      const Index b = side == 0 ? b1 : b2;
      if (b < 0) continue;
      for (int c = 0; c < N; ++c) {
        double& x = G(row0 + r, b * N + c);
        x = add ? x + e(r, side * N + c) : e(r, side * N + c);
      }
    }
}

/// Element matrix (2N x 2N) into body blocks.
template <typename E>
void placeSquare(MatX& G, const E& e, int N, Index b1, Index b2) {
  const Index b[2] = {b1, b2};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      if (b[i] < 0 || b[j] < 0) continue;
      G.block(b[i] * N, b[j] * N, N, N) += e.block(i * N, j * N, N, N);
    }
}

Dense denseAssembly(const Model& m, const State& s) {
  const int N = m.nv_body, R = m.rows_per_joint;
  Dense d;
  MatX full_Cq = MatX::Zero(R * m.joints.size(), m.nv);
  VecX full_C = VecX::Zero(R * m.joints.size());
  d.Kc = MatX::Zero(m.nv, m.nv);
  d.M = MatX::Zero(m.nv, m.nv);
  d.K = MatX::Zero(m.nv, m.nv);
  d.D = MatX::Zero(m.nv, m.nv);
  d.f = VecX::Zero(m.nv);
  for (std::size_t jj = 0; jj < m.joints.size(); ++jj) {
    const Joint& J = m.joints[jj];
    const Index b1 = m.markerBody(J.marker1), b2 = m.markerBody(J.marker2);
    const MarkerFrame f1 = markerFrame(m.markers[J.marker1]),
                      f2 = markerFrame(m.markers[J.marker2]);
    // Multipliers on all rows: zero on rows the mask drops.
    VecX lam = VecX::Zero(R);
    Index row = m.joint_row_offset[jj];
    for (int r = 0; r < R; ++r)
      if (J.mask & (1u << r)) lam(r) = s.lambda(row++);
    if (m.dimension == 3) {
      const LockMotion3 mo = evaluateLockMotion3(J.motion, s.t);
      const LockFrames3 k = computeLockFrames3(bodyPose3(m, s.q.data(), b1),
                                               bodyPose3(m, s.q.data(), b2), f1, f2, mo);
      Mat6x12 Jc;
      computeLockJacobian3(k, mo, Jc);
      Mat12 Kc;
      computeLockStiffness3(k, mo, Vec6(lam), Kc);
      place(full_Cq, R * jj, Jc, N, b1, b2, false);
      full_C.segment<6>(R * jj) = computeLockResidual3(k, mo);
      placeSquare(d.Kc, Kc, N, b1, b2);
    } else if (J.type == JointType::kDistance) {
      const DistanceFrames2 k = computeDistanceFrames2(bodyPose2(m, s.q.data(), b1),
                                                       bodyPose2(m, s.q.data(), b2), f1, f2);
      Eigen::Matrix<double, 1, 6> Jc;
      computeDistanceJacobian2(k, Jc);
      Mat6_2 Kc;
      computeDistanceStiffness2(k, lam(0), Kc);
      place(full_Cq, R * jj, Jc, N, b1, b2, false);
      full_C(R * jj) = computeDistanceResidual2(k, J.length.evaluate(s.t));
      placeSquare(d.Kc, Kc, N, b1, b2);
    } else {
      const LockMotion2 mo = evaluateLockMotion2(J.motion, s.t);
      const LockFrames2 k =
          computeLockFrames2(bodyPose2(m, s.q.data(), b1), bodyPose2(m, s.q.data(), b2), f1, f2);
      Mat3x6 Jc;
      computeLockJacobian2(k, Jc);
      Mat6_2 Kc;
      computeLockStiffness2(k, Vec3(lam), Kc);
      place(full_Cq, R * jj, Jc, N, b1, b2, false);
      full_C.segment<3>(R * jj) = computeLockResidual2(k, mo);
      placeSquare(d.Kc, Kc, N, b1, b2);
    }
  }
  // Keep the active rows, in joint order.
  d.Cq = MatX::Zero(m.nc, m.nv);
  d.C = VecX::Zero(m.nc);
  for (std::size_t jj = 0; jj < m.joints.size(); ++jj) {
    Index row = m.joint_row_offset[jj];
    const Index nrows = (m.dimension == 2 && m.joints[jj].type == JointType::kDistance) ? 1 : R;
    for (int r = 0; r < nrows; ++r)
      if (m.joints[jj].mask & (1u << r)) {
        d.Cq.row(row) = full_Cq.row(R * jj + r);
        d.C(row++) = full_C(R * jj + r);
      }
  }
  for (std::size_t b = 0; b < m.bodies.size(); ++b) {
    const Index o = m.vOffset(b);
    if (m.dimension == 3) {
      const Pose3 p = bodyPose3(m, s.q.data(), b);
      const Twist3 t = bodyTwist3(m, s.v.data(), b);
      d.M.block<6, 6>(o, o) = computeBodyMass3(m.bodies[b], p.R);
      d.f.segment<6>(o) = computeBodyGravity3(m.bodies[b], p.R, m.gravity) -
                          computeBodyInertialForces3(m.bodies[b], p.R, t.w);
      d.K.block<6, 6>(o, o) = computeBodyStiffness3(m.bodies[b], p.R, t.w, Vec6::Zero(), m.gravity);
      d.D.block<6, 6>(o, o) = computeBodyInertialDamping3(m.bodies[b], p.R, t.w);
    } else {
      const Pose2 p = bodyPose2(m, s.q.data(), b);
      const Twist2 t = bodyTwist2(m, s.v.data(), b);
      d.M.block<3, 3>(o, o) = computeBodyMass2(m.bodies[b], p.R);
      d.f.segment<3>(o) = computeBodyGravity2(m.bodies[b], p.R, m.gravity.head<2>()) -
                          computeBodyInertialForces2(m.bodies[b], p.R, t.w);
      d.K.block<3, 3>(o, o) =
          computeBodyStiffness2(m.bodies[b], p.R, t.w, Vec3::Zero(), m.gravity.head<2>());
      d.D.block<3, 3>(o, o) = computeBodyInertialDamping2(m.bodies[b], p.R, t.w);
    }
  }
  return d;
}

// ---- global finite differences ------------------------------------------------------------

VecX residual(const Model& m, const AssemblyPlan& plan, const VecX& q, double t) {
  VecX C(m.nc);
  assembleConstraints(m, plan, q, t, &C, nullptr);
  return C;
}

VecX moved(const Model& m, const VecX& q, Index k, double h) {
  VecX dq = VecX::Zero(m.nv);
  dq(k) = 1.0;
  VecX out = q;
  applyVariation(m, dq, h, out);
  return out;
}

void checkDerivatives(const Model& m, const State& s, const std::string& tag) {
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const Globals g = assembleAll(m, plan, s);
  MatX Cq_fd(m.nc, m.nv), Kc_fd(m.nv, m.nv), K_fd(m.nv, m.nv), D_fd(m.nv, m.nv);
  for (Index k = 0; k < m.nv; ++k) {
    const VecX qp = moved(m, s.q, k, kH), qm = moved(m, s.q, k, -kH);
    Cq_fd.col(k) = (residual(m, plan, qp, s.t) - residual(m, plan, qm, s.t)) / (2 * kH);
    VecX fp, fm;
    assembleConstraintForces(m, plan, qp, s.t, s.lambda, fp);
    assembleConstraintForces(m, plan, qm, s.t, s.lambda, fm);
    Kc_fd.col(k) = (fp - fm) / (2 * kH);
    VecX gp(m.nv), gm(m.nv);
    assembleForces(m, plan, qp, s.v, s.t, gp);
    assembleForces(m, plan, qm, s.v, s.t, gm);
    K_fd.col(k) = -(gp - gm) / (2 * kH);
    VecX vp = s.v, vm = s.v;
    vp(k) += kH;
    vm(k) -= kH;
    assembleForces(m, plan, s.q, vp, s.t, gp);
    assembleForces(m, plan, s.q, vm, s.t, gm);
    D_fd.col(k) = -(gp - gm) / (2 * kH);
  }
  checkClose(MatX(g.Cq), Cq_fd, kTol, tag + " C_q");
  checkClose(MatX(g.Kc), Kc_fd, kTol, tag + " K_c");
  checkClose(MatX(g.K), K_fd, kTol, tag + " K = -df/dq");
  checkClose(MatX(g.D), D_fd, kTol, tag + " D = -df/dv");
  checkClose(g.cforce, VecX(MatX(g.Cq).transpose() * s.lambda), 1e-12, tag + " C_q^T lambda");
  // C_t by differences in time.
  checkClose(g.Ct,
             VecX((residual(m, plan, s.q, s.t + kH) - residual(m, plan, s.q, s.t - kH)) / (2 * kH)),
             kTol, tag + " C_t");
  // gamma = -d/dt (C_q v + C_t) along q(t) = q exp(t v) with constant v.
  auto velocity = [&](double h) {
    VecX q = s.q;
    applyVariation(m, s.v, h, q);
    SparseMatrixCSR Cq = makeConstraintMatrix(plan);
    VecX Ct(m.nc);
    assembleConstraints(m, plan, q, s.t + h, nullptr, &Cq);
    assembleConstraintTimeDerivative(m, plan, q, s.t + h, Ct);
    return VecX(Cq * s.v + Ct);
  };
  checkClose(g.gamma, VecX(-(velocity(kH) - velocity(-kH)) / (2 * kH)), kTol, tag + " gamma");
}

}  // namespace

BOOST_AUTO_TEST_CASE(sparse_refill_equals_naive_dense_assembly) {
  test::Random rnd(501);
  for (int dim : {2, 3}) {
    for (bool rheo : {false, true}) {
      const Model m = test::randomModel(rnd, dim, 5, rheo);
      const AssemblyPlan plan = buildAssemblyPlan(m);
      for (int c = 0; c < 3; ++c) {
        const State s = test::randomState(rnd, m);
        const Globals g = assembleAll(m, plan, s);
        const Dense d = denseAssembly(m, s);
        const std::string tag = std::to_string(dim) + "D" + (rheo ? " rheonomic" : "");
        checkClose(MatX(g.Cq), d.Cq, 1e-14, tag + " C_q vs dense");
        checkClose(g.C, d.C, 1e-14, tag + " C vs dense");
        checkClose(MatX(g.Kc), d.Kc, 1e-13, tag + " K_c vs dense");
        checkClose(MatX(g.M), d.M, 1e-14, tag + " M vs dense");
        VecX a(m.nv), Ma;
        for (Index i = 0; i < m.nv; ++i) a(i) = rnd.uniform();
        assembleMassTimes(m, s.q, a, Ma);
        checkClose(Ma, VecX(d.M * a), 1e-14, tag + " M a vs dense");
        // The Newton residual's path: C and C_q^T lambda from one evaluation of the frames.
        VecX C(m.nc), reaction;
        assembleConstraintsAndForces(m, plan, s.q, s.t, s.lambda, C, reaction);
        BOOST_TEST(test::bitwiseEqual(C, g.C), tag << ": C differs from assembleConstraints'");
        BOOST_TEST(test::bitwiseEqual(reaction, g.cforce),
                   tag << ": C_q^T lambda differs from assembleConstraintForces'");
        // Springs and loads come on top of the body terms in K, D and f; the dense reference
        // holds the body terms only, so compare on a model without forces below.
      }
      const Model bare = test::randomModel(rnd, dim, 4, rheo, false);
      const AssemblyPlan bp = buildAssemblyPlan(bare);
      const State s = test::randomState(rnd, bare);
      const Globals g = assembleAll(bare, bp, s);
      const Dense d = denseAssembly(bare, s);
      checkClose(g.f, d.f, 1e-14, "f vs dense (no applied forces)");
      checkClose(MatX(g.K), d.K, 1e-14, "K vs dense (no applied forces)");
      checkClose(MatX(g.D), d.D, 1e-14, "D vs dense (no applied forces)");
    }
  }
}

// Every joint type alone between a body and another body or the ground, scleronomic and
// rheonomic, at kConfigurations random states: derivatives through the assembled matrices.
BOOST_AUTO_TEST_CASE(every_joint_type_finite_differences) {
  test::Random rnd(502);
  for (int dim : {3, 2}) {
    std::vector<JointType> types;
    for (int t = 0; t <= static_cast<int>(JointType::kDistance); ++t)
      if (defaultMask(static_cast<JointType>(t), dim)) types.push_back(static_cast<JointType>(t));
    for (JointType type : types) {
      for (bool rheo : {false, true}) {
        // aligned: marker frames parallel to their bodies, the case the kernel shortcuts.
        for (int variant = 0; variant < 4; ++variant) {
          const bool to_ground = variant & 1, aligned = variant & 2;
          ModelBuilder b(dim, "one_joint");
          b.addBody(test::randomBody(rnd, dim, 0));
          b.addBody(test::randomBody(rnd, dim, 1));
          const RowMask lock = dim == 3 ? 0b011011 : 0b110;
          test::addRandomJoint(rnd, b, type, 0, to_ground ? kGround : 1, rheo,
                               type == JointType::kLock ? lock : 0, aligned);
          const Model m = b.finalize();
          for (int c = 0; c < kConfigurations; ++c)
            checkDerivatives(m, test::randomState(rnd, m),
                             std::to_string(dim) + "D " + std::string(jointTypeName(type)) +
                                 (rheo ? " rheonomic" : "") + (to_ground ? " to ground" : "") +
                                 (aligned ? " aligned" : ""));
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(mixed_models_with_forces_finite_differences) {
  test::Random rnd(503);
  for (int dim : {3, 2})
    for (bool rheo : {false, true}) {
      const Model m = test::randomModel(rnd, dim, 5, rheo);
      for (int c = 0; c < 5; ++c)
        checkDerivatives(m, test::randomState(rnd, m),
                         std::to_string(dim) + "D mixed" + (rheo ? " rheonomic" : ""));
    }
}

BOOST_AUTO_TEST_CASE(inertial_stiffness_with_acceleration) {
  // d(M(q) a - f)/dq through the assembled matrices, with a given acceleration a.
  test::Random rnd(504);
  for (int dim : {3, 2}) {
    const Model m = test::randomModel(rnd, dim, 4, false);
    const AssemblyPlan plan = buildAssemblyPlan(m);
    const State s = test::randomState(rnd, m);
    VecX a(m.nv);
    for (Index i = 0; i < m.nv; ++i) a(i) = rnd.uniform();
    SparseMatrixCSR K = makeBodyMatrix(plan), D = makeBodyMatrix(plan), M = makeBodyMatrix(plan);
    assembleForceJacobians(m, plan, s.q, s.v, s.t, &a, K, D);
    auto residual = [&](const VecX& q) {
      assembleMass(m, plan, q, M);
      VecX f(m.nv);
      assembleForces(m, plan, q, s.v, s.t, f);
      return VecX(M * a - f);
    };
    MatX fd(m.nv, m.nv);
    for (Index k = 0; k < m.nv; ++k)
      fd.col(k) = (residual(moved(m, s.q, k, kH)) - residual(moved(m, s.q, k, -kH))) / (2 * kH);
    checkClose(MatX(K), fd, kTol, std::to_string(dim) + "D d(M a - f)/dq");
  }
}

// AssemblyPlan::body_nonzero may leave out of a factorization only entries that M, D, K (with
// the inertial term of an acceleration) and K_c leave zero in every configuration: checked at
// random states with random multipliers, velocities and accelerations, with and without springs.
BOOST_AUTO_TEST_CASE(body_nonzero_flags_every_entry_that_can_be_nonzero) {
  test::Random rnd(506);
  for (int dim : {3, 2})
    for (bool forces : {false, true})
      for (bool rheo : {false, true}) {
        const Model m = test::randomModel(rnd, dim, 6, rheo, forces);
        const AssemblyPlan plan = buildAssemblyPlan(m);
        const std::string tag =
            std::to_string(dim) + "D" + (forces ? " with forces" : "") + (rheo ? " rheonomic" : "");
        BOOST_TEST_REQUIRE(plan.body_nonzero.size() ==
                           static_cast<std::size_t>(plan.body_pattern.nonZeros()));
        long left_out = 0;
        for (std::uint8_t f : plan.body_nonzero) left_out += f == 0;
        // 2D blocks are kept full; a 3D model's joint-only couplings are half zero.
        if (dim == 2) BOOST_TEST(left_out == 0, tag);
        if (dim == 3 && !forces) BOOST_TEST(left_out > 0, tag);
        for (int c = 0; c < 5; ++c) {
          const State s = test::randomState(rnd, m);
          const Globals g = assembleAll(m, plan, s);
          VecX a(m.nv);
          for (Index i = 0; i < m.nv; ++i) a(i) = rnd.uniform();
          SparseMatrixCSR Ka = makeBodyMatrix(plan), Da = makeBodyMatrix(plan);
          assembleForceJacobians(m, plan, s.q, s.v, s.t, &a, Ka, Da);
          int wrong = 0;
          for (Index k = 0; k < plan.body_pattern.nonZeros(); ++k) {
            if (plan.body_nonzero[k]) continue;
            for (const SparseMatrixCSR* X :
                 std::initializer_list<const SparseMatrixCSR*>{&g.Kc, &g.M, &g.K, &g.D, &Ka, &Da})
              wrong += X->valuePtr()[k] != 0.0;
          }
          BOOST_TEST(wrong == 0, tag << ": " << wrong << " nonzero values flagged always zero");
        }
      }
}

// Statics assembles K without D: the same values as assembleForceJacobians' K.
BOOST_AUTO_TEST_CASE(force_stiffness_alone_equals_the_jacobians_stiffness) {
  test::Random rnd(506);
  for (int dim : {3, 2}) {
    const Model m = test::randomModel(rnd, dim, 5, false);
    const AssemblyPlan plan = buildAssemblyPlan(m);
    const State s = test::randomState(rnd, m);
    SparseMatrixCSR K = makeBodyMatrix(plan), D = makeBodyMatrix(plan), K_alone = K;
    assembleForceJacobians(m, plan, s.q, s.v, s.t, nullptr, K, D);
    assembleForceStiffness(m, plan, s.q, s.v, s.t, K_alone);
    BOOST_TEST((values(K_alone).array() == values(K).array()).all(), dim << "D");
  }
}

// K_c added in place (the statics tangent's path): onto a zero matrix it is K_c bitwise (the
// same terms, each block's first one added to zero instead of stored), onto K it is K + K_c to
// round-off (the terms are added in another association).
BOOST_AUTO_TEST_CASE(constraint_stiffness_added_in_place_equals_k_plus_kc) {
  test::Random rnd(507);
  for (int dim : {3, 2}) {
    for (bool rheo : {false, true}) {
      const Model m = test::randomModel(rnd, dim, 6, rheo);
      const AssemblyPlan plan = buildAssemblyPlan(m);
      const State s = test::randomState(rnd, m);
      SparseMatrixCSR K = makeBodyMatrix(plan), Kc = K, onto_zero = K;
      assembleForceStiffness(m, plan, s.q, s.v, s.t, K);
      assembleConstraintStiffness(m, plan, s.q, s.t, s.lambda, Kc);
      addConstraintStiffness(m, plan, s.q, s.t, s.lambda, onto_zero);
      const std::string tag = std::to_string(dim) + "D" + (rheo ? " rheonomic" : "");
      BOOST_TEST((values(onto_zero).array() == values(Kc).array()).all(), tag);
      SparseMatrixCSR onto_k = K;
      addConstraintStiffness(m, plan, s.q, s.t, s.lambda, onto_k);
      checkClose(MatX(onto_k), MatX(K + Kc), 1e-15, tag + " K + K_c in place");
    }
  }
}

BOOST_AUTO_TEST_CASE(results_are_bitwise_identical_for_any_thread_count) {
  test::Random rnd(505);
  // Every joint type (random models, small: the assembly runs serially below its thresholds),
  // then models large enough for every parallel region to run in parallel (assemble.cpp: 512
  // joints or bodies, 2^14 matrix entries).
  CatenaryChainOptions chain;
  chain.links = 1200;
  FourBarLatticeOptions lattice;
  lattice.levels = 20;
  lattice.cells = 20;
  const std::vector<Model> models = {test::randomModel(rnd, 3, 12, true),
                                     test::randomModel(rnd, 2, 12, true), buildCatenaryChain(chain),
                                     buildFourBarLattice(lattice)};
  BOOST_TEST_REQUIRE(models[2].joints.size() >= 512u);
  BOOST_TEST_REQUIRE(models[3].joints.size() >= 512u);
  for (const Model& m : models) {
    const AssemblyPlan plan = buildAssemblyPlan(m);
    const State s = test::randomState(rnd, m);
    omp_set_num_threads(1);
    const Globals ref = assembleAll(m, plan, s);
    for (int threads : {2, 3, 4}) {
      omp_set_num_threads(threads);
      const Globals g = assembleAll(m, plan, s);
      const std::string tag = m.name + ", " + std::to_string(threads) + " threads";
      BOOST_TEST(
          test::bitwiseEqual(VecX(Eigen::Map<const VecX>(g.Kc.valuePtr(), g.Kc.nonZeros())),
                             VecX(Eigen::Map<const VecX>(ref.Kc.valuePtr(), ref.Kc.nonZeros()))),
          tag << ": K_c differs");
      BOOST_TEST(
          test::bitwiseEqual(VecX(Eigen::Map<const VecX>(g.K.valuePtr(), g.K.nonZeros())),
                             VecX(Eigen::Map<const VecX>(ref.K.valuePtr(), ref.K.nonZeros()))),
          tag << ": K differs");
      BOOST_TEST(
          test::bitwiseEqual(VecX(Eigen::Map<const VecX>(g.Cq.valuePtr(), g.Cq.nonZeros())),
                             VecX(Eigen::Map<const VecX>(ref.Cq.valuePtr(), ref.Cq.nonZeros()))),
          tag << ": C_q differs");
      BOOST_TEST(test::bitwiseEqual(g.f, ref.f), tag << ": f differs");
      BOOST_TEST(test::bitwiseEqual(g.gamma, ref.gamma), tag << ": gamma differs");
      BOOST_TEST(test::bitwiseEqual(g.cforce, ref.cforce), tag << ": C_q^T lambda differs");
    }
  }
}
