#pragma once
/// @file mcs_writer.hpp
/// CSV time history of the minimal-coordinate-set integrator (integrators/mcs_dynamics.hpp), one
/// row per output: t [s], rank, flips (sign flips of T's columns since the previous row),
/// qdot_1..qdot_f (minimal velocities q' = T^T v, mixed units: m/s and rad/s), q_1..q_f (their
/// integral), R1_1..R1_k (|R_ii| of the QRCP of C_q^T, pivot order, k = min(n, m)), and the
/// columns of T, n x f entries named T<j>_<body>_<coordinate> (coordinates x, y, theta in 2D;
/// vx, vy, vz, wx, wy, wz in 3D: the velocity coordinates of NOTATION.md). benchmarks/
/// plot_mcs_figures.py reads it. Written through io/output_file.hpp: every row checked, the file
/// put in place by close().

#include <string>
#include <vector>

#include "integrators/mcs_dynamics.hpp"
#include "io/output_file.hpp"

namespace catena {

class McsCsvWriter {
 public:
  /// Opens `path` (throws catena::Error if it cannot); the header follows the first sample.
  McsCsvWriter(const std::string& path, const Model& model);
  /// One row; every sample of a run must have the same f and min(n, m). Throws catena::Error
  /// "cannot write PATH: REASON" if a write failed.
  void write(const McsSample& s);
  /// Puts the file in place (OutputFile::commit); throws catena::Error as write().
  void close() { out_.commit(); }
  const std::vector<std::string>& names() const { return names_; }

 private:
  const Model& model_;
  OutputFile out_;
  std::vector<std::string> names_;
};

}  // namespace catena
