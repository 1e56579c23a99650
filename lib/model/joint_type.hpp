#pragma once
/// @file joint_type.hpp
/// The lock family of joints (tangent-stiffness paper, Table 1): one 6-row constraint of marker
/// F1 relative to marker F2, written in F2's basis, rows (x, y, z, Rx, Ry, Rz), with a mask of
/// active rows. In 2D the lock has 3 rows (x, y, theta). Axis conventions follow the paper:
/// a revolute turns about x, a prismatic slides along x, a planar joint has normal x.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace catena {

enum class JointType : std::uint8_t {
  kFix,
  kRevolute,
  kSpherical,
  kPrismatic,
  kCylindrical,
  kUniversal,
  kPlanar,
  kParallel,
  kOrthogonal,
  kDistanceAlongX,
  kPointOnLine,
  kDrivenRevolute,   ///< all rows locked; the rotation about x follows motion.angle(t)
  kDrivenPrismatic,  ///< all rows locked; the translation along x follows motion.translation[0](t)
  kLock,             ///< user-given mask
  kDistance,         ///< 2D only: |p_F1 - p_F2| = length(t)
};

/// Kernel family that evaluates a joint: one dispatch per joint (STYLE.md rule 4).
enum class JointKernel : std::uint8_t { kLock3D, kLock2D, kDistance2D };

/// Bit i set means row i is active. 3D rows: x, y, z, Rx, Ry, Rz; 2D rows: x, y, theta.
using RowMask = std::uint8_t;

/// Canonical name ("revolute", "driven_revolute", ...).
std::string_view jointTypeName(JointType t);
/// Inverse of jointTypeName; empty if the name is unknown.
std::optional<JointType> jointTypeFromName(std::string_view name);
/// Comma-separated list of the names valid in a model of this dimension (for error messages).
std::string jointTypeNames(int dimension);
/// Default row mask of a type in dimension 2 or 3; nullopt if the type does not exist there.
std::optional<RowMask> defaultMask(JointType t, int dimension);
/// Number of set bits.
int activeRowCount(RowMask mask);

}  // namespace catena
