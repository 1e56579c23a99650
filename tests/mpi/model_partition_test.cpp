#define BOOST_TEST_MODULE model_partition
// Any model a rank can hold runs through the distributed analyses (issue 27): a YAML input,
// partitioned by parallel/model_partition.hpp, reaches the equilibrium of the serial statics on
// 1, 2 and 4 ranks, in as many Newton iterations. Every check is reduced over the ranks first.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "core/check.hpp"
#include "io/yaml_loader.hpp"
#include "model/state.hpp"
#include "mpi_support.hpp"
#include "parallel/distributed_assembly.hpp"
#include "parallel/model_partition.hpp"
#include "petsc_fixture.hpp"
#include "statics/distributed_statics.hpp"
#include "statics/statics.hpp"

using namespace catena;
using namespace catena::test;

namespace {

Model input(const std::string& name) {
  return loadMechanismFile(std::string(CATENA_SOURCE_DIR) + "/inputs/" + name).model;
}

/// Largest distance (m) of a body's position in the distributed equilibrium from the serial one,
/// over every rank's owned bodies; iterations of both.
struct Agreement {
  double position = INFINITY;
  int iterations = -1, serial_iterations = -2;
};

Agreement compareWithSerial(const Model& whole) {
  const StaticsResult s = solveStatics(whole, buildAssemblyPlan(whole), initialState(whole));
  BOOST_TEST(s.status.ok(), s.status.message);
  const PartitionedModel pm = partitionModel(whole);
  const DistributedModel dm(pm.part);
  DistributedAssembly as(dm);
  const DistributedStaticsResult d = solveDistributedStatics(as);
  BOOST_TEST(d.status.ok(), d.status.message);
  const Model& local = dm.local();
  double diff = 0.0;
  for (Index b = 0; b < pm.part.owned_bodies; ++b)
    diff = std::max(diff, (d.state.q.segment(local.qOffset(b), 3) -
                           s.state.q.segment(whole.qOffset(pm.body[b]), 3))
                              .norm());
  Agreement a;
  a.position = allMax(diff);
  a.iterations = static_cast<int>(d.history.size()) - 1;
  a.serial_iterations = static_cast<int>(s.history.size()) - 1;
  if (worldRank() == 0)
    BOOST_TEST_MESSAGE(whole.name << " on " << worldSize() << " ranks (" << pm.partitioner
                                  << "): " << a.iterations << " iterations (" << a.serial_iterations
                                  << " serial), positions within " << a.position << " m");
  return a;
}

}  // namespace

// The YAML inputs whose statics has a stable equilibrium and no springs.
BOOST_AUTO_TEST_CASE(yaml_inputs_reach_the_serial_equilibrium) {
  for (const char* name : {"catenary_chain.yaml", "anchor_chain.yaml"}) {
    const Model whole = input(name);
    const Agreement a = compareWithSerial(whole);
    BOOST_TEST(a.position <= 1e-9, name << ": " << a.position << " m");
    BOOST_TEST(a.iterations == a.serial_iterations, name);
  }
}

// A model with fewer bodies than ranks is refused on every rank alike, with the reason; one that
// has enough runs: a 2-link chain on 1 and 2 ranks, refused on 4.
BOOST_AUTO_TEST_CASE(a_model_too_small_for_the_ranks_is_refused_on_every_rank) {
  const Model chain = wholeChain(2);
  if (worldSize() <= 2) {
    const Agreement a = compareWithSerial(chain);
    BOOST_TEST(a.position <= 1e-9);
    return;
  }
  std::string why;
  try {
    partitionModel(chain);
  } catch (const Error& e) {
    why = e.what();
  }
  BOOST_TEST(why.find("leaves a rank without") != std::string::npos, why);
  BOOST_TEST(allMax(why.empty() ? 1.0 : 0.0) == 0.0);
}

// A joint whose body 1 is the ground is held by its body 2 (model_part.hpp holdingBody): the
// catenary chain with its supports' markers swapped (the ground first) hangs as the serial one.
BOOST_AUTO_TEST_CASE(a_joint_whose_body_1_is_the_ground_is_held_by_body_2) {
  Model whole = input("catenary_chain.yaml");
  int swapped = 0;
  for (Joint& j : whole.joints)
    if (whole.markerBody(j.marker2) == kGround) {
      std::swap(j.marker1, j.marker2);
      ++swapped;
    }
  BOOST_REQUIRE(swapped == 2);
  const Agreement a = compareWithSerial(whole);
  BOOST_TEST(a.position <= 1e-9, a.position << " m");
}
