#pragma once
/// @file distributed_dynamics.hpp
/// Time integration of a DistributedModel with SUNDIALS IDA in the stabilized index-2 (GGL)
/// formulation of integrators/ida_dynamics.hpp (docs/dynamics-ida.md, docs/parallel.md), by the
/// same driver as the serial integrateIda (ida_driver.hpp) over the rank's MpiIdaSystem:
///
///   q' = N(q) (v - C_q^T mu) + nu rho,  M v' + C_q^T lambda = f,  C = 0,  C_q v + C_t = 0,
///   |rho|^2 = 1 per body.
///
/// - Unknowns: an MPI-parallel N_Vector (NVECTOR_PARALLEL) in a numbering that does not depend
///   on the rank count, body by body: the body's q, v and nu, then the lambda rows and the mu
///   rows of the joints it holds (holdingBody). A rank owns the contiguous range of its bodies.
/// - Residual and Newton matrix: formulations/mixed_basis/multibody_dae.hpp on the rank's
///   local model (owned bodies, ghost bodies, owned joints) with its own_bodies argument, so the
///   formulas are the serial ones. Before each evaluation the ghost bodies' q and v come from their
///   owners; after it, the joint terms that the owned joints put on ghost rows (C_q^T lambda, N
///   C_q^T mu) are added to the owners' rows: a reverse ghost update for the residual, COO sums for
///   the matrix.
/// - Newton systems: the column-scaled matrix J S of the serial run (lambda by c_j m, mu and nu
///   by c_j) as one MatMPIAIJ, solved by KSP preonly + LU with MUMPS; PETSc options under
///   IdaOptions::petsc_prefix (default -ida_).
/// - Initial state: the given state must be consistent (C = 0, C_q v + C_t = 0), such as a
///   chain at rest in its assembled 'V' or at its static equilibrium: positions are not
///   assembled here. v' and lambda come from the distributed KKT system
///   [M, C_q^T; C_q, 0] [v'; lambda] = [f; gamma] (same scaling and options prefix).
///
/// Bitwise the same on any rank count (tests/mpi/reproducible_dynamics_test.cpp, catena-scale
/// --reproducible) when
///   1. the part has its halo (ModelPart::halo: buildCatenaryChainPart(..., true), or
///      partitionModel(..., reproducible) for any model, whose parts are then contiguous ranges
///      of its bodies): each rank evaluates its bodies' rows whole, every entry summing its
///      joints' terms in global joint order; without it a ghost body's joint terms are summed
///      into its owner's rows after the owner's own;
///   2. the Newton systems and the start's KKT system are solved by a KLU of the gathered
///      matrix on every rank (IdaLinearSolver::kGatheredKlu, solvers/gathered_klu.hpp: every
///      rank factors the whole matrix, for reproducibility, not for speed);
/// IDA's norms and the first step's sum are exact sums (parallel/reproducible_sum.hpp) always.
/// Otherwise results equal the serial integrateIda to round-off while the step sequences agree,
/// and to the integration error once they part. Within a rank, bitwise identical for any OpenMP
/// thread count.
/// Every function here is collective over PETSC_COMM_WORLD.

#include <functional>
#include <string>
#include <vector>

#include "analysis/energy.hpp"
#include "integrators/ida_dynamics.hpp"
#include "parallel/distributed_assembly.hpp"

namespace catena {

/// The result of integrateDistributedIda: state is of the local model (q and v of the owned
/// bodies then the ghosts, up to date; lambda of the owned joints; quaternions normalized);
/// status, stats and worst_rows are the same on every rank; timings are this rank's.
using DistributedDynamicsResult = IdaResult;
using DistributedDynamicsTimings = IdaTimings;

/// Integrates from `initial` (a State of the local model, ghosts included; lambda is computed)
/// to options.t_end. Options as for integrateIda; only IdaFormulation::kIndex2 is distributed,
/// linear_solver is kSchur for the Schur-complement decomposition, kGatheredKlu for a KLU of the
/// gathered matrix, else ignored (PETSc, MUMPS unless -<prefix>pc_factor_mat_solver_type says
/// otherwise) and assemble_initial_state only checks
/// consistency: |C|_inf <= 1e-10 (1 + max |r_body|) and |C_q v + C_t|_inf <= 1e-8 max(1, |v|_inf),
/// else a failed Status. The observer gets t0 and every output time (or every step with
/// output_interval 0) on every rank, with the state as DistributedDynamicsResult::state; it must
/// return the same on every rank. Never throws on numerical failure; throws catena::Error on
/// invalid options.
DistributedDynamicsResult integrateDistributedIda(const DistributedAssembly& assembly,
                                                  const State& initial, const IdaOptions& options,
                                                  const TrajectoryObserver& observer = {});

/// One segment of a distributed run of a model that every rank holds whole: from `start`, a
/// consistent state of the whole model (the same bits on every rank), to t_end; the observer
/// and the result's state see whole states (the same bits on every rank). The caller selects
/// the rows to leave out at `start`, partitions and runs integrateDistributedIda. Collective.
using DistributedSegment = std::function<DistributedDynamicsResult(
    const State& start, double t_end, const TrajectoryObserver& observer)>;

/// A distributed IDA run through singular configurations, as integrateIda passes them
/// (integrators/singular_passage.hpp: where a segment fails or leaves its branch with C_q's
/// smallest retained pivot below the margin, a bridge crosses from its last output): every rank
/// bridges on its copy of the whole model (model, plan: the whole model's; generalized-alpha or
/// MCS, serial and deterministic, so the same bits everywhere), makes the bridge's end
/// consistent (assembleInitialState) and starts the next segment there. options: the run's
/// (t_end, rtol, output_interval). result.passages lists the bridges. Collective.
DistributedDynamicsResult integrateDistributedThroughPassages(
    const Model& model, const AssemblyPlan& plan, const State& start, const IdaOptions& options,
    const TrajectoryObserver& observer, const DistributedSegment& segment);

/// Energy of the whole distributed model (analysis/energy.hpp: kinetic + gravity; distributed
/// models have no springs: throws catena::Error if the local model has some), each body counted
/// by its owner, the bodies' terms summed exactly (reproducible_sum.hpp): the same bits on any
/// rank count. s: as DistributedDynamicsResult::
/// state.
Energy distributedEnergy(const DistributedAssembly& assembly, const State& s);

/// max |C| (m, rad) and max |C_q v + C_t| (m/s, rad/s) over the owned joints of all ranks.
struct ConstraintDrift {
  double position = 0.0, velocity = 0.0;
};
ConstraintDrift distributedConstraintDrift(const DistributedAssembly& assembly, const State& s);

}  // namespace catena
