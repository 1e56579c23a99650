#pragma once
/// @file vtk_writer.hpp
/// ParaView output: the mechanism as lines (body origin -> joint point -> body origin) in VTK XML
/// PolyData files, and mode shapes as a time series (one file per phase of the oscillation plus a
/// .pvd collection that ParaView plays as an animation), and time series of dynamics runs.
/// Every file goes through io/output_file.hpp; a folder that cannot be made or written is a
/// catena::Error naming it and the reason.

#include <string>
#include <vector>

#include "modal/modal.hpp"
#include "model/state.hpp"

namespace catena {

/// Writes DIR/STEM_mode_K_J.vtp for J = 0..frames-1 (phase 2 pi J / frames) and
/// DIR/STEM_mode_K.pvd (DIR made if missing); the largest point displacement is `amplitude`
/// (m). Returns the .pvd path. Throws catena::Error if DIR or a file cannot be written.
std::string writeModeAnimation(const std::string& dir, const std::string& stem, const Model& model,
                               const State& equilibrium, const Mode& mode, int index,
                               double amplitude, int frames = 24);

/// A time series of the mechanism (DIR/STEM_K.vtp, K = 0, 1, ...) and the collection
/// DIR/STEM.pvd with the times, written by close() (or the destructor), so ParaView plays it.
class VtkSeriesWriter {
 public:
  /// Makes DIR if it is missing; throws catena::Error naming DIR and the reason if it cannot.
  VtkSeriesWriter(const std::string& dir, const std::string& stem, const Model& model);
  ~VtkSeriesWriter();
  VtkSeriesWriter(const VtkSeriesWriter&) = delete;
  VtkSeriesWriter& operator=(const VtkSeriesWriter&) = delete;
  /// Writes DIR/STEM_K.vtp; throws catena::Error "cannot write PATH: REASON" if it cannot.
  void write(const State& s);
  /// Writes the .pvd; returns its path. Throws catena::Error if it cannot be written.
  std::string close();

 private:
  std::string dir_, stem_;
  const Model& model_;
  std::vector<double> times_;
};

}  // namespace catena
