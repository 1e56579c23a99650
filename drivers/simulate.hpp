#pragma once
#include <string>
#include <vector>

#include "options.hpp"

/// The options of `catena simulate` (the usage text is drivers/catena.cpp's).
std::vector<catena::cli::OptionSpec> simulateOptions();

/// `catena simulate FILE [options]` from its parsed command line (cli::parseCommandLine with
/// simulateOptions()). Returns the exit status: 0 success, 1 failed run, invalid input or a file
/// that could not be written, 2 bad command line for the natural-coordinates runs, 128 + N
/// stopped by signal N (130 SIGINT, 143 SIGTERM) with the files written up to there; throws
/// cli::UsageError for a bad option value or combination, before reading any file.
int runSimulate(const catena::cli::CommandLine& line);

#include "core/status.hpp"
#include "io/output_file.hpp"

/// The failed Status of a run that signal `signal` stopped at time t (s), and what it says.
catena::Status interruptedStatus(int signal, double t);

/// The end of a simulate run on stderr: its warnings, and for a failed run its message and worst
/// rows, each line starting with `file`. Returns the exit status: 0, 1, or 128 + stopped_by.
int reportRunEnd(const std::string& file, const std::vector<std::string>& warnings,
                 const catena::Status& status, const std::vector<std::string>& worst_rows,
                 int stopped_by);

/// `catena simulate` on a `formulation: natural` input (simulate_natural.cpp): IDA on the
/// Lagrangian facility's DAE, or a kinematic run under the problem's drivers when nothing in the
/// mechanism has mass. Returns the exit status as runSimulate.
struct NaturalSimulateOptions {
  std::string file, csv, json;  ///< csv, json: "" gives OUT/STEM.trajectory.csv, .simulate.json
  std::string output_dir = catena::kDefaultOutputFolder;  ///< OUT: where outputs not named go
  bool index3 = false;           ///< IDA on the index-3 form instead of GGL (index 2)
  double duration = 0.0;         ///< s; 0: the file's problem t_end - t0
  double output_interval = 0.0;  ///< s; 0: duration / 500
  double rtol = 1e-6, atol = 1e-8;
  bool terse = false;
};
int runSimulateNatural(const NaturalSimulateOptions& options);
