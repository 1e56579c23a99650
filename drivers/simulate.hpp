#pragma once
// `catena simulate FILE [options]`: argv as given to main (argv[1] == "simulate"). Returns the
// exit status: 0 success, 1 failed run or invalid input, 2 bad command line.
int runSimulate(int argc, char** argv);

#include <string>

/// `catena simulate` on a `formulation: natural` input (simulate_natural.cpp): IDA on the
/// Lagrangian facility's DAE, or a kinematic run under the problem's drivers when nothing in the
/// mechanism has mass. Returns the exit status as runSimulate.
struct NaturalSimulateOptions {
  std::string file, csv, json;   ///< csv, json: "" gives STEM.trajectory.csv, STEM.simulate.json
  bool index3 = false;           ///< IDA on the index-3 form instead of GGL (index 2)
  double duration = 0.0;         ///< s; 0: the file's problem t_end - t0
  double output_interval = 0.0;  ///< s; 0: duration / 500
  double rtol = 1e-6, atol = 1e-8;
  bool terse = false;
};
int runSimulateNatural(const NaturalSimulateOptions& options);
