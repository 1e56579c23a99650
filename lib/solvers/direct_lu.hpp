#pragma once
/// @file direct_lu.hpp
/// The direct solver of the distributed analyses (statics, modes, dynamics): a KSP that applies
/// LU once (preonly), MUMPS unless the options say otherwise. MUMPS pivots across the zero blocks
/// of the constraint rows and runs on any rank count; KLU, the serial default, is sequential.

#include <petscksp.h>

#include <string>

#include "core/status.hpp"

namespace catena {

/// Preonly + LU with MUMPS, before any options are applied (the modes' KSP inside SLEPc's
/// spectral transformation takes only this).
void selectMumpsLu(KSP ksp);

/// Sets ksp (options prefix `prefix`) to preonly + LU with MUMPS on A and applies the options.
/// MUMPS delays many pivots on these saddle-point matrices (solvers/factorization.hpp), so its
/// workspace margin ICNTL(14) (default 20 % over its estimate) is `workspace_percent` unless
/// -PREFIXmat_mumps_icntl_14 is given. Collective.
void setUpDirectLu(KSP ksp, Mat A, const std::string& prefix, int workspace_percent);

/// The workspace margin of the distributed saddle-point matrices and of the decomposition's
/// interface matrix: from 2000 links MUMPS' default 20 % runs out.
inline constexpr int kSaddlePointWorkspacePercent = 100;

/// Drops ksp's factorization so that the next factorDirectLu analyses A anew, as a KSP fresh from
/// setUpDirectLu would (the same workspace margin). Collective.
void forgetDirectLu(KSP ksp, Mat A, int workspace_percent);

/// Sets A as ksp's operator and factors it (KSPSetUp), a failure returned as a Status
/// (solvers/factorization.hpp's factorizationStatus). When MUMPS runs out of its workspace, its
/// margin ICNTL(14) is doubled and the factorization repeated, up to 6400 %: the delayed pivots
/// of a saddle-point matrix depend on its values (the multipliers' least-squares matrix of a
/// 24 x 24 lattice needs more than 100 %), so no fixed margin fits every model. Collective.
Status factorDirectLu(KSP ksp, Mat A);

/// "-PREFIXmat_mumps_icntl_14": the option of MUMPS' workspace margin (ICNTL(14), %) under
/// pc's options prefix.
std::string mumpsWorkspaceOption(PC pc);

/// Whether pc's last MUMPS factorization failed for want of workspace (INFOG(1) -8, -9, -11,
/// -14, -15, -17 or -20: MUMPS' manual says to raise ICNTL(14) for each). False for other
/// packages and before any factorization.
bool mumpsWorkspaceShort(PC pc);

/// The factorization package of ksp ("mumps", ...; "petsc" for PETSc's own; "redundant klu"
/// for PCREDUNDANT with KLU inside).
std::string directLuPackage(KSP ksp);

}  // namespace catena
