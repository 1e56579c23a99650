#define BOOST_TEST_MODULE generators
// Generators: counts against closed forms, initial states that satisfy every joint at position
// and velocity level, and constraint ranks of the QRCP paper's four-bar family (sections 3.2-3.5).
#include "model/generators.hpp"

#include <Eigen/SVD>

#include "assembly/assemble.hpp"
#include "core/check.hpp"
#include "kernels/pose.hpp"
#include "model/model_part.hpp"
#include "model/state.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {

struct Kinematics {
  VecX C;
  MatX Cq;
};

Kinematics kinematics(const Model& m, const State& s) {
  const AssemblyPlan plan = buildAssemblyPlan(m);
  Kinematics k;
  k.C.resize(m.nc);
  SparseMatrixCSR Cq = makeConstraintMatrix(plan);
  assembleConstraints(m, plan, s.q, 0.0, &k.C, &Cq);
  k.Cq = MatX(Cq);
  return k;
}

int numericalRank(const MatX& A) {
  Eigen::JacobiSVD<MatX> svd(A);
  const auto& sv = svd.singularValues();
  int r = 0;
  for (Eigen::Index i = 0; i < sv.size(); ++i) r += sv(i) > 1e-10 * sv(0);
  return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(catenary_chain_counts_and_initial_v_shape) {
  for (int N : {2, 4, 10, 30}) {
    CatenaryChainOptions o;
    o.links = N;
    const Model m = buildCatenaryChain(o);
    BOOST_TEST(m.bodies.size() == static_cast<std::size_t>(N));
    BOOST_TEST(m.joints.size() == static_cast<std::size_t>(N + 1));
    BOOST_TEST(m.nv == 6 * N);
    BOOST_TEST(m.nc == 4 * N + 3);  // N universal joints (one at A) + the spherical end at B
    BOOST_TEST(m.dofEstimate() == 2 * N - 3);
    const State s = initialState(m);
    const Kinematics k = kinematics(m, s);
    BOOST_TEST(k.C.cwiseAbs().maxCoeff() < 1e-12,
               "initial V shape violates a joint by " << k.C.cwiseAbs().maxCoeff());
    BOOST_TEST(numericalRank(k.Cq) == m.nc, "C_q of the V shape is rank deficient");
    // The kink sits at C: the end of the last link of the first leg.
    const Index last = N / 2 - 1;
    const Vec3 end =
        m.bodies[last].position +
        m.bodies[last].orientation * Vec3(0.5 * (o.sag_point - o.end_a).norm() / (N / 2), 0, 0);
    BOOST_TEST((end - o.sag_point).norm() < 1e-12);
  }
  CatenaryChainOptions odd;
  odd.links = 5;
  BOOST_CHECK_THROW(buildCatenaryChain(odd), Error);
}

// Every link spinning about its own axis keeps all universal joints satisfied exactly (the
// relative quaternion is conjugated by a rotation about x); only the twist lock at A stops it.
// A 10^7-link chain on 1000 ranks (issue 6): each rank builds its 10^4 links and no more, each
// link where the whole chain has it. Building the parts of ranks 0, 500 and 999 here takes
// O(N / P) each; the whole chain would need about 14 GB (benchmarks/results/
// chain_statics_large.md: 13.8 kB per link).
BOOST_AUTO_TEST_CASE(a_rank_builds_only_its_part_of_a_ten_million_link_chain) {
  CatenaryChainOptions o;
  o.links = 10'000'000;
  const int ranks = 1000;
  auto at = [](const ModelPart& p, const std::string& marker) {
    const Model& m = p.model;
    return markerPosition(m, initialState(m).q.data(), m.findMarker(marker));
  };
  const ModelPart first = buildCatenaryChainPart(o, 0, ranks);
  BOOST_TEST(first.owned_bodies == 10'000);
  BOOST_TEST(first.model.bodies.size() == 10'000u);  // no ghost: rank 1 holds joint 10^4
  BOOST_TEST(first.ghost_bodies.empty());
  BOOST_TEST(first.global_bodies == 10'000'000);
  BOOST_TEST(first.global_joints == 10'000'001);
  BOOST_TEST((at(first, "link_0/start") - o.end_a).norm() <= 1e-12);

  const ModelPart middle = buildCatenaryChainPart(o, ranks / 2, ranks);
  BOOST_TEST(middle.first_body == 5'000'000);
  BOOST_TEST(middle.owned_bodies == 10'000);
  BOOST_TEST((at(middle, "link_5000000/start") - o.sag_point).norm() <= 1e-9);

  const ModelPart last = buildCatenaryChainPart(o, ranks - 1, ranks);
  BOOST_TEST(last.first_body == 9'990'000);
  BOOST_TEST(last.model.bodies.size() == 10'001u);  // and the ghost link 9'989'999
  BOOST_TEST(last.ghost_bodies == std::vector<Index>{9'989'999});
  BOOST_TEST((at(last, "link_9999999/end") - o.end_b).norm() <= 1e-9);
}

BOOST_AUTO_TEST_CASE(chain_has_no_zero_energy_twist_motion) {
  CatenaryChainOptions o;
  o.links = 6;
  const Model m = buildCatenaryChain(o);
  VecX spin = VecX::Zero(m.nv);
  for (Index k = 0; k < o.links; ++k) spin(m.vOffset(k) + 3) = 1.0;  // w_B = (1, 0, 0)
  const MatX Cq = kinematics(m, initialState(m)).Cq;
  const VecX r = Cq * spin;
  BOOST_TEST(r.cwiseAbs().maxCoeff() > 0.1, "the spin motion is admissible");
  // Every other row (all but the twist row of end_a) admits it.
  Index nonzero = 0;
  for (Index i = 0; i < m.nc; ++i)
    if (std::abs(r(i)) > 1e-12) {
      ++nonzero;
      BOOST_TEST(m.rowName(i) == "joint 'end_a' row Rx");
    }
  BOOST_TEST(nonzero == 1);
}

BOOST_AUTO_TEST_CASE(chain_mass_is_the_chain_length_times_density) {
  CatenaryChainOptions o;
  o.links = 8;
  o.mass_per_length = 2.5;
  const Model m = buildCatenaryChain(o);
  double mass = 0.0;
  for (const Body& b : m.bodies) mass += b.mass;
  const double length = (o.sag_point - o.end_a).norm() + (o.end_b - o.sag_point).norm();
  BOOST_TEST(mass == 2.5 * length, boost::test_tools::tolerance(1e-12));
}

// The paper's n, m and generic rank for the four-bar family.
BOOST_AUTO_TEST_CASE(four_bar_family_matches_the_qrcp_paper) {
  struct Expect {
    int levels, cells;
    bool merged;
    int n, m, rank;
  };
  const Expect cases[] = {
      {1, 2, false, 15, 14, 14},  // double four-bar, section 3.2
      {1, 2, true, 12, 12, 11},   // modified double, section 3.3
      {1, 3, true, 15, 16, 14},   // modified triple, section 3.4
      {2, 2, true, 24, 24, 22},   // modified 2x2, section 3.5
  };
  for (const Expect& e : cases) {
    FourBarLatticeOptions o;
    o.levels = e.levels;
    o.cells = e.cells;
    o.merged_couplers = e.merged;
    o.crank_angle = 1.1;  // generic configuration
    o.crank_rate = 0.7;
    const Model m = buildFourBarLattice(o);
    BOOST_TEST(m.nv == e.n);
    BOOST_TEST(m.nc == e.m);
    const State s = initialState(m);
    const Kinematics k = kinematics(m, s);
    BOOST_TEST(k.C.cwiseAbs().maxCoeff() < 1e-12);
    BOOST_TEST(numericalRank(k.Cq) == e.rank, "L=" << e.levels << " K=" << e.cells);
    BOOST_TEST((k.Cq * s.v).cwiseAbs().maxCoeff() < 1e-12, "initial velocity violates C_q v = 0");
  }
}

// All bars horizontal: the paper's singular configuration, where the rank drops by two for the
// double four-bar (section 3.2) and by one for the modified double (section 3.3).
BOOST_AUTO_TEST_CASE(four_bar_singular_configuration_loses_rank) {
  FourBarLatticeOptions o;
  o.crank_angle = 0.0;
  BOOST_TEST(
      numericalRank(kinematics(buildFourBarLattice(o), initialState(buildFourBarLattice(o))).Cq) ==
      12);
  o.merged_couplers = true;
  const Model m = buildFourBarLattice(o);
  BOOST_TEST(numericalRank(kinematics(m, initialState(m)).Cq) == 10);
}

// The level angles read from a leaning lattice's initial positions are the lean it was built
// with, on the whole model; on the first bodies only, the levels whose first crank is elsewhere
// read 0.
BOOST_AUTO_TEST_CASE(four_bar_lattice_level_angles_read_back_the_lean) {
  const FourBarLatticeOptions o = leaningFourBarLattice(4, 3, 0.05);
  const Model m = buildFourBarLattice(o);
  const State s = initialState(m);
  const std::vector<double> lean = fourBarLatticeInitialAngles(o);
  const std::vector<double> all =
      fourBarLatticeLevelAngles(m, s.q, static_cast<Index>(m.bodies.size()), o.levels);
  for (int l = 0; l < o.levels; ++l) {
    BOOST_TEST(lean[l] == 0.05 * std::sin(1.0 + l), boost::test_tools::tolerance(1e-12));
    BOOST_TEST(all[l] == lean[l], boost::test_tools::tolerance(1e-12));
  }
  // Level 0's 7 bodies (4 cranks, 3 couplers) come first: only its angle is read.
  const std::vector<double> first = fourBarLatticeLevelAngles(m, s.q, 7, o.levels);
  BOOST_TEST(first[0] == lean[0], boost::test_tools::tolerance(1e-12));
  for (int l = 1; l < o.levels; ++l) BOOST_TEST(first[l] == 0.0);
}
