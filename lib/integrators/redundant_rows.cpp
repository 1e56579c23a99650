#include "integrators/redundant_rows.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"

namespace catena {

RedundancyWatch::RedundancyWatch(const Model& model, const AssemblyPlan& plan,
                                 const IndependentRows& rows)
    : model_(model),
      plan_(plan),
      selection_(rows),
      C_(model.nc),
      length_scale_(lengthScale(model)) {}

bool RedundancyWatch::holds(const State& s) {
  if (!status_.ok()) return false;
  assembleConstraints(model_, plan_, s.q, s.t, &C_, nullptr);
  double kept = 0.0, dropped = 0.0;
  for (Index row : selection_.kept) kept = std::max(kept, std::abs(C_[row]));
  for (Index row : selection_.dropped) dropped = std::max(dropped, std::abs(C_[row]));
  if (dropped <= 100.0 * kept + 1e-8 * length_scale_) return true;
  std::ostringstream os;
  os << "the constraint rows left out as redundant at the start are no longer satisfied at t = "
     << s.t << " s (|C| = " << dropped << " m against " << kept
     << " m on the kept rows): they are not redundant there (the start, or this point, is a "
        "singular configuration), and the motion after it would be another mechanism's. "
        "--formulation mcs integrates through rank changes";
  status_ = Status::failure(Status::Code::kNotConverged, os.str());
  for (std::size_t k = 0; k < selection_.dropped.size() && k < 5; ++k) {
    std::ostringstream r;
    r << selection_.dropped_names[k] << ": " << C_[selection_.dropped[k]];
    rows_.push_back(r.str());
  }
  return false;
}

}  // namespace catena
