#define BOOST_TEST_MODULE scales
// The displacement weights of the error and convergence tests (analysis/scales.hpp): a link's
// rotation weighs its half length over the mechanism's size, so refining a chain does not
// tighten the tests; translations weigh 1 / length scale in 2D and 3D.
#include "analysis/scales.hpp"

#include "model/generators.hpp"
#include "test_support.hpp"

using namespace catena;

BOOST_AUTO_TEST_CASE(chain_link_rotations_weigh_their_half_length) {
  for (int N : {10, 100}) {
    CatenaryChainOptions o;
    o.links = N;
    const Model m = buildCatenaryChain(o);
    const double ls = lengthScale(m);
    const VecX w = displacementWeights(m, ls);
    const double half = 0.5 * (o.sag_point - o.end_a).norm() / (N / 2);
    BOOST_REQUIRE(w.size() == m.nv);
    for (Index b = 0; b < static_cast<Index>(m.bodies.size()); ++b)
      for (int i = 0; i < 6; ++i) {
        const double expected = i < 3 ? 1.0 / ls : half / ls;
        BOOST_TEST(std::abs(w(m.vOffset(b) + i) - expected) <= 1e-14 * expected);
      }
    // A rotation of 1 rad of any link moves its ends by half a link: the weighted norm says so.
    VecX dq = VecX::Zero(m.nv);
    dq(m.vOffset(N / 2) + 4) = 1.0;
    BOOST_TEST(std::abs(weightedMaxNorm(w, dq) * ls - half) <= 1e-14 * half);
  }
}

BOOST_AUTO_TEST_CASE(planar_bars_and_point_masses) {
  ModelBuilder b(2, "bars");
  Body bar;
  bar.name = "bar";
  bar.mass = 2.0;
  bar.inertia(2, 2) = 2.0 * 0.5 * 0.5 / 12.0;  // 0.5 m bar about its centre
  b.addBody(bar);
  Body point;
  point.name = "point";
  point.mass = 1.0;
  point.position = Vec3(3.0, 0.0, 0.0);
  b.addBody(point);
  const Model m = b.finalize();
  const double ls = lengthScale(m);
  const VecX w = displacementWeights(m, ls);
  BOOST_REQUIRE(w.size() == 6);
  BOOST_TEST(w(0) == 1.0 / ls);
  BOOST_TEST(w(1) == 1.0 / ls);
  BOOST_TEST(std::abs(w(2) - 0.5 / std::sqrt(12.0) / ls) <= 1e-15);  // radius of gyration
  BOOST_TEST(w(5) == 1.0);                                           // no size: 1 per rad
}
