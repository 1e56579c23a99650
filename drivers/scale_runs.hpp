#pragma once
/// @file scale_runs.hpp
/// One run of a scaling study (docs/scaling.md): this rank's part of the chain, the lattice or
/// an input model, the distributed statics, modal or dynamics analysis, its physical checks and
/// its JSON line. catena-scale (drivers/catena_scale.cpp) and the Python module
/// (drivers/python/distributed.cpp) call these same functions. All are collective over
/// MPI_COMM_WORLD; PETSc must be initialized (parallel/petsc_session.hpp).

#include <string>

#include "core/types.hpp"
#include "integrators/segmented_dynamics.hpp"
#include "io/json_writer.hpp"
#include "io/scaling_study.hpp"
#include "modal/distributed_modal.hpp"
#include "model/state.hpp"
#include "scale_model.hpp"
#include "statics/statics.hpp"

namespace catena {

/// Largest and sum of x over the ranks of MPI_COMM_WORLD. Collective.
double maxOver(double x);
double sumOver(double x);

/// Writes the fields that identify a run: family, analysis, size, repeat, ranks, threads
/// (omp_get_max_threads()).
void writeRunHead(JsonWriter& j, const std::string& family, const std::string& analysis, long size,
                  int repeat, int ranks);

/// A run's JSON line and whether its checks passed (both meaningful on rank 0).
struct RunResult {
  std::string line;
  bool pass = false;
  /// Stopped by a signal (dynamics at a segment's end, statics before a Newton iteration): no
  /// line.
  bool interrupted = false;
  double t = 0.0;      ///< s, where an interrupted dynamics run stopped
  int iterations = 0;  ///< the Newton iterations an interrupted statics run had done
};

/// How a statics run stops early: before a Newton iteration once any rank has a termination
/// signal (on_signal; core/termination.hpp), and, to test that path, every rank raises SIGTERM
/// itself after raise_after Newton iterations (-1: never).
struct StaticsStop {
  bool on_signal = false;
  int raise_after = -1;
};

/// What a run computed besides its line, for a caller that wants the solution (the Python
/// module). `gather` is read; the rest is written.
struct RunArrays {
  bool gather = false;     ///< gather the whole model's arrays on rank 0
  State local;             ///< this rank's final state (local layout, distributed_model.hpp)
  Index owned_bodies = 0;  ///< this rank's owned bodies
  /// With gather, on rank 0 (empty elsewhere): the whole model's final state (statics: the
  /// equilibrium, v = 0; dynamics: at t_end): q (m, quaternions), v (m/s, rad/s), lambda (of
  /// the rows kept). Numbering: an input model's own (bodies, rows); a family's global one (the
  /// chain's links in order; the lattice's bodies as partitioned).
  State whole;
  /// With gather, modal, on rank 0: the modes' shapes, (velocity coordinates) x (modes), in
  /// the numbering of `whole`, phi^T M phi = 1 (DistributedMode::shape).
  MatX mode_shapes;
  /// With gather, statics and modal: the run's statics (status, history and solver reports the
  /// same on every rank; state: the local one) and modal analysis (summary and modes, shapes
  /// on the owned coordinates), for `catena statics|modal` under mpirun (drivers/mpi_commands).
  StaticsResult statics;
  DistributedModalResult modal;
  /// With gather, an input model's run: the constraint rows it left out (rows.dropped empty:
  /// none; rows.model is then not filled).
  IndependentRows rows;
  std::string partitioner;  ///< with gather, statics and modal: how the model was split
};

/// One distributed statics of the study's model (the input if not null, else the family's of
/// the given size: chain links or lattice K), and for study.analysis "modal" its lowest
/// study.modes modes at the equilibrium; the JSON line of catena-scale. arrays: see RunArrays
/// (null: none). stop: see StaticsStop; an interrupted run returns no line. Throws
/// catena::Error for a model the distributed analyses do not take.
RunResult runStatics(const ScalingStudy& study, const InputModel* input, long size, int repeat,
                     int ranks, int rank, RunArrays* arrays = nullptr, StaticsStop stop = {});

/// The study's model released at rest (the chain from its 'V', the lattice a little off
/// hanging) or the input model from its initial state (which must be consistent), integrated
/// by distributed IDA (GGL) to study.t_end in the study's segments; the JSON line, or no line
/// if a signal interrupted the run. inside: the run's checkpoints
/// (integrators/segmented_dynamics.hpp), its `run` the study's signature, to which the size
/// and repeat are added here. arrays: see RunArrays (null: none).
RunResult runDynamics(const ScalingStudy& study, const InputModel* input, long size, int repeat,
                      int ranks, int rank, SegmentOptions inside, RunArrays* arrays = nullptr);

}  // namespace catena
