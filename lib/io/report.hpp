#pragma once
/// @file report.hpp
/// Human-readable summaries for `catena check`: what the model contains and how its constraints
/// and matrices look at the initial state.

#include <iosfwd>
#include <string>

#include "model/model.hpp"

namespace catena {

/// Assembly of the initial state: constraint violation at position and velocity level, the
/// worst rows, matrix sizes and the time of one refill of C_q and K_c.
struct AssemblyReport {
  double max_position_violation = 0.0;  ///< max |C(q0, t0)|, m or (rad-like) quaternion units
  std::string worst_position_row;       ///< Model::rowName of that row (empty if nc == 0)
  double max_velocity_violation = 0.0;  ///< max |C_q v0 + C_t|
  std::string worst_velocity_row;
  long cq_rows = 0, cq_cols = 0, cq_nonzeros = 0;
  long body_matrix_nonzeros = 0;  ///< M, D, K, K_c share one pattern
  int joint_colours = 0;          ///< parallel passes of the K_c refill
  double refill_seconds = 0.0;    ///< one refill of C_q and K_c (best of several)
  double total_mass = 0.0;        ///< kg
};

/// The report at the model's initial state (builds its own plan; times five refills of C_q and
/// K_c and keeps the best).
AssemblyReport computeAssemblyReport(const Model& model);

/// Prints the model summary (bodies, joints by type, forces, n, n_v, m, DOF estimate).
void printModelSummary(std::ostream& os, const Model& model);
/// Prints the assembly report.
void printAssemblyReport(std::ostream& os, const AssemblyReport& report);
/// Key-value lines that do not depend on timing or round-off (regression answers): counts,
/// sizes and whether the initial state satisfies the joints to kAssembledTolerance.
void printTerseCheck(std::ostream& os, const Model& model, const AssemblyReport& report);

/// Violation below which `check` calls an initial state assembled (m, or quaternion units).
inline constexpr double kAssembledTolerance = 1e-9;

}  // namespace catena
