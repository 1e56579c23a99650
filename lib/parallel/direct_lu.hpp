#pragma once
/// @file direct_lu.hpp
/// The direct solver of the distributed analyses (statics, modes, dynamics): a KSP that applies
/// LU once (preonly), MUMPS unless the options say otherwise. MUMPS pivots across the zero blocks
/// of the constraint rows and runs on any rank count; KLU, the serial default, is sequential.

#include <petscksp.h>

#include <string>

namespace catena {

/// Preonly + LU with MUMPS, before any options are applied (the modes' KSP inside SLEPc's
/// spectral transformation takes only this).
void selectMumpsLu(KSP ksp);

/// Sets ksp (options prefix `prefix`) to preonly + LU with MUMPS on A and applies the options.
/// MUMPS delays many pivots on these saddle-point matrices (solvers/factorization.hpp), so its
/// workspace margin ICNTL(14) (default 20 % over its estimate) is `workspace_percent` unless
/// -PREFIXmat_mumps_icntl_14 is given. Collective.
void setUpDirectLu(KSP ksp, Mat A, const std::string& prefix, int workspace_percent);

/// The factorization package of ksp ("mumps", ...; "petsc" for PETSc's own).
std::string directLuPackage(KSP ksp);

}  // namespace catena
