#pragma once
/// @file simulate_json.hpp
/// The blocks that every `catena simulate` JSON summary shares, one process or many
/// (drivers/simulate.cpp, drivers/mpi_simulate.cpp): the model's sizes and the integrator's
/// statistics.

#include "integrators/dynamics.hpp"
#include "io/json_writer.hpp"

namespace catena {

/// "model": {bodies, joints, nq, nv, nc}.
inline void writeSimulateModel(JsonWriter& j, const Model& m) {
  j.key("model").beginObject();
  j.key("bodies").value(static_cast<long>(m.bodies.size()));
  j.key("joints").value(static_cast<long>(m.joints.size()));
  j.key("nq").value(static_cast<long>(m.nq)).key("nv").value(static_cast<long>(m.nv));
  j.key("nc").value(static_cast<long>(m.nc));
  j.endObject();
}

/// "statistics": DynamicsStats (steps s).
inline void writeSimulateStatistics(JsonWriter& j, const DynamicsStats& s) {
  j.key("statistics").beginObject();
  j.key("steps").value(s.steps).key("rejected_steps").value(s.rejected_steps);
  j.key("newton_iterations").value(s.newton_iterations);
  j.key("jacobian_evaluations").value(s.jacobian_evaluations);
  j.key("factorizations").value(s.factorizations).key("linear_solves").value(s.linear_solves);
  j.key("error_test_failures").value(s.error_test_failures);
  j.key("convergence_failures").value(s.convergence_failures);
  j.key("smallest_step_s").value(s.smallest_step).key("largest_step_s").value(s.largest_step);
  j.endObject();
}

}  // namespace catena
