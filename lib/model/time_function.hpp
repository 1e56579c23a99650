#pragma once
/// @file time_function.hpp
/// Scalar functions of time f(t) with their first and second derivatives: the prescribed
/// motions of rheonomic joints and the time scaling of applied loads.

#include <array>
#include <string>

namespace catena {

struct TimeValue {
  double value = 0.0;  ///< f(t)
  double rate = 0.0;   ///< df/dt
  double accel = 0.0;  ///< d2f/dt2
};

struct TimeFunction {
  enum class Kind { kConstant, kRamp, kSine, kPolynomial, kPulse };
  static constexpr int kMaxCoefficients = 8;

  Kind kind = Kind::kConstant;
  // kConstant: f = a.   kRamp: f = a + b * max(0, t - c) (start value a, slope b, start time c).
  // kSine: f = a + b * sin(2 pi c t + d) (offset a, amplitude b, frequency c in Hz, phase d rad).
  // kPolynomial: f = sum_k coeff[k] t^k, k < degree + 1.
  // kPulse: f = a for c <= t < d, else 0 (value a, start c, end d): a load switched on and off;
  // discontinuous, so not for prescribed motions.
  double a = 0.0, b = 0.0, c = 0.0, d = 0.0;
  std::array<double, kMaxCoefficients> coeff{};
  int degree = 0;

  static TimeFunction constant(double value);
  static TimeFunction ramp(double start_value, double slope, double start_time = 0.0);
  static TimeFunction sine(double offset, double amplitude, double frequency_hz, double phase);
  static TimeFunction polynomial(const double* coefficients, int count);
  static TimeFunction pulse(double value, double start, double end);

  /// f, f', f'' at time t. Pure, no allocation.
  TimeValue evaluate(double t) const;
  bool isConstant() const { return kind == Kind::kConstant; }
  /// One-line description for reports, e.g. "sine(offset 0, amplitude 1, 2 Hz, phase 0)".
  std::string describe() const;
};

}  // namespace catena
