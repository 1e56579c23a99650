#pragma once
/// @file types.hpp
/// Fixed-size Eigen aliases used everywhere in catena. double is fixed (DESIGN.md).

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <cstdint>

namespace catena {

using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;
using Vec4 = Eigen::Vector4d;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat2 = Eigen::Matrix2d;
using Mat3 = Eigen::Matrix3d;
using Mat6 = Eigen::Matrix<double, 6, 6>;
using Quat = Eigen::Quaterniond;
using VecX = Eigen::VectorXd;
using MatX = Eigen::MatrixXd;

/// Index of a body, marker, joint or force inside a Model.
using Index = std::int32_t;

/// Body index of the ground (the fixed world frame).
inline constexpr Index kGround = -1;

/// max_i |x_i|, 0 for an empty vector (a model without constraints has empty C and lambda;
/// Eigen's maxCoeff of an empty vector is undefined).
inline double maxAbs(const VecX& x) {
  return x.size() ? x.cwiseAbs().maxCoeff() : 0.0;
}

}  // namespace catena
