#pragma once
/// @file test_support.hpp
/// Shared helpers for the Boost.Test executables: seeded random configurations and a matrix
/// comparison that reports the worst entry.

#include <boost/test/unit_test.hpp>

#include <cstring>
#include <random>
#include <sstream>
#include <string>

#include "core/types.hpp"
#include "math/rotation.hpp"

namespace catena::test {

/// Deterministic random source; each test seeds its own.
class Random {
 public:
  explicit Random(unsigned seed) : gen_(seed) {}
  double uniform(double lo = -1.0, double hi = 1.0) {
    return std::uniform_real_distribution<double>(lo, hi)(gen_);
  }
  Vec3 vec3(double scale = 1.0) { return scale * Vec3(uniform(), uniform(), uniform()); }
  Vec2 vec2(double scale = 1.0) { return scale * Vec2(uniform(), uniform()); }
  Mat3 mat3() {
    Mat3 m;
    for (int i = 0; i < 9; ++i) m(i) = uniform();
    return m;
  }
  /// Uniformly distributed unit quaternion with positive scalar part.
  Quat quat() {
    std::normal_distribution<double> n(0.0, 1.0);
    Quat q(n(gen_), n(gen_), n(gen_), n(gen_));
    q.normalize();
    if (q.w() < 0.0) q.coeffs() *= -1.0;
    return q;
  }
  std::mt19937& engine() { return gen_; }

 private:
  std::mt19937 gen_;
};

/// max |A - B| <= tol * max(1, max |B|)? Reports the worst entry on failure.
template <typename A, typename B>
void checkClose(const A& a, const B& b, double tol, const std::string& what) {
  BOOST_REQUIRE_EQUAL(a.rows(), b.rows());
  BOOST_REQUIRE_EQUAL(a.cols(), b.cols());
  const MatX diff = (MatX(a) - MatX(b)).cwiseAbs();
  Eigen::Index i = 0, j = 0;
  const double worst = diff.size() ? diff.maxCoeff(&i, &j) : 0.0;
  const double scale = std::max(1.0, b.size() ? MatX(b).cwiseAbs().maxCoeff() : 0.0);
  if (worst > tol * scale) {
    std::ostringstream os;
    os << what << ": worst entry (" << i << ", " << j << ") is " << MatX(a)(i, j) << " vs "
       << MatX(b)(i, j) << ", |diff| = " << worst << " > " << tol << " * " << scale;
    BOOST_ERROR(os.str());
  }
}

/// Bitwise equality of two dense or sparse-as-dense arrays.
template <typename A, typename B>
bool bitwiseEqual(const A& a, const B& b) {
  if (a.size() != b.size()) return false;
  for (Eigen::Index k = 0; k < a.size(); ++k)
    if (std::memcmp(&a.data()[k], &b.data()[k], sizeof(double)) != 0) return false;
  return true;
}

}  // namespace catena::test
