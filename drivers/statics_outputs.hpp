#pragma once
/// @file statics_outputs.hpp
/// What `catena statics|modal` writes after its analyses, in one process and on rank 0 under
/// mpirun alike (drivers/catena.cpp, drivers/mpi_commands.cpp).

#include <string>

#include "io/output_file.hpp"
#include "report/run_report.hpp"

namespace catena {

/// The command's input and where its outputs go.
struct StaticsOutputs {
  std::string file;  ///< the input, as given
  std::string json;  ///< the JSON summary's path (opened as `js`)
  std::string vtk;   ///< mode animations' folder; empty: none
  std::string stem;  ///< the input's name without its folder and extension
  bool terse = false;
};

/// Writes, after the tables: the terse lines (o.terse), the JSON summary into js (committed;
/// also for a failed run), "summary written to", the mode animations (o.vtk, converged statics)
/// and on stderr the failure; modal null: statics only. Returns the exit status: 0, or 1 if the
/// statics or the modes failed. Throws catena::Error if a file cannot be written.
int writeStaticsOutputs(const StaticsOutputs& o, const Model& m, const StaticsResult& st,
                        const EquilibriumSummary& eq, const ModalResult* modal, OutputFile& js,
                        double statics_seconds, double modal_seconds);

}  // namespace catena
