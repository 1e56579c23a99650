#include "math/rotation.hpp"

namespace catena {

Mat3 inverseRightJacobian(const Vec3& phi) {
  const double a = phi.norm();
  const Mat3 w = skew(phi);
  // Jr^-1 = I + 1/2 w + (1/a^2 - (1 + cos a) / (2 a sin a)) w^2; the bracket -> 1/12 as a -> 0.
  double c;
  if (a < 1e-4) {
    c = 1.0 / 12.0 + a * a / 720.0;
  } else {
    c = 1.0 / (a * a) - (1.0 + std::cos(a)) / (2.0 * a * std::sin(a));
  }
  return Mat3::Identity() + 0.5 * w + c * w * w;
}

}  // namespace catena
