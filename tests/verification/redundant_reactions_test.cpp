#define BOOST_TEST_MODULE redundant_reactions
// Redundant constraints (issue 28, item 4), against models written without them by hand:
// - a merged four-bar lattice against the same lattice with the rows that repeat the
//   parallelogram removed by hand (not by independentRows), generalized-alpha and IDA index 2;
// - a pendulum hinged twice at the same point: the minimum-norm reactions of the two hinges are
//   equal halves and sum to the single hinge's reaction (2D and 3D);
// - thread determinism of the redundant-rows runs, dense and sparse paths;
// - MCS on the modified double four-bar against the double four-bar with two couplers.
#include <boost/test/unit_test.hpp>

#include <omp.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "analysis/reactions.hpp"
#include "integrators/generalized_alpha.hpp"
#include "integrators/ida_dynamics.hpp"
#include "integrators/initial_state.hpp"
#include "integrators/mcs_dynamics.hpp"
#include "mobility/constraint_rank.hpp"
#include "mobility/independent_rows.hpp"
#include "model/four_bar_lattice.hpp"
#include "model/model_builder.hpp"
#include "petsc_fixture.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {

using Wrench = Eigen::Matrix<double, 6, 1>;

State assembled(const Model& m, const AssemblyPlan& plan) {
  const InitialStateResult r = assembleInitialState(m, plan, initialState(m));
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  return r.state;
}

/// A run and the states its observer saw (t0 and every output time).
struct Run {
  DynamicsResult result;
  std::vector<State> out;
};

/// integrate(model, plan, start, observer) from the assembled start, recording every output.
template <class Integrate>
Run record(const Model& m, Integrate&& integrate) {
  const AssemblyPlan plan = buildAssemblyPlan(m);
  Run run;
  run.result = integrate(m, plan, assembled(m, plan), [&](const State& s) {
    run.out.push_back(s);
    return true;
  });
  BOOST_REQUIRE_MESSAGE(run.result.status.ok(), m.name << ": " << run.result.status.message);
  return run;
}

Run runGeneralizedAlpha(const Model& m, const GeneralizedAlphaOptions& o) {
  return record(m, [&](const Model& model, const AssemblyPlan& plan, const State& start,
                       const TrajectoryObserver& observer) {
    return integrateGeneralizedAlpha(model, plan, start, o, observer);
  });
}

Run runIda(const Model& m, const IdaOptions& o) {
  return record(m, [&](const Model& model, const AssemblyPlan& plan, const State& start,
                       const TrajectoryObserver& observer) {
    return DynamicsResult(integrateIda(model, plan, start, o, observer));
  });
}

GeneralizedAlphaOptions tightGeneralizedAlpha(double t_end, double output_interval,
                                              double error_tolerance) {
  GeneralizedAlphaOptions o;
  o.t_end = t_end;
  o.output_interval = output_interval;
  o.error_tolerance = error_tolerance;
  return o;
}

IdaOptions tightIda(double t_end, double output_interval) {
  IdaOptions o;
  o.t_end = t_end;
  o.output_interval = output_interval;
  o.rtol = 1e-10;
  o.atol = 1e-12;
  return o;
}

/// What the ground exerts on the mechanism at s: the sum of the reactions of the joints held by
/// the ground (force, N, and moment about the world origin, N m; world basis). It is fixed by
/// the motion (the mechanism's momentum balance), however redundant joints share it.
Wrench groundWrench(const Model& m, const State& s) {
  const std::vector<JointReaction> R =
      computeJointReactions(m, buildAssemblyPlan(m), s.q, s.t, s.lambda);
  Wrench w = Wrench::Zero();
  for (std::size_t j = 0; j < m.joints.size(); ++j) {
    const Marker& ground = m.markers[m.joints[j].marker2];
    if (ground.body != kGround) continue;
    w.head<3>() += R[j].force_world;
    w.tail<3>() += ground.position.cross(R[j].force_world) + R[j].torque_world;
  }
  return w;
}

/// The same mechanism through the builder again, the joints named in `masks` written as locks
/// with the given rows.
Model withHandMasks(const Model& m, const std::vector<std::pair<std::string, RowMask>>& masks) {
  ModelBuilder b(m.dimension, m.name + "_by_hand");
  b.setGravity(m.gravity);
  for (const Body& body : m.bodies) b.addBody(body);
  for (const Marker& marker : m.markers) b.addMarker(marker);
  for (Joint joint : m.joints) {
    for (const auto& [name, mask] : masks)
      if (joint.name == name) {
        joint.type = JointType::kLock;
        joint.mask = mask;
      }
    b.addJoint(joint);
  }
  return b.finalize();
}

/// Largest |a - b| over the positions of two runs' outputs (same bodies, same times).
double worstPositionDifference(const Run& a, const Run& b) {
  BOOST_REQUIRE_EQUAL(a.out.size(), b.out.size());
  double worst = 0.0;
  for (std::size_t k = 0; k < a.out.size(); ++k) {
    BOOST_REQUIRE(std::abs(a.out[k].t - b.out[k].t) <= 1e-12);
    worst = std::max(worst, (a.out[k].q - b.out[k].q).cwiseAbs().maxCoeff());
  }
  return worst;
}

}  // namespace

// 1. A merged lattice of 3 levels of 3 cells, hanging and released leaning (every level by its
// own angle), against the same lattice with its redundant rows removed by hand. Which rows, on
// paper: in a level, cranks 0 and 1 with the coupler form a parallelogram, so the coupler
// translates and every further crank j = 2..K is parallel to crank 0 once its bottom hinge holds
// and its top hinge's x row (coupler basis) does, h cos(phi_j) = h cos(phi_0), which fixes
// phi_j = phi_0 away from the horizontal (sin(phi) = 0, the singular configuration). Its top
// hinge's y row, h sin(phi_j) = h sin(phi_0), then holds by itself: one repeated row per extra
// crank, L (K - 1) = 6 in all, which is the rank deficit of the merged lattice (4 (K + 1) rows on
// 3 (K + 2) coordinates per level with one degree of freedom). The hand model keeps the x row of
// "hinge_crank_l_j_top", j >= 2, as a lock.
BOOST_AUTO_TEST_CASE(a_merged_lattice_moves_as_the_lattice_without_its_redundant_rows) {
  const int L = 3, K = 3;
  FourBarLatticeOptions o = leaningFourBarLattice(L, K, 0.3);
  o.merged_couplers = true;
  const Model merged = buildFourBarLattice(o);
  std::vector<std::pair<std::string, RowMask>> masks;
  for (int l = 0; l < L; ++l)
    for (int j = 2; j <= K; ++j)
      masks.emplace_back("hinge_crank_" + std::to_string(l) + "_" + std::to_string(j) + "_top",
                         RowMask(1));  // x only
  const Model hand = withHandMasks(merged, masks);
  BOOST_REQUIRE_EQUAL(hand.nc, merged.nc - L * (K - 1));
  {
    const AssemblyPlan pm = buildAssemblyPlan(merged), ph = buildAssemblyPlan(hand);
    const State s = assembled(merged, pm);
    BOOST_REQUIRE_EQUAL(analyzeConstraintRank(merged, pm, s.q, s.t).rank, hand.nc);
    BOOST_REQUIRE_EQUAL(analyzeConstraintRank(hand, ph, s.q, s.t).rank, hand.nc);
  }
  // Tolerances. Both runs integrate the same motion (the same constraint manifold near the
  // path, the same masses), so they differ by their two global errors at most. Measured against
  // IDA at rtol 1e-12 (hand runs): IDA at rtol 1e-10 errs by 1.3e-10 m and generalized-alpha
  // at 1e-10 by 2.5e-7 m over these 0.5 s (at 1e-8, 5e-6 m); the position bounds are about 4x
  // and 2x the sum. The ground wrench is the momentum balance sum m_i (a_i - g), so its error is
  // the accelerations': measured 5e-8 (IDA) and 4e-7 (generalized-alpha, whose index-3
  // multipliers oscillate from step to step) of the weight (about 100 N here; the moment, N m,
  // against the weight times 1 m); bounds 2x the sum.
  struct Case {
    const char* name;
    Run redundant, by_hand;
    double position_tol, wrench_tol;
  };
  const double t_end = 0.5, dt = 0.05;
  const GeneralizedAlphaOptions ga = tightGeneralizedAlpha(t_end, dt, 1e-10);
  Case cases[] = {{"IDA index 2", runIda(merged, tightIda(t_end, dt)),
                   runIda(hand, tightIda(t_end, dt)), 1e-9, 2e-7},
                  {"generalized-alpha", runGeneralizedAlpha(merged, ga),
                   runGeneralizedAlpha(hand, ga), 1e-6, 2e-6}};
  double weight = 0.0;
  for (const Body& body : merged.bodies) weight += body.mass * merged.gravity.norm();
  for (const Case& c : cases) {
    BOOST_TEST(c.redundant.result.redundant_rows.size() == std::size_t(L * (K - 1)), c.name);
    BOOST_TEST(c.by_hand.result.redundant_rows.empty(), c.name);
    const std::vector<double> start = fourBarLatticeLevelAngles(
        merged, c.redundant.out.front().q, static_cast<Index>(merged.bodies.size()), L);
    const std::vector<double> end = fourBarLatticeLevelAngles(
        merged, c.redundant.out.back().q, static_cast<Index>(merged.bodies.size()), L);
    for (int l = 0; l < L; ++l)
      BOOST_TEST(std::abs(end[l] - start[l]) > 0.05, c.name << ": level " << l << " moved");
    const double dq = worstPositionDifference(c.redundant, c.by_hand);
    BOOST_TEST(dq <= c.position_tol, c.name << ": positions differ by " << dq);
    double dw = 0.0;
    for (std::size_t k = 0; k < c.redundant.out.size(); ++k)
      dw = std::max(
          dw, (groundWrench(merged, c.redundant.out[k]) - groundWrench(hand, c.by_hand.out[k]))
                  .cwiseAbs()
                  .maxCoeff());
    BOOST_TEST(dw <= c.wrench_tol * weight, c.name << ": ground wrench differs by " << dw);
    BOOST_TEST_MESSAGE(c.name << ": positions " << dq << " m, ground wrench " << dw / weight
                              << " of the weight");
  }
}

namespace {

/// A slender bar of 1 m and 1 kg hinged at its top end to the ground at the origin, released at
/// rest 60 degrees from hanging. `hinges` identical revolutes at the same point: 2D the second
/// writes its rows in a basis turned by 30 degrees (F1 and F2 alike), 3D it repeats the first's
/// markers. 3D: the hinge axis is the world x, gravity -y.
Model hingedBar(int dimension, int hinges) {
  const double L = 1.0, a = std::numbers::pi / 3;
  ModelBuilder b(dimension, "bar_with_" + std::to_string(hinges) + "_hinges");
  b.setGravity(Vec3(0.0, -9.81, 0.0));
  Body bar;
  bar.name = "bar";
  bar.mass = 1.0;
  // The bar along its frame's -y from the hinge (2D: turned by a about z; 3D: about x).
  const Quat R(Eigen::AngleAxisd(a, dimension == 2 ? Vec3::UnitZ() : Vec3::UnitX()));
  bar.orientation = R;
  bar.position = R * Vec3(0.0, -0.5 * L, 0.0);
  bar.inertia = Vec3(1.0, 1e-4, 1.0).asDiagonal();
  bar.inertia *= bar.mass * L * L / 12.0;
  b.addBody(bar);
  for (int h = 0; h < hinges; ++h) {
    const std::string tag = std::to_string(h);
    const Quat turn(
        Eigen::AngleAxisd(dimension == 2 ? h * std::numbers::pi / 6 : 0.0, Vec3::UnitZ()));
    Marker top;
    top.name = "bar/top_" + tag;
    top.body = 0;
    top.position = Vec3(0.0, 0.5 * L, 0.0);
    top.orientation = turn;
    Marker pin;
    pin.name = "ground/pin_" + tag;
    pin.body = kGround;
    pin.orientation = turn;
    Joint hinge;
    hinge.name = "hinge_" + tag;
    hinge.type = JointType::kRevolute;
    hinge.marker1 = b.addMarker(top);
    hinge.marker2 = b.addMarker(pin);
    b.addJoint(hinge);
  }
  return b.finalize();
}

}  // namespace

// 2. The reactions of a redundant hinge pair: the minimum-norm multipliers share the load
// equally (the two hinges exert the same force, world basis, and the same torque), and their
// sum is the single hinge's reaction, at every output of both integrators, in 2D and 3D.
BOOST_AUTO_TEST_CASE(a_doubled_hinge_carries_half_of_the_single_hinge_reaction_each) {
  for (int dimension : {2, 3}) {
    const Model single = hingedBar(dimension, 1), doubled = hingedBar(dimension, 2);
    BOOST_REQUIRE_EQUAL(doubled.nc, 2 * single.nc);
    const double t_end = 0.5, dt = 0.05;
    // Generalized-alpha with fixed steps: with error control the step sequence hinges on
    // round-off (the second hinge's rows are written in another basis) and the index-3
    // multipliers, which oscillate from step to step (generalized_alpha.hpp), differ by 1e-3 of
    // the weight between two step sequences (measured); fixed steps give both models the same
    // discrete solution.
    GeneralizedAlphaOptions fixed = tightGeneralizedAlpha(t_end, dt, 0.0);
    fixed.error_tolerance = 0.0;
    fixed.step = 1e-3;
    const Run runs[2][2] = {
        {runIda(doubled, tightIda(t_end, dt)), runIda(single, tightIda(t_end, dt))},
        {runGeneralizedAlpha(doubled, fixed), runGeneralizedAlpha(single, fixed)}};
    // The halves are equal up to the round-off of the minimum-norm solve (a complete orthogonal
    // decomposition of C_q^T: 1e-12 relative in redundant_rows_test). The sum differs from the
    // single hinge's reaction by the two runs' errors in the acceleration, relative to the
    // weight: IDA (rtol 1e-10) by its global error, 5e-8 on the lattice above, so 2e-7 (measured
    // here: 1e-15, the same steps); generalized-alpha on the same fixed steps by the Newton
    // tolerance of its multipliers, 5e-10 of the largest (measured 2e-10), so 1e-8.
    const double weight = 9.81, sum_tols[2] = {2e-7, 1e-8};
    for (int i = 0; i < 2; ++i) {
      const Run& two = runs[i][0];
      const Run& one = runs[i][1];
      const std::string tag = two.result.method + ", " + std::to_string(dimension) + "D";
      BOOST_TEST(two.result.redundant_rows.size() == std::size_t(single.nc), tag);
      BOOST_REQUIRE_EQUAL(two.out.size(), one.out.size());
      double halves = 0.0, sum = 0.0, swing = 0.0;
      for (std::size_t k = 1; k < two.out.size(); ++k) {
        BOOST_REQUIRE(std::abs(two.out[k].t - one.out[k].t) <= 1e-12);
        const auto R2 = computeJointReactions(doubled, buildAssemblyPlan(doubled), two.out[k].q,
                                              two.out[k].t, two.out[k].lambda);
        const auto R1 = computeJointReactions(single, buildAssemblyPlan(single), one.out[k].q,
                                              one.out[k].t, one.out[k].lambda);
        Wrench a, b, s;
        a << R2[0].force_world, R2[0].torque_world;
        b << R2[1].force_world, R2[1].torque_world;
        s << R1[0].force_world, R1[0].torque_world;
        halves = std::max(halves, (a - b).cwiseAbs().maxCoeff() / s.norm());
        sum = std::max(sum, (a + b - s).cwiseAbs().maxCoeff() / weight);
        swing = std::max(swing, (two.out[k].q - two.out[0].q).cwiseAbs().maxCoeff());
      }
      BOOST_TEST(swing > 0.1, tag << ": the bar swung");
      BOOST_TEST(halves <= 1e-10, tag << ": the halves differ by " << halves);
      BOOST_TEST(sum <= sum_tols[i], tag << ": the sum is off by " << sum << " of the weight");
      BOOST_TEST_MESSAGE(tag << ": halves " << halves << ", sum " << sum);
    }
  }
}

// 3. Thread determinism of the redundant-rows runs: the same positions, velocities and
// multipliers to the bit at every output with 1 and 2 OpenMP threads, generalized-alpha and IDA
// index 2, on a merged lattice below kDenseRowLimit (dense QRCP selection and dense minimum-norm
// multipliers) and on one above it (block-wise selection, sparse minimum-norm multipliers; 1032
// joints and 520 bodies, so that the assembly's loops run threaded too, from 512 items). Few
// outputs on the large one: its sparse minimum-norm multipliers cost about a second per output
// state (hand runs, loaded machine).
BOOST_AUTO_TEST_CASE(redundant_runs_are_bitwise_the_same_on_1_and_2_threads) {
  const int saved = omp_get_max_threads();
  struct Case {
    int levels, cells;
    double t_end, dt;
  };
  for (const Case c : {Case{3, 3, 0.2, 0.02}, Case{4, 128, 0.01, 0.005}}) {
    FourBarLatticeOptions o = leaningFourBarLattice(c.levels, c.cells, 0.3);
    o.merged_couplers = true;
    const Model m = buildFourBarLattice(o);
    const std::string tag =
        std::to_string(c.levels) + " x " + std::to_string(c.cells) + " merged lattice";
    BOOST_TEST_REQUIRE((m.nv > kDenseRowLimit) == (c.cells > 3), tag << ": " << m.nv);
    IdaOptions ida;
    ida.t_end = c.t_end;
    ida.output_interval = c.dt;
    const GeneralizedAlphaOptions ga = tightGeneralizedAlpha(c.t_end, c.dt, 1e-6);
    std::vector<Run> runs[2];
    for (int threads : {1, 2}) {
      omp_set_num_threads(threads);
      runs[threads - 1].push_back(runIda(m, ida));
      runs[threads - 1].push_back(runGeneralizedAlpha(m, ga));
    }
    omp_set_num_threads(saved);
    for (std::size_t i = 0; i < runs[0].size(); ++i) {
      const Run& one = runs[0][i];
      const Run& two = runs[1][i];
      const std::string what = tag + ", " + one.result.method;
      BOOST_TEST(!one.result.redundant_rows.empty(), what);
      BOOST_TEST((one.result.redundant_rows == two.result.redundant_rows), what);
      BOOST_TEST(one.result.stats.steps == two.result.stats.steps, what);
      BOOST_REQUIRE_EQUAL(one.out.size(), two.out.size());
      BOOST_TEST(one.out.size() >= 3u, what);
      for (std::size_t k = 0; k < one.out.size(); ++k) {
        const State& a = one.out[k];
        const State& b = two.out[k];
        BOOST_TEST(a.t == b.t, what);
        BOOST_TEST(test::bitwiseEqual(a.q, b.q), what << ": positions at t = " << a.t);
        BOOST_TEST(test::bitwiseEqual(a.v, b.v), what << ": velocities at t = " << a.t);
        BOOST_TEST(a.lambda.size() == m.nc, what);
        BOOST_TEST(test::bitwiseEqual(a.lambda, b.lambda), what << ": multipliers at t = " << a.t);
      }
    }
    BOOST_TEST_MESSAGE(tag << ": " << m.nv << " coordinates, " << m.joints.size() << " joints, "
                           << runs[0][0].result.redundant_rows.size() << " rows left out");
  }
}

namespace {

/// The paper's double four-bar (two cells, one level), cranks vertical turning at -1 rad/s; merged:
/// one coupler over both cells (the modified double four-bar, 12 rows of rank 11).
Model doubleFourBar(bool merged) {
  FourBarLatticeOptions o;
  o.merged_couplers = merged;
  o.crank_rate = -1.0;
  return buildFourBarLattice(o);
}

/// MCS from the assembled start, recording every output; `rank` and `dof` get the run's.
Run runMcs(const Model& m, const McsOptions& o, Index& rank, Index& dof) {
  return record(m, [&](const Model& model, const AssemblyPlan& plan, const State& start,
                       const TrajectoryObserver& observer) {
    const McsResult r = integrateMcs(model, plan, start, o,
                                     [&](const State& s, const McsSample&) { return observer(s); });
    rank = r.rank;
    dof = r.dof;
    return r.dynamics;
  });
}

/// (x, y, theta) of body `name` at s.
Vec3 pose2(const Model& m, const State& s, const std::string& name) {
  const Index b = m.findBody(name);
  BOOST_REQUIRE(b >= 0);
  return s.q.segment<3>(m.qOffset(b));
}

}  // namespace

// 4. MCS integrates the redundant model natively (QRCP, the redundant row pivoted out): the
// modified double four-bar moves as the double four-bar with two couplers. In the parallelogram
// motion the couplers translate, so one bar of 2 kg and two of 1 kg carry the same kinetic and
// potential energy: the cranks turn alike, the merged coupler's centre is the mean of the two
// couplers' centres, and the ground exerts the same wrench. To 0.5 s, before the singular
// (horizontal) configuration at 0.714 s.
BOOST_AUTO_TEST_CASE(mcs_moves_the_modified_double_four_bar_as_the_double_four_bar) {
  const Model merged = doubleFourBar(true), plain = doubleFourBar(false);
  McsOptions o;
  o.t_end = 0.5;
  o.output_interval = 0.05;
  o.rtol = 1e-10;
  o.atol = 1e-12;
  Index rank[2], dof[2];
  const Run a = runMcs(merged, o, rank[0], dof[0]), b = runMcs(plain, o, rank[1], dof[1]);
  BOOST_TEST(rank[0] == 11);
  BOOST_TEST(rank[1] == 14);
  BOOST_TEST((dof[0] == 1 && dof[1] == 1));
  BOOST_REQUIRE_EQUAL(a.out.size(), b.out.size());
  double weight = 0.0;
  for (const Body& body : plain.bodies) weight += body.mass * plain.gravity.norm();
  double dq = 0.0, dw = 0.0;
  for (std::size_t k = 0; k < a.out.size(); ++k) {
    const State& sa = a.out[k];
    const State& sb = b.out[k];
    BOOST_REQUIRE(std::abs(sa.t - sb.t) <= 1e-12);
    for (const char* crank : {"crank_0_0", "crank_0_1", "crank_0_2"})
      dq = std::max(dq, (pose2(merged, sa, crank) - pose2(plain, sb, crank)).cwiseAbs().maxCoeff());
    const Vec3 mean = 0.5 * (pose2(plain, sb, "coupler_0_0") + pose2(plain, sb, "coupler_0_1"));
    dq = std::max(dq, (pose2(merged, sa, "coupler_0") - mean).cwiseAbs().maxCoeff());
    if (k > 0)
      dw = std::max(dw, (groundWrench(merged, sa) - groundWrench(plain, sb)).cwiseAbs().maxCoeff());
  }
  // The two runs take their own steps (64 and 66); each is within 2.4e-11 m of IDA at rtol
  // 1e-12 and its ground wrench within 9e-11 of the weight (hand runs): bounds 20x and 50x the
  // sum of the two errors.
  const double turned = pose2(merged, a.out.back(), "crank_0_0").z() - std::numbers::pi / 2;
  BOOST_TEST(std::abs(turned) > 0.1, "the cranks turned by " << turned);
  BOOST_TEST(dq <= 1e-9, "positions differ by " << dq);
  BOOST_TEST(dw <= 1e-8 * weight, "ground wrench differs by " << dw);
  BOOST_TEST_MESSAGE("MCS: positions " << dq << ", ground wrench " << dw / weight
                                       << " of the weight");
}
