#pragma once
/// @file model_builder.hpp
/// Build, validate, finalize (STYLE.md rule 2). Every add* checks its element (and that its name
/// is non-empty and unique among its kind) and throws catena::Error with a complete sentence;
/// finalize() fixes the DOF map and the row order.
/// The YAML loader calls the same functions and prefixes the file and line to the message.

#include <string>
#include <unordered_map>

#include "model/model.hpp"

namespace catena {

/// kg: the range of body masses accepted. Outside it (a subnormal 1e-320 kg, say) products of
/// masses with SI lengths and accelerations lose their precision or overflow.
inline constexpr double kSmallestMass = 1e-20, kLargestMass = 1e20;

class ModelBuilder {
 public:
  /// dimension: 3 (spatial, mixed-basis bodies) or 2 (planar bodies (x, y, theta)); throws
  /// catena::Error otherwise.
  explicit ModelBuilder(int dimension = 3, std::string name = "mechanism");

  int dimension() const { return model_.dimension; }
  /// g in m/s^2; finite, and z = 0 in 2D.
  void setGravity(const Vec3& g);
  /// Checks mass in [kSmallestMass, kLargestMass] and a finite, symmetric inertia that is positive
  /// definite and satisfies the triangle inequalities, or exactly zero (a point mass). Normalizes
  /// the orientation (with a warning unless it was unit to 1e-12). Returns the body's index.
  Index addBody(Body body);
  /// On an existing body or the ground, finite position (z = 0 in 2D). Returns its index.
  Index addMarker(Marker marker);
  /// Fills the default mask of the type unless type is kLock (then joint.mask is used). Checks:
  /// markers exist and lie on different bodies; the type exists in this dimension; the mask has
  /// a row; a motion has a unit axis and rows to move; a distance joint a positive length.
  Index addJoint(Joint joint);
  /// On an existing marker of a body (not the ground), finite force and torque.
  Index addLoad(MarkerLoad load);
  /// Existing markers; finite parameters, stiffness, damping and rest length >= 0.
  Index addSpring(SpringDamper spring);
  /// Existing markers; finite parameters, stiffness and damping >= 0.
  Index addRotationalSpring(RotationalSpringDamper spring);

  /// kGround for "ground", -2 if unknown. O(1).
  Index findBody(const std::string& name) const;
  /// -2 if unknown. O(1).
  Index findMarker(const std::string& name) const;
  const Model& peek() const { return model_; }
  void warn(std::string message) { model_.warnings.push_back(std::move(message)); }

  /// Fixes sizes and row offsets; the builder is left empty.
  Model finalize();

 private:
  using NameMap = std::unordered_map<std::string, Index>;
  void claimName(NameMap& names, const std::string& kind, const std::string& name, Index index);
  void checkMarker(const std::string& what, Index marker) const;
  /// checkMarker for the two markers of a joint or force ("<what> (marker1)", "... (marker2)").
  void checkMarkers(const std::string& what, Index marker1, Index marker2) const;
  /// Claims item.name among `names` (a `kind` name) and appends item; returns its index.
  template <typename T>
  Index append(NameMap& names, const std::string& kind, std::vector<T>& items, T item);
  Model model_;
  NameMap body_names_, marker_names_, joint_names_, force_names_;
};

}  // namespace catena
