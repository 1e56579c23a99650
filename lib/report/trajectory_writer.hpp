#pragma once
/// @file trajectory_writer.hpp
/// Time histories of a dynamics run: one row per output time with the chosen bodies (position,
/// quaternion, linear and angular velocity), the chosen joints (reaction force and torque on B1
/// in F2's basis), the energies, and the constraint drift at position and velocity level.
/// Every column name says its unit and basis, NAME.QUANTITY_UNIT_BASIS:
///   BODY.x_m_world .. z_m_world        origin of the body frame, world basis
///   BODY.qw_body_to_world .. qz        unit quaternion rotating body vectors into the world
///   BODY.vx_m/s_world .. vz_m/s_world  velocity of that origin, world basis
///   BODY.wx_rad/s_body .. wz_rad/s_body  angular velocity, body basis (the mixed basis)
///   2D: BODY.x_m_world y_m_world theta_rad_world vx_m/s_world vy_m/s_world omega_rad/s_world
///   JOINT.Fx_N_F2 .. Mz_Nm_F2          force and torque on B1, basis of the joint's marker2
///   kinetic_J potential_J total_J
///   position_drift_m_or_rad            max |C|: m for translation rows, rad for 2D angle rows
///                                      (3D rotation rows: the relative quaternion's imaginary
///                                      part, about half the angle in rad)
///   velocity_drift_m/s_or_rad/s        max |C_q v + C_t|, the same rows' rates
/// CSV with a header, or a compact binary file for big runs:
///   "CATENA-TRAJECTORY 1\n", then the column count n as a line, then n names one per line, then
///   rows of n little-endian float64 values.
/// The file is written through io/output_file.hpp: to a temporary during the run, every row
/// checked, renamed into place by close(); without close() (an exception) no file is left.

#include <string>
#include <vector>

#include "assembly/plan.hpp"
#include "io/output_file.hpp"
#include "model/state.hpp"

namespace catena {

struct TrajectoryColumns {
  std::vector<Index> bodies;  ///< bodies whose state is written
  std::vector<Index> joints;  ///< joints whose reactions are written
  bool energy = true;
  bool drift = true;
};

class TrajectoryWriter {
 public:
  /// Opens `path` (binary if it ends in ".bin"); throws catena::Error if it cannot.
  TrajectoryWriter(const std::string& path, const Model& model, const AssemblyPlan& plan,
                   const TrajectoryColumns& columns);
  /// Writes one row; throws catena::Error "cannot write PATH: REASON" if a write failed.
  void write(const State& s);
  /// Puts the file in place (OutputFile::commit); throws catena::Error as write().
  void close() { out_.commit(); }
  const std::vector<std::string>& names() const { return names_; }
  /// Largest drifts seen so far: |C|_inf (m or rad) and |C_q v + C_t|_inf (m/s or rad/s).
  double maxPositionDrift() const { return max_position_drift_; }
  double maxVelocityDrift() const { return max_velocity_drift_; }
  /// Largest kinetic energy written so far, J (the scale of energy errors).
  double maxKineticEnergy() const { return max_kinetic_; }

 private:
  const Model& model_;
  const AssemblyPlan& plan_;
  TrajectoryColumns columns_;
  OutputFile out_;
  bool binary_ = false;
  std::vector<std::string> names_;
  std::vector<double> row_;
  SparseMatrixCSR Cq_;
  VecX C_, Ct_;
  double max_position_drift_ = 0.0, max_velocity_drift_ = 0.0, max_kinetic_ = 0.0;
};

}  // namespace catena
