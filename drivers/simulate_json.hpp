#pragma once
/// @file simulate_json.hpp
/// The blocks that every `catena simulate` JSON summary shares, one process or many
/// (drivers/simulate.cpp, drivers/mpi_simulate.cpp): the model's sizes, the integrator's
/// statistics and the singular configurations passed.

#include <algorithm>
#include <ostream>
#include <vector>

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

/// "singular_passages": [{from_s, failure_s, to_s, by, why}].
inline void writeSingularPassages(JsonWriter& j, const std::vector<SingularPassage>& passages) {
  j.key("singular_passages").beginArray();
  for (const SingularPassage& p : passages) {
    j.beginObject();
    j.key("from_s").value(p.from).key("failure_s").value(p.failure).key("to_s").value(p.to);
    j.key("by").value(p.by).key("why").value(p.why);
    j.endObject();
  }
  j.endArray();
}

/// The report's lines on the singular configurations passed (the first five), if any.
inline void printSingularPassages(std::ostream& os, const std::vector<SingularPassage>& passages) {
  if (passages.empty()) return;
  // Where the integrator broke down next to a singular configuration, MCS or
  // generalized-alpha took over (integrators/singular_passage.hpp).
  os << "  singular configurations passed by another integrator: " << passages.size()
     << " (the chosen one failed or left its branch next to them)\n";
  const std::size_t listed = std::min<std::size_t>(passages.size(), 5);
  for (std::size_t k = 0; k < listed; ++k)
    os << "    t = " << passages[k].from << " .. " << passages[k].to << " s by " << passages[k].by
       << " (failed at " << passages[k].failure << " s: " << passages[k].why << ")\n";
  if (listed < passages.size())
    os << "    ... and " << passages.size() - listed << " more (JSON summary)\n";
}

}  // namespace catena
