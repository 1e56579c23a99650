#include "model/joint_type.hpp"

#include <array>
#include <bit>

namespace catena {
namespace {

struct TypeInfo {
  JointType type;
  std::string_view name;
  int mask3;  // -1: not available in 3D
  int mask2;  // -1: not available in 2D
};

// Rows as bits: x=1, y=2, z=4, Rx=8, Ry=16, Rz=32 (3D); x=1, y=2, theta=4 (2D).
constexpr std::array<TypeInfo, 15> kTypes{{
    {JointType::kFix, "fix", 0b111111, 0b111},
    {JointType::kRevolute, "revolute", 0b110111, 0b011},
    {JointType::kSpherical, "spherical", 0b000111, -1},
    {JointType::kPrismatic, "prismatic", 0b111110, 0b110},
    {JointType::kCylindrical, "cylindrical", 0b110110, -1},
    {JointType::kUniversal, "universal", 0b001111, -1},
    {JointType::kPlanar, "planar", 0b110001, -1},
    {JointType::kParallel, "parallel", 0b110000, -1},
    {JointType::kOrthogonal, "orthogonal", 0b001000, -1},
    {JointType::kDistanceAlongX, "distance_along_x", 0b000001, -1},
    {JointType::kPointOnLine, "point_on_line", 0b000110, -1},
    {JointType::kDrivenRevolute, "driven_revolute", 0b111111, 0b111},
    {JointType::kDrivenPrismatic, "driven_prismatic", 0b111111, 0b111},
    {JointType::kLock, "lock", 0, 0},
    {JointType::kDistance, "distance", -1, 0b001},
}};

}  // namespace

std::string_view jointTypeName(JointType t) {
  for (const auto& i : kTypes)
    if (i.type == t) return i.name;
  return "unknown";
}

std::optional<JointType> jointTypeFromName(std::string_view name) {
  for (const auto& i : kTypes)
    if (i.name == name) return i.type;
  return std::nullopt;
}

std::string jointTypeNames(int dimension) {
  std::string out;
  for (const auto& i : kTypes) {
    if ((dimension == 3 ? i.mask3 : i.mask2) < 0) continue;
    if (!out.empty()) out += ", ";
    out += i.name;
  }
  return out;
}

std::optional<RowMask> defaultMask(JointType t, int dimension) {
  for (const auto& i : kTypes) {
    if (i.type != t) continue;
    const int m = dimension == 3 ? i.mask3 : i.mask2;
    if (m < 0) return std::nullopt;
    return static_cast<RowMask>(m);
  }
  return std::nullopt;
}

int activeRowCount(RowMask mask) {
  return std::popcount(static_cast<unsigned>(mask));
}

}  // namespace catena
