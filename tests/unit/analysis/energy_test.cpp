// analysis/energy.hpp: judgeEnergyChange, the energy witness of simulate's warnings. A relative
// size only against a kinetic energy that can measure it (a pendulum held by a `fix` printed
// "1.16e+12 %" for a round-off change), joules and the reason otherwise, never "inf %".
#define BOOST_TEST_MODULE analysis_energy
#include "analysis/energy.hpp"

#include <boost/test/unit_test.hpp>
#include <limits>

using namespace catena;

BOOST_AUTO_TEST_CASE(round_off_of_the_totals_is_no_change) {
  // The pendulum held by a fix: -588.6 J, a change of 7e-12 J, kinetic energy 1e-30 J.
  const EnergyChange c = judgeEnergyChange(-588.6, -588.6 + 7.05e-12, 1e-30);
  BOOST_TEST(!c.suspicious);
  BOOST_TEST(judgeEnergyChange(0.0, 0.0, 0.0).description.empty());
  BOOST_TEST(!judgeEnergyChange(0.0, 0.0, 0.0).suspicious);
}

BOOST_AUTO_TEST_CASE(relative_to_a_kinetic_energy_that_measures_it) {
  const EnergyChange small = judgeEnergyChange(-10.0, -9.995, 1.0);  // 0.5 %
  BOOST_TEST(!small.suspicious);
  const EnergyChange large = judgeEnergyChange(-10.0, -9.5, 2.0);  // 25 %
  BOOST_TEST(large.suspicious);
  BOOST_TEST(large.description == "by 25 % of the largest kinetic energy (2 J)");
}

BOOST_AUTO_TEST_CASE(joules_and_why_when_the_mechanism_hardly_moved) {
  const EnergyChange c = judgeEnergyChange(-588.6, -588.5, 1e-30);
  BOOST_TEST(c.suspicious);
  BOOST_TEST(c.description.find("%") == std::string::npos, c.description);
  BOOST_TEST(c.description.find("by 0.1") == 0, c.description);
  BOOST_TEST(c.description.find("too small to measure it against") != std::string::npos);
  // No kinetic energy at all: the same, not "inf %".
  const EnergyChange z = judgeEnergyChange(1.0, 2.0, 0.0);
  BOOST_TEST(z.suspicious);
  BOOST_TEST(z.description.find("%") == std::string::npos, z.description);
  BOOST_TEST(z.description.find("inf") == std::string::npos, z.description);
}

BOOST_AUTO_TEST_CASE(an_energy_that_is_not_a_number) {
  const double inf = std::numeric_limits<double>::infinity();
  const EnergyChange c = judgeEnergyChange(-1.0, inf, 1.0);
  BOOST_TEST(c.suspicious);
  BOOST_TEST(c.description == "from -1 J to inf J");
  BOOST_TEST(c.description.find("%") == std::string::npos);
}
