#pragma once
/// @file natural_kinematics_run.hpp
/// Kinematic simulation of a natural-coordinates mechanism (docs/natural-coordinates.md): the
/// coordinates flagged `fixed` in the problem are the drivers, moved at their given initial
/// velocities, q_d(t) = q_d(t0) + v_d (t - t0); the others follow from C(q) = 0 by Newton steps
/// in the free coordinates (least squares, minimum norm where the drivers leave freedom), and
/// their velocities from C_q v = 0. This is what a mechanism without mass (the paper's
/// closed-chain robot, kinematics only) does under `catena simulate`.

#include <functional>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "formulations/natural/natural_model.hpp"
#include "formulations/natural/natural_yaml.hpp"

namespace catena::natural {

struct NaturalKinematicsOptions {
  double t_end = 1.0;             ///< s (absolute)
  double output_interval = 0.0;   ///< s; also the step of the position analysis
  double tolerance = 1e-12;       ///< on max |C| (units of C)
  int max_iterations = 30;        ///< Newton steps per output time
  double rank_tolerance = 1e-10;  ///< relative to the largest pivot of C_q in the free columns
};

struct NaturalKinematicsStats {
  long steps = 0;              ///< output times solved
  long newton_iterations = 0;  ///< in total
  Index rank = 0;              ///< of C_q restricted to the free coordinates, at t0
  Index free_dof = 0;          ///< free coordinates - rank: motion the drivers do not fix
  double max_position_drift = 0.0, max_velocity_drift = 0.0;  ///< max |C|, max |C_q v|
};

struct NaturalKinematicsResult {
  Status status;
  double t = 0.0;  ///< the last time solved
  VecX q, v;       ///< there
  NaturalKinematicsStats stats;
  std::vector<std::string> worst_rows;  ///< on failure: the largest residuals, by name
};

/// Called at t0 and at every output time; return false to stop (status stays ok).
using NaturalKinematicsObserver = std::function<bool(double t, const VecX& q, const VecX& v)>;

/// Runs from the problem's initial guess (made consistent first). Never throws on numerical
/// failure: a Newton iteration that does not converge or a singular configuration (rank of
/// C_q in the free coordinates drops) stops the run with a Status naming the time.
NaturalKinematicsResult runNaturalKinematics(const NaturalModel& model,
                                             const NaturalProblem& problem,
                                             const NaturalKinematicsOptions& options,
                                             const NaturalKinematicsObserver& observer);

/// True if nothing in the model carries mass (bodies, springs, particles): no dynamics.
bool isMassless(const NaturalModel& model);

}  // namespace catena::natural
