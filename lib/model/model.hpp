#pragma once
/// @file model.hpp
/// The mechanism description (DESIGN.md "Model"): plain data, built and validated by
/// ModelBuilder, never mutated by analyses. State (q, v, lambda, t) lives elsewhere.
///
/// Coordinates (NOTATION.md): a 3D body has nq = 7 position coordinates (r_WB_W, quaternion
/// (s, v)) and nv = 6 velocity coordinates (v_WB_W, w_WB_B: world linear velocity, local angular
/// velocity). A 2D body has (x, y, theta) for both. Units are SI throughout.

#include <string>
#include <vector>

#include "core/types.hpp"
#include "model/joint_type.hpp"
#include "model/time_function.hpp"

namespace catena {

struct Body {
  std::string name;
  double mass = 0.0;            ///< kg, > 0
  Vec3 com = Vec3::Zero();      ///< centre of mass in the body frame, m (2D: x, y)
  Mat3 inertia = Mat3::Zero();  ///< about the centre of mass, body basis, kg m^2 (2D: (2,2) = Izz)
  // Initial state (a description of where the run starts, copied into the State by analyses).
  Vec3 position = Vec3::Zero();          ///< r_WB_W, m (2D: x, y)
  Quat orientation = Quat::Identity();   ///< R_WB (2D: rotation about z by the angle)
  Vec3 velocity = Vec3::Zero();          ///< v_WB_W, m/s
  Vec3 angular_velocity = Vec3::Zero();  ///< w_WB_B, rad/s (2D: z component)
  /// Velocity coordinates that the assembly of the initial state keeps (bit i: coordinate i of
  /// (dx, dy, dz, rx, ry, rz), 2D (dx, dy, dtheta)); rotations are local to the body.
  std::uint8_t fixed = 0;
  bool isPointMass() const { return inertia.isZero(0.0); }
};

/// A frame F fixed on a body B (or on the ground): p_BF_B and R_BF.
struct Marker {
  std::string name;
  Index body = kGround;
  Vec3 position = Vec3::Zero();         ///< m (2D: x, y)
  Quat orientation = Quat::Identity();  ///< (2D: rotation about z)
};

/// Prescribed relative motion of F1 in F2 for rheonomic joints: the translation r_t(t) in F2's
/// basis and the rotation exp(axis * angle(t)). In 2D the rotation is about z.
struct JointMotion {
  TimeFunction translation[3];
  Vec3 axis = Vec3::UnitX();  ///< unit vector, F2 basis (2D: ignored, z)
  TimeFunction angle;         ///< rad
  bool active = false;        ///< false: scleronomic
};

struct Joint {
  std::string name;
  JointType type = JointType::kFix;
  Index marker1 = -1;  ///< F1, on the driven body B1
  Index marker2 = -1;  ///< F2, on the main body B2; rows are written in F2's basis
  RowMask mask = 0;    ///< active rows
  JointMotion motion;
  TimeFunction length;  ///< kDistance only, m
};

/// Force and torque on a marker, each scaled by a function of time. Applied at the marker's
/// origin, in the world basis or (follower load) in the marker's basis.
struct MarkerLoad {
  std::string name;
  Index marker = -1;
  Vec3 force = Vec3::Zero();   ///< N
  Vec3 torque = Vec3::Zero();  ///< N m (2D: z)
  bool in_marker_basis = false;
  TimeFunction scale = TimeFunction::constant(1.0);
};

/// Translational spring-damper between the origins of two markers. Tension is positive:
/// T = stiffness (L - rest_length) + damping dL/dt + preload.
struct SpringDamper {
  std::string name;
  Index marker1 = -1, marker2 = -1;
  double stiffness = 0.0;    ///< N/m
  double damping = 0.0;      ///< N s/m
  double rest_length = 0.0;  ///< m
  double preload = 0.0;      ///< N
};

/// Rotational spring-damper between two marker frames: torque on B1, in F2's basis,
/// tau = -stiffness Log(R_F2^T R_F1) - damping w_rel (3D: at rest when the frames coincide;
/// w_rel = R_F2^T (w_F1_W - w_F2_W)); tau = -k (theta_rel - rest_angle) - c dtheta_rel/dt (2D).
struct RotationalSpringDamper {
  std::string name;
  Index marker1 = -1, marker2 = -1;
  double stiffness = 0.0;   ///< N m/rad
  double damping = 0.0;     ///< N m s/rad
  double rest_angle = 0.0;  ///< 2D only, rad
};

struct Model {
  std::string name;
  int dimension = 3;            ///< 2 or 3
  Vec3 gravity = Vec3::Zero();  ///< m/s^2

  std::vector<Body> bodies;
  std::vector<Marker> markers;
  std::vector<Joint> joints;
  std::vector<MarkerLoad> loads;
  std::vector<SpringDamper> springs;
  std::vector<RotationalSpringDamper> rotational_springs;

  // Fixed by finalize(): sizes and the constraint-row order.
  int nq_body = 7, nv_body = 6, rows_per_joint = 6;
  Index nq = 0, nv = 0;                 ///< position and velocity coordinates
  Index nc = 0;                         ///< active constraint rows (m)
  std::vector<Index> joint_row_offset;  ///< first row of joint j; size joints + 1
  std::vector<std::string> warnings;    ///< collected while building (e.g. normalized quats)

  Index qOffset(Index body) const { return body * nq_body; }
  Index vOffset(Index body) const { return body * nv_body; }
  Index markerBody(Index marker) const { return markers[marker].body; }
  /// Index of a body by name, kGround for "ground", -2 if unknown.
  Index findBody(const std::string& name) const;
  /// Index of a marker by name, -2 if unknown.
  Index findMarker(const std::string& name) const;
  /// The kernel family that evaluates joint j (one dispatch per joint).
  JointKernel jointKernel(Index j) const;
  /// Joint that owns constraint row `row` (0 <= row < nc).
  Index jointOfRow(Index row) const;
  /// The row's axis in its joint's mask (0..rows_per_joint-1: x y z Rx Ry Rz, or x y theta).
  int rowAxis(Index row) const;
  /// joint_row_offset and nc from the joints' masks (finalize(); again after a mask changes).
  void countRows();
  /// "joint 'hinge' row Ry": what a constraint row constrains, for reports.
  std::string rowName(Index row) const;
  /// Grübler-style mobility estimate nv - nc (ignores redundancy).
  Index dofEstimate() const { return nv - nc; }
};

}  // namespace catena
