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

/// Step of the central differences in the derivative tests, and the tolerance (relative to
/// max(1, max |reference|), see checkClose) most of them are held to.
inline constexpr double kFdStep = 1e-6;
inline constexpr double kFdTol = 1e-6;

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

/// The cubic Hermite interpolant through (x0, x0dot) and (x1, x1dot) on an interval of length h,
/// at s in [0, 1] (0: the first sample, 1: the second).
inline double cubicHermite(double x0, double x0dot, double x1, double x1dot, double h, double s) {
  const double s2 = s * s, s3 = s2 * s;
  return (2 * s3 - 3 * s2 + 1) * x0 + (s3 - 2 * s2 + s) * h * x0dot + (-2 * s3 + 3 * s2) * x1 +
         (s3 - s2) * h * x1dot;
}

/// dF/dy + c_j dF/dy' of a DAE residual by central differences along the BDF direction
/// (dy' = c_j dy): column k is (F(y + h e_k, y' + c_j h e_k) - F(y - h e_k, y' - c_j h e_k)) / 2h.
/// residual(y, y', F) fills F (size of y).
template <typename Residual>
MatX newtonMatrixByDifferences(const VecX& y, const VecX& yp, double c_j, double h,
                               Residual&& residual) {
  const Eigen::Index N = y.size();
  MatX fd(N, N);
  VecX Fp(N), Fm(N);
  for (Eigen::Index k = 0; k < N; ++k) {
    VecX y1 = y, y2 = y, yp1 = yp, yp2 = yp;
    y1(k) += h;
    y2(k) -= h;
    yp1(k) += c_j * h;
    yp2(k) -= c_j * h;
    residual(y1, yp1, Fp);
    residual(y2, yp2, Fm);
    fd.col(k) = (Fp - Fm) / (2 * h);
  }
  return fd;
}

/// The message of the exception E that f() throws, or "" if it throws none.
template <typename E, typename F>
std::string messageOf(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
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
