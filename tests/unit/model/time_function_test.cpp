#define BOOST_TEST_MODULE time_function
#include "model/time_function.hpp"

#include <cmath>
#include <numbers>

#include "core/check.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {
// Derivatives against central differences of the values at t +- h.
void checkDerivatives(const TimeFunction& f, double t) {
  const double h = 1e-5;
  const TimeValue v = f.evaluate(t), p = f.evaluate(t + h), m = f.evaluate(t - h);
  BOOST_TEST(v.rate == (p.value - m.value) / (2 * h), boost::test_tools::tolerance(1e-7));
  BOOST_TEST(v.accel == (p.rate - m.rate) / (2 * h), boost::test_tools::tolerance(1e-7));
}
}  // namespace

BOOST_AUTO_TEST_CASE(closed_forms) {
  BOOST_TEST(TimeFunction::constant(2.5).evaluate(7.0).value == 2.5);
  const TimeFunction r = TimeFunction::ramp(1.0, 2.0, 0.5);
  BOOST_TEST(r.evaluate(0.0).value == 1.0);
  BOOST_TEST(r.evaluate(0.0).rate == 0.0);
  BOOST_TEST(r.evaluate(2.0).value == 4.0);
  BOOST_TEST(r.evaluate(2.0).rate == 2.0);
  const TimeFunction s = TimeFunction::sine(0.5, 2.0, 0.25, 0.1);
  const double t = 0.7, w = 2 * std::numbers::pi * 0.25;
  BOOST_TEST(s.evaluate(t).value == 0.5 + 2.0 * std::sin(w * t + 0.1),
             boost::test_tools::tolerance(1e-15));
  const double c[] = {1.0, -2.0, 0.5, 0.25};
  const TimeFunction p = TimeFunction::polynomial(c, 4);
  BOOST_TEST(p.evaluate(2.0).value == 1.0 - 4.0 + 2.0 + 2.0, boost::test_tools::tolerance(1e-15));
  BOOST_TEST(p.evaluate(2.0).rate == -2.0 + 2.0 + 3.0, boost::test_tools::tolerance(1e-15));
  BOOST_TEST(p.evaluate(2.0).accel == 1.0 + 3.0, boost::test_tools::tolerance(1e-15));
}

BOOST_AUTO_TEST_CASE(derivatives_match_finite_differences) {
  const double c[] = {0.3, -1.0, 0.7, 0.2, -0.05};
  for (double t : {0.1, 0.9, 2.3}) {
    checkDerivatives(TimeFunction::sine(0.1, 1.3, 0.8, -0.4), t);
    checkDerivatives(TimeFunction::polynomial(c, 5), t);
    checkDerivatives(TimeFunction::ramp(-1.0, 0.5, 0.0), t);
  }
}

BOOST_AUTO_TEST_CASE(pulse_is_on_between_start_and_end) {
  const TimeFunction p = TimeFunction::pulse(3.0, 1.0, 5.0);
  BOOST_TEST(p.evaluate(0.999).value == 0.0);
  BOOST_TEST(p.evaluate(1.0).value == 3.0);
  BOOST_TEST(p.evaluate(4.999).value == 3.0);
  BOOST_TEST(p.evaluate(5.0).value == 0.0);
  BOOST_TEST(p.evaluate(2.0).rate == 0.0);
  BOOST_CHECK_THROW(TimeFunction::pulse(1.0, 2.0, 2.0), Error);
}

BOOST_AUTO_TEST_CASE(polynomial_rejects_bad_sizes) {
  const double c[9] = {};
  BOOST_CHECK_THROW(TimeFunction::polynomial(c, 0), std::runtime_error);
  BOOST_CHECK_THROW(TimeFunction::polynomial(c, 9), std::runtime_error);
}
