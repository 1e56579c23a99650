#pragma once
/// @file generator_support.hpp
/// Small constructors shared by the generators' source files (not part of the public API).

#include <string>
#include <utility>

#include "model/model.hpp"

namespace catena::generator_support {

inline Marker marker(std::string name, Index body, const Vec3& p) {
  Marker m;
  m.name = std::move(name);
  m.body = body;
  m.position = p;
  return m;
}

inline Joint joint(std::string name, JointType type, Index m1, Index m2) {
  Joint j;
  j.name = std::move(name);
  j.type = type;
  j.marker1 = m1;
  j.marker2 = m2;
  return j;
}

}  // namespace catena::generator_support
