#pragma once
/// @file redundant_klu.hpp
/// The direct solves of bitwise reproducibility (docs/parallel.md, "Bitwise across rank counts"),
/// chosen through PETSc's options database; no PETSc header here, so drivers can ask for them.

#include <string>

namespace catena {

/// Bitwise the same solutions on any rank count (docs/parallel.md, "Bitwise across rank
/// counts"): a sequential KLU of the gathered matrix on every rank, -<prefix>pc_type redundant,
/// -<prefix>redundant_pc_factor_mat_solver_type klu and -<prefix>redundant_pc_factor_mat_
/// ordering_type natural, each unless the options database already names it. Call before the
/// solver's set-up. Every rank factors the whole matrix: for reproducibility, not for speed. On
/// one rank PCREDUNDANT hands the matrix itself to KLU, which takes a MatAIJ (the dynamics'
/// Newton matrix) but not a MatMPIAIJ (the statics' and modes' matrices: PETSc error 92).
void useRedundantKlu(const std::string& prefix);

}  // namespace catena
