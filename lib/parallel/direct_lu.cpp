#include "parallel/direct_lu.hpp"

#include "solvers/petsc_check.hpp"

namespace catena {

void selectMumpsLu(KSP ksp) {
  CATENA_PETSC(KSPSetType(ksp, KSPPREONLY));
  PC pc;
  CATENA_PETSC(KSPGetPC(ksp, &pc));
  CATENA_PETSC(PCSetType(pc, PCLU));
  CATENA_PETSC(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
}

void setUpDirectLu(KSP ksp, Mat A, const std::string& prefix, int workspace_percent) {
  if (!prefix.empty()) CATENA_PETSC(KSPSetOptionsPrefix(ksp, prefix.c_str()));
  selectMumpsLu(ksp);
  CATENA_PETSC(KSPSetOperators(ksp, A, A));
  CATENA_PETSC(KSPSetFromOptions(ksp));
  PetscBool set = PETSC_FALSE;
  const std::string workspace = "-" + prefix + "mat_mumps_icntl_14";
  CATENA_PETSC(PetscOptionsHasName(nullptr, nullptr, workspace.c_str(), &set));
  if (set || directLuPackage(ksp) != MATSOLVERMUMPS) return;
  PC pc;
  CATENA_PETSC(KSPGetPC(ksp, &pc));
  CATENA_PETSC(PCFactorSetUpMatSolverType(pc));
  Mat F = nullptr;
  CATENA_PETSC(PCFactorGetMatrix(pc, &F));
  CATENA_PETSC(MatMumpsSetIcntl(F, 14, workspace_percent));
}

std::string directLuPackage(KSP ksp) {
  PC pc;
  KSPGetPC(ksp, &pc);
  MatSolverType type = nullptr;
  PCFactorGetMatSolverType(pc, &type);
  return type ? type : "petsc";
}

}  // namespace catena
