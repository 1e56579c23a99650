#define BOOST_TEST_MODULE mobility_history
// The rank of C_q along a trajectory (integrators/mobility_history.hpp): the sample of a QRCP
// diagonal, and a run of the double four-bar (QRCP paper, sec. 3.2: rank 14 generic, 12 with
// the cranks horizontal) that passes its singular configuration, by the dense (MCS) and the
// block-wise (generalized-alpha) paths.
#include <boost/test/unit_test.hpp>

#include "integrators/mobility_history.hpp"
#include "io/yaml_loader.hpp"
#include "petsc_fixture.hpp"
#include "reference_odes.hpp"

using namespace catena;

BOOST_AUTO_TEST_CASE(a_sample_reads_the_retained_and_dropped_pivots) {
  VecX d(4);
  d << 2.0, 1.0, 0.5, 1e-14;
  const MobilitySample s = mobilitySample(0.25, d, 3);
  BOOST_TEST(s.t == 0.25);
  BOOST_TEST(s.rank == 3);
  BOOST_TEST(s.smallest_retained == 0.25);
  BOOST_TEST(s.largest_dropped == 5e-15);
  const MobilitySample full = mobilitySample(0.0, d.head(3), 3);
  BOOST_TEST(full.largest_dropped == 0.0);
  const MobilitySample none = mobilitySample(0.0, VecX::Zero(3), 0);
  BOOST_TEST(none.smallest_retained == 0.0);
}

BOOST_AUTO_TEST_CASE(the_double_four_bar_meets_its_singular_configuration) {
  const Model m =
      loadMechanismFile(std::string(CATENA_SOURCE_DIR) + "/inputs/double_four_bar.yaml").model;
  McsOptions o;
  o.t_end = 0.8;
  o.output_interval = 0.01;
  const MobilityHistory h = mobilityAlongTrajectory(m, buildAssemblyPlan(m), initialState(m), o);
  BOOST_REQUIRE(h.run.dynamics.status.ok());
  BOOST_TEST(h.samples.size() == 81u);
  for (const MobilitySample& s : h.samples) BOOST_TEST(s.rank == 14);
  BOOST_TEST(h.rank_change_at.empty());
  // The cranks are horizontal at 0.714 s (tests/CMakeLists.txt, simulate --formulation mcs):
  // the rank drops by 2 there (paper: 12 with all bars horizontal).
  BOOST_REQUIRE(h.run.singular_events.size() == 1u);
  BOOST_TEST(std::abs(h.run.singular_events[0].t - 0.714) < 2e-3);
  BOOST_TEST(h.run.singular_events[0].vanished.size() == 2u);
}

// The block-wise path (generalized-alpha, block-wise rank at every output) finds the same
// crossings as the dense MCS path, at the times of the parallelogram motion in closed form
// (reference_odes.hpp), for the planar double four-bar and the 3D one with full revolutes
// (6 redundant rows, left out by generalized-alpha): the rank drops by 2 at each (paper: 14 ->
// 12 planar). Gen-alpha at tolerance 1e-8 puts them 1.1e-7 s and 1.9e-6 s late (its phase error;
// 2026-11-26); the bound 2e-5 s is ten times that, and a crossing found at a wrong output, or
// on the interpolated path of the wrong interval, would be off by 1e-2 s.
BOOST_AUTO_TEST_CASE(the_blockwise_path_meets_the_same_crossings) {
  const std::vector<double> exact = reference::doubleFourBarHorizontalTimes();
  for (const char* file : {"double_four_bar", "double_four_bar_3d"}) {
    BOOST_TEST_CONTEXT(file) {
      const Model m =
          loadMechanismFile(std::string(CATENA_SOURCE_DIR) + "/inputs/" + file + ".yaml").model;
      const AssemblyPlan plan = buildAssemblyPlan(m);
      GeneralizedAlphaOptions o;
      o.t_end = 1.3;
      o.output_interval = 0.01;
      o.error_tolerance = 1e-8;
      const MobilityHistory h =
          mobilityAlongSparseTrajectory(m, plan, initialState(m), o, RankWatchOptions{});
      BOOST_REQUIRE(h.run.dynamics.status.ok());
      BOOST_TEST(h.run.rank == (m.dimension == 2 ? 14 : 29));
      BOOST_TEST(h.samples.size() == 131u);
      BOOST_REQUIRE(h.run.singular_events.size() == exact.size());
      for (std::size_t k = 0; k < exact.size(); ++k) {
        const SingularEvent& e = h.run.singular_events[k];
        BOOST_TEST(std::abs(e.t - exact[k]) < 2e-5);
        BOOST_TEST(e.vanished.size() == 2u);
        BOOST_TEST(!e.rows.empty());
        BOOST_TEST(e.margin < 1e-6);
      }
      if (m.dimension == 3) continue;
      // The dense path on the same model: the same crossings.
      McsOptions d;
      d.t_end = o.t_end;
      d.output_interval = o.output_interval;
      const MobilityHistory dense = mobilityAlongTrajectory(m, plan, initialState(m), d);
      BOOST_REQUIRE(dense.run.singular_events.size() == exact.size());
      for (std::size_t k = 0; k < exact.size(); ++k)
        BOOST_TEST(std::abs(dense.run.singular_events[k].t - h.run.singular_events[k].t) < 2e-5);
    }
  }
}
