#pragma once
/// @file reproducible_nvector.hpp
/// The SUNDIALS layer (context.hpp) for MPI: SUNDIALS' MPI-parallel N_Vector (NVECTOR_PARALLEL)
/// with reductions that give the same bits for any number of ranks
/// (parallel/reproducible_sum.hpp): the weighted norms and sums that IDA's step-size, order and
/// Newton decisions rest on. With the plain vector they sum rank by rank, so a 2-rank run takes
/// other decisions than a 1-rank run as soon as a norm lies within round-off of a threshold, and
/// the runs part by the integration error (docs/parallel.md, "Bitwise across rank counts").
/// Internal to lib/integrators.

#include <mpi.h>

#include "integrators/sundials/context.hpp"

namespace catena::sundials {

/// A parallel vector on comm with `local` entries on this rank and `global` in all, whose
/// reductions are reproducible (useReproducibleReductions); null if memory is exhausted.
/// Collective. ctx: a Context made with comm.
Vector reproducibleVector(MPI_Comm comm, Index local, Index global, const Context& ctx);

/// Replaces the reduction operations of v (an NVECTOR_PARALLEL vector): dot product, weighted
/// RMS norm (also masked), weighted L2 norm and L1 norm become reproducible sums; the max norm,
/// min and min quotient are exact already. The fused multi-vector reductions are switched off,
/// so that SUNDIALS falls back to the single ones. Clones of v (N_VClone, as IDA makes its
/// work vectors from y) inherit the operations.
void useReproducibleReductions(N_Vector v);

}  // namespace catena::sundials
