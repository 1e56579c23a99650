#define BOOST_TEST_MODULE mobility_history
// The rank of C_q along a trajectory (integrators/mobility_history.hpp): the sample of a QRCP
// diagonal, and a run of the double four-bar (QRCP paper, sec. 3.2: rank 14 generic, 12 with
// the cranks horizontal) that passes its singular configuration.
#include <boost/test/unit_test.hpp>

#include "integrators/mobility_history.hpp"
#include "io/yaml_loader.hpp"

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
