#include "solvers/factorization.hpp"

#include <sstream>

#include "solvers/petsc_check.hpp"

namespace catena {

void useDirectFactorization(PC pc) {
  CATENA_PETSC(PCSetType(pc, PCLU));
  CATENA_PETSC(PCFactorSetMatSolverType(pc, kDefaultFactorPackage));
}

Status factorizationStatus(PC pc, long size, PetscErrorCode ierr) {
  PCFailedReason reason;
  CATENA_PETSC(PCGetFailedReason(pc, &reason));
  if (reason == PC_NOERROR && ierr == 0) return Status::success();
  MatSolverType package = nullptr;
  CATENA_PETSC(PCFactorGetMatSolverType(pc, &package));
  const std::string name = package ? package : "petsc";
  std::ostringstream os;
  os << "the " << size << " x " << size << " matrix could not be factored by " << name << " (";
  if (reason != PC_NOERROR)
    os << PCFailedReasons[reason] << ")";
  else
    os << "PETSc error " << ierr << ": numerically singular, or out of memory)";
  Mat F = nullptr;
  PetscInt infog1 = 0, infog2 = 0;
  if (name == MATSOLVERMUMPS && !PCFactorGetMatrix(pc, &F) && F &&
      !MatMumpsGetInfog(F, 1, &infog1) && !MatMumpsGetInfog(F, 2, &infog2) && infog1 != 0)
    os << " [MUMPS INFOG(1) = " << infog1 << ", INFOG(2) = " << infog2 << "]";
  if (reason == PC_FACTOR_OUTMEMORY) {
    os << ": the factorization ran out of memory or of its workspace estimate";
    if (name == MATSOLVERMUMPS)
      os << " (raise MUMPS' workspace with -<prefix>mat_mumps_icntl_14, a percentage, or use "
            "-<prefix>pc_factor_mat_solver_type klu)";
    return Status::failure(Status::Code::kResources, os.str());
  }
  return Status::failure(Status::Code::kSingular, os.str());
}

}  // namespace catena
