#pragma once
/// @file distributed_statics.hpp
/// Static equilibrium of a DistributedModel: the one statics iteration (statics/statics.hpp) on
/// the rank's MpiSpace, its saddle-point systems as one MatMPIAIJ solved by MUMPS (options under
/// StaticsOptions::petsc_prefix, e.g. -statics_pc_factor_mat_solver_type superlu_dist) or by an
/// augmented Lagrangian (SaddlePointSolverOptions, solvers/kkt_solver.hpp). Results equal the
/// serial solveStatics to round-off for any rank count (the iterative solver: to its tolerance).
/// Saddle-point numbering: parallel/saddle_numbering.hpp. Collective.

#include <string>
#include <vector>

#include "analysis/reactions.hpp"
#include "parallel/distributed_assembly.hpp"
#include "solvers/kkt_solver.hpp"
#include "statics/statics.hpp"

namespace catena {

/// The one StaticsResult: status and reports the same on every rank, `state` the local model's
/// (positions of the owned bodies then the ghosts, multipliers of the owned rows), phase times
/// this rank's.
using DistributedStaticsResult = StaticsResult;

/// solveStatics (statics.hpp) on the rank's MpiSpace (analysis/mpi_space.hpp), from `start` (a
/// State of the local model; the ghosts are updated here). Collective.
DistributedStaticsResult solveDistributedStatics(DistributedAssembly& assembly, State start,
                                                 const StaticsOptions& options = {},
                                                 const SaddlePointSolverOptions& linear = {});
/// The same from the local model's initial state (every part describes its bodies' start).
DistributedStaticsResult solveDistributedStatics(DistributedAssembly& assembly,
                                                 const StaticsOptions& options = {},
                                                 const SaddlePointSolverOptions& linear = {});

/// Lowest height (along -gravity; z without gravity) of the markers on the bodies, minimum over
/// the ranks (a chain's sag below its supports at z = 0 is minus this). Collective.
double lowestMarkerHeight(const DistributedModel& dm, const VecX& q);

/// Reaction of the joint with global index `joint` (analysis/reactions.hpp), on every rank.
/// Collective.
JointReaction distributedJointReaction(const DistributedAssembly& assembly, const VecX& q, double t,
                                       const VecX& lambda, Index joint);

}  // namespace catena
