#include "model/model.hpp"

#include <algorithm>

namespace catena {

Index Model::findBody(const std::string& name) const {
  if (name == "ground") return kGround;
  for (std::size_t i = 0; i < bodies.size(); ++i)
    if (bodies[i].name == name) return static_cast<Index>(i);
  return -2;
}

Index Model::findMarker(const std::string& name) const {
  for (std::size_t i = 0; i < markers.size(); ++i)
    if (markers[i].name == name) return static_cast<Index>(i);
  return -2;
}

JointKernel Model::jointKernel(Index j) const {
  if (dimension == 3) return JointKernel::kLock3D;
  return joints[j].type == JointType::kDistance ? JointKernel::kDistance2D : JointKernel::kLock2D;
}

Index Model::jointOfRow(Index row) const {
  // joint_row_offset is sorted: the joint is the last one starting at or before the row.
  const auto it = std::upper_bound(joint_row_offset.begin(), joint_row_offset.end(), row);
  return static_cast<Index>(it - joint_row_offset.begin()) - 1;
}

int Model::rowAxis(Index row) const {
  const Index j = jointOfRow(row);
  int k = static_cast<int>(row - joint_row_offset[j]);  // k-th active row
  int axis = 0;
  for (; axis < rows_per_joint; ++axis)
    if ((joints[j].mask & (1u << axis)) && k-- == 0) break;
  return axis;
}

void Model::countRows() {
  joint_row_offset.assign(joints.size() + 1, 0);
  for (std::size_t j = 0; j < joints.size(); ++j)
    joint_row_offset[j + 1] = joint_row_offset[j] + activeRowCount(joints[j].mask);
  nc = joint_row_offset.back();
}

std::string Model::rowName(Index row) const {
  static const char* k3[] = {"x", "y", "z", "Rx", "Ry", "Rz"};
  static const char* k2[] = {"x", "y", "theta"};
  const Joint& J = joints[jointOfRow(row)];
  const int axis = rowAxis(row);
  const char* name = J.type == JointType::kDistance ? "length"
                     : dimension == 3               ? k3[axis]
                                                    : k2[axis];
  return "joint '" + J.name + "' row " + name;
}

}  // namespace catena
