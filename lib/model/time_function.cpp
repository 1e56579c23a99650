#include "model/time_function.hpp"

#include <cmath>
#include <numbers>
#include <sstream>

#include "core/check.hpp"

namespace catena {

namespace {

/// A function of the given kind with its four parameters (unused ones stay 0).
TimeFunction withParameters(TimeFunction::Kind kind, double a, double b, double c, double d) {
  return {.kind = kind, .a = a, .b = b, .c = c, .d = d};
}

}  // namespace

TimeFunction TimeFunction::constant(double value) {
  return withParameters(Kind::kConstant, value, 0.0, 0.0, 0.0);
}

TimeFunction TimeFunction::ramp(double start_value, double slope, double start_time) {
  return withParameters(Kind::kRamp, start_value, slope, start_time, 0.0);
}

TimeFunction TimeFunction::sine(double offset, double amplitude, double frequency_hz,
                                double phase) {
  return withParameters(Kind::kSine, offset, amplitude, frequency_hz, phase);
}

TimeFunction TimeFunction::polynomial(const double* coefficients, int count) {
  CATENA_CHECK(count >= 1 && count <= kMaxCoefficients,
               "a polynomial needs 1 to " << kMaxCoefficients << " coefficients, got " << count);
  TimeFunction f;
  f.kind = Kind::kPolynomial;
  f.degree = count - 1;
  for (int k = 0; k < count; ++k) f.coeff[k] = coefficients[k];
  return f;
}

TimeFunction TimeFunction::pulse(double value, double start, double end) {
  CATENA_CHECK(end > start,
               "a pulse needs end > start, got start " << start << " s, end " << end << " s");
  return withParameters(Kind::kPulse, value, 0.0, start, end);
}

TimeValue TimeFunction::evaluate(double t) const {
  TimeValue out;
  switch (kind) {
    case Kind::kConstant:
      out.value = a;
      break;
    case Kind::kRamp:
      if (t > c) {
        out.value = a + b * (t - c);
        out.rate = b;
      } else {
        out.value = a;
      }
      break;
    case Kind::kSine: {
      const double w = 2.0 * std::numbers::pi * c;
      const double s = std::sin(w * t + d), co = std::cos(w * t + d);
      out.value = a + b * s;
      out.rate = b * w * co;
      out.accel = -b * w * w * s;
      break;
    }
    case Kind::kPulse:
      out.value = (t >= c && t < d) ? a : 0.0;
      break;
    case Kind::kPolynomial:
      // Horner for f, f', f''.
      for (int k = degree; k >= 0; --k) {
        out.accel = out.accel * t + 2.0 * out.rate;
        out.rate = out.rate * t + out.value;
        out.value = out.value * t + coeff[k];
      }
      break;
  }
  return out;
}

std::string TimeFunction::describe() const {
  std::ostringstream os;
  switch (kind) {
    case Kind::kConstant:
      os << "constant(" << a << ")";
      break;
    case Kind::kRamp:
      os << "ramp(start value " << a << ", slope " << b << " per s, from t = " << c << " s)";
      break;
    case Kind::kSine:
      os << "sine(offset " << a << ", amplitude " << b << ", " << c << " Hz, phase " << d
         << " rad)";
      break;
    case Kind::kPulse:
      os << "pulse(" << a << " from t = " << c << " s to " << d << " s)";
      break;
    case Kind::kPolynomial:
      os << "polynomial(";
      for (int k = 0; k <= degree; ++k) os << (k ? ", " : "") << coeff[k];
      os << ")";
      break;
  }
  return os.str();
}

}  // namespace catena
