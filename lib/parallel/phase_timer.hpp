#pragma once
/// @file phase_timer.hpp
/// Adds the wall time (MPI_Wtime) of its scope to a phase's seconds: the phase timings of the
/// distributed analyses (DistributedDynamicsTimings).

#include <mpi.h>

namespace catena {

class PhaseTimer {
 public:
  explicit PhaseTimer(double& phase) : phase_(phase), start_(MPI_Wtime()) {}
  ~PhaseTimer() { phase_ += MPI_Wtime() - start_; }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  double& phase_;
  double start_;
};

}  // namespace catena
