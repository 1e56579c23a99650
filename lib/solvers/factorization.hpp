#pragma once
/// @file factorization.hpp
/// The sparse direct factorization behind the saddle-point solves of statics and the
/// shift-and-invert of modal analysis (solvers/ only: it sees PETSc).
///
/// Default on one rank: SuiteSparse KLU through PETSc. MUMPS, PETSc's usual choice, delays
/// thousands of pivots on these KKT matrices (the body block of a chain under gravity has a zero
/// translational diagonal): with Debian's MUMPS (PORD, AMD, AMF or QAMD; no METIS or SCOTCH in its
/// sequential build) a chain of 10^4 links factors 2-3 times slower than with KLU and one of 10^5
/// links runs out of its workspace after minutes. benchmarks/results/chain_statics_modal.md has
/// the measurements. Any package stays one option away: -<prefix>pc_factor_mat_solver_type mumps.

#include <petscksp.h>

#include <string>

#include "core/status.hpp"

namespace catena {

inline constexpr const char* kDefaultFactorPackage = MATSOLVERKLU;

/// Sets pc to LU with the default package (before the options are read, so they override it).
void useDirectFactorization(PC pc);

/// The outcome of the last factorization of pc, set up with the error code ierr (PETSc's error
/// handler pushed to PetscReturnErrorHandler around it: KLU reports a singular matrix as an
/// error, MUMPS as a failed-reason). Zero pivots are kSingular, exhausted memory or workspace
/// is kResources; the message names the matrix size and the package.
Status factorizationStatus(PC pc, long size, PetscErrorCode ierr);

}  // namespace catena
