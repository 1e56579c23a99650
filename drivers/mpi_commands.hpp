#pragma once
/// @file mpi_commands.hpp
/// `catena statics|modal|simulate FILE` under mpirun with more than one rank (docs/parallel.md,
/// "catena under mpirun"): statics and modes by catena-scale's runStatics
/// (drivers/scale_runs.hpp), their state and modes gathered on rank 0, where the serial reports
/// (report/run_report.hpp) are written; simulate by the distributed IDA
/// (integrators/distributed_dynamics.hpp, mpi_simulate.cpp), every output gathered on rank 0
/// into the serial command's time history. The other ranks write nothing but errors.

#include <functional>
#include <string>

#include "report/trajectory_writer.hpp"

namespace catena {

/// The settings of a distributed statics or modal command (the serial command's options).
struct DistributedCommand {
  std::string command;  ///< "statics" or "modal"
  std::string file, json, vtk, output_dir;
  bool terse = false;
  int modes = 4;
  bool no_kc = false, damped = false;  ///< refused: not available distributed
  double target = 0.0;                 ///< Hz; refused unless 0
  std::string solver = "schur";        ///< schur (solvers/schur_decomposition.hpp) or mumps
};

/// Runs the command on every rank of MPI_COMM_WORLD (PETSc initialized): rank 0 prints the
/// serial command's table (or terse lines) with a line naming the rank count and partitioner,
/// and writes its JSON summary (and --vtk files). Returns the exit status, the same on every
/// rank: 0, 1 (a bad or refused model, a failed analysis, a file not written; the message on
/// rank 0's stderr), 2 (an option the distributed run does not take). Collective.
int runDistributedCommand(const DistributedCommand& c, int ranks, int rank);

/// The settings of a distributed simulate (the serial command's options that it takes).
struct DistributedSimulate {
  std::string file, csv, json, output_dir;
  double t_end = 1.0;            ///< s, the duration
  double output_interval = 0.0;  ///< s, > 0 (run finer where outputSplit says so)
  double dt = 1e-2;              ///< s, the serial command's --dt (outputSplit's resolution)
  double rtol = 1e-6, atol = 1e-8;
  bool terse = false;
  /// The time history's columns for the whole model (the serial command's choice).
  std::function<TrajectoryColumns(const Model&)> columns;
};

/// IDA index 2 on the model partitioned over MPI_COMM_WORLD (PETSc initialized), its redundant
/// rows left out as the serial run leaves them, from the serial command's assembled initial
/// state; rank 0 writes the time history (every output gathered), the JSON summary and the
/// report. Exit status as runDistributedCommand's, the same on every rank. Collective.
int runDistributedSimulate(const DistributedSimulate& c, int ranks, int rank);

/// The ranks that an MPI launcher (Open MPI's OMPI_COMM_WORLD_SIZE, MPICH's and Hydra's
/// PMI_SIZE) says this process is one of, and its rank there, read from the environment
/// before MPI starts; 1 and 0 without a launcher.
int launchedRanks();
int launchedRank();

/// Whether `command` (one that runs in one process only: check, mobility) was
/// launched on more than one rank; if so rank 0 says so on stderr, naming the commands that
/// run distributed, and every rank waits for it (MPI starts and ends here) before returning.
bool refuseUnderMpirun(const std::string& command);

}  // namespace catena
