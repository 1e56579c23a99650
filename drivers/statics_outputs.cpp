/// @file statics_outputs.cpp
/// The outputs of `catena statics|modal` after the tables (drivers/statics_outputs.hpp).

#include "statics_outputs.hpp"

#include <iostream>

#include "report/vtk_writer.hpp"

namespace catena {

int writeStaticsOutputs(const StaticsOutputs& o, const Model& m, const StaticsResult& st,
                        const EquilibriumSummary& eq, const ModalResult* modal, OutputFile& js,
                        double statics_seconds, double modal_seconds) {
  if (o.terse) {
    std::cout << "statics_converged " << (st.status.ok() ? "yes" : "no") << "\n";
    if (!st.redundant_rows.empty())
      std::cout << "redundant_rows " << st.redundant_rows.size() << "\n";
    if (modal)
      for (std::size_t k = 0; k < modal->modes.size(); ++k)
        std::cout << "mode " << k + 1 << " " << modal->modes[k].direction << " "
                  << (modal->modes[k].nodes == 0 ? "swinging" : "bending") << "\n";
  }
  // The JSON summary (also when the run failed: it holds what was computed) and VTK.
  writeRunJson(js.stream(), o.file, m, st, eq, modal, statics_seconds, modal_seconds);
  js.commit();
  if (!o.terse) std::cout << "summary written to " << o.json << "\n";
  if (modal && !o.vtk.empty() && st.status.ok()) {
    for (std::size_t k = 0; k < modal->modes.size(); ++k) {
      const std::string pvd = writeModeAnimation(o.vtk, o.stem, m, st.state, modal->modes[k],
                                                 static_cast<int>(k + 1), 0.1 * st.length_scale);
      if (!o.terse) std::cout << "mode " << k + 1 << " animation: " << pvd << "\n";
    }
  }
  if (!st.status.ok()) {
    std::cerr << o.file << ": " << st.status.message << "\n";
    return 1;
  }
  if (modal && !modal->status.ok()) {
    std::cerr << o.file << ": " << modal->status.message << "\n";
    return 1;
  }
  return 0;
}

}  // namespace catena
