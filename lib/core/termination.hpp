#pragma once
/// @file termination.hpp
/// The process's termination request: the signal that io/checkpoint.hpp's handler noted
/// (SIGTERM, which Slurm sends before a time limit, SIGINT, SIGUSR1), and whether runs stop at
/// their next step for it. catena simulate asks them to (stopStepsOnTermination(true)), so that
/// a run whose outputs are far apart still stops at once and writes what it has; catena-scale
/// does not, since it stops at a segment's end to write a checkpoint there. The integrators
/// poll stopRequested() once per step and end the run with Status::Code::kInterrupted.

#include <atomic>
#include <csignal>
#include <sstream>
#include <string>

#include "core/status.hpp"

namespace catena {

namespace termination_detail {
inline volatile std::sig_atomic_t signal = 0;
inline std::atomic<bool> stop_steps{false};
}  // namespace termination_detail

/// Notes that signal `sig` arrived (async-signal-safe: the handler calls it).
inline void noteTerminationSignal(int sig) noexcept {
  termination_detail::signal = sig;
}
/// True once a termination signal arrived (also when the process raised one itself).
inline bool terminationRequested() {
  return termination_detail::signal != 0;
}
/// The signal that set the flag (0 if none).
inline int terminationSignal() {
  return termination_detail::signal;
}
/// Whether runs stop at their next step once a termination signal arrived (default: no).
inline void stopStepsOnTermination(bool on) {
  termination_detail::stop_steps = on;
}
/// Whether stopStepsOnTermination(true) was called (the same on every rank of a program).
inline bool stepsStopOnTermination() {
  return termination_detail::stop_steps;
}
/// A run should stop now: a signal arrived and stopStepsOnTermination(true) was called.
inline bool stopRequested() {
  return termination_detail::stop_steps && termination_detail::signal != 0;
}
/// The Status of a run that `who` (the integrator) ended at t (s) on the request: kInterrupted.
inline Status stoppedOnRequest(const std::string& who, double t) {
  std::ostringstream os;
  os.precision(10);
  os << who << " stopped on a termination request at t = " << t << " s";
  return Status::failure(Status::Code::kInterrupted, os.str());
}

}  // namespace catena
