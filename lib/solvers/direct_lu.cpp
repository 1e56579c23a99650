#include "solvers/direct_lu.hpp"

#include <algorithm>

#include "solvers/factorization.hpp"
#include "solvers/petsc_check.hpp"

namespace catena {

void selectMumpsLu(KSP ksp) {
  CATENA_PETSC(KSPSetType(ksp, KSPPREONLY));
  PC pc;
  CATENA_PETSC(KSPGetPC(ksp, &pc));
  CATENA_PETSC(PCSetType(pc, PCLU));
  CATENA_PETSC(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
}

namespace {

/// Whether the options give MUMPS' workspace margin for ksp (-PREFIXmat_mumps_icntl_14).
bool userSetWorkspace(KSP ksp) {
  PC pc;
  CATENA_PETSC(KSPGetPC(ksp, &pc));
  PetscBool set = PETSC_FALSE;
  CATENA_PETSC(PetscOptionsHasName(nullptr, nullptr, mumpsWorkspaceOption(pc).c_str(), &set));
  return set;
}

/// MUMPS' workspace margin ICNTL(14) on ksp's factor, unless the options give it.
void setWorkspace(KSP ksp, int workspace_percent) {
  if (userSetWorkspace(ksp) || directLuPackage(ksp) != MATSOLVERMUMPS) return;
  PC pc;
  CATENA_PETSC(KSPGetPC(ksp, &pc));
  CATENA_PETSC(PCFactorSetUpMatSolverType(pc));
  Mat F = nullptr;
  CATENA_PETSC(PCFactorGetMatrix(pc, &F));
  CATENA_PETSC(MatMumpsSetIcntl(F, 14, workspace_percent));
}

}  // namespace

void setUpDirectLu(KSP ksp, Mat A, const std::string& prefix, int workspace_percent) {
  if (!prefix.empty()) CATENA_PETSC(KSPSetOptionsPrefix(ksp, prefix.c_str()));
  selectMumpsLu(ksp);
  CATENA_PETSC(KSPSetOperators(ksp, A, A));
  CATENA_PETSC(KSPSetFromOptions(ksp));
  setWorkspace(ksp, workspace_percent);
}

void forgetDirectLu(KSP ksp, Mat A, int workspace_percent) {
  PC pc;
  CATENA_PETSC(KSPGetPC(ksp, &pc));
  CATENA_PETSC(PCReset(pc));  // drops the factor and the operators
  CATENA_PETSC(KSPSetOperators(ksp, A, A));
  setWorkspace(ksp, workspace_percent);
}

Status factorDirectLu(KSP ksp, Mat A) {
  PC pc;
  CATENA_PETSC(KSPGetPC(ksp, &pc));
  PetscInt N = 0;
  CATENA_PETSC(MatGetSize(A, &N, nullptr));
  CATENA_PETSC(KSPSetOperators(ksp, A, A));
  for (;;) {
    PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);  // a singular matrix is a status
    const PetscErrorCode ierr = KSPSetUp(ksp);
    PetscPopErrorHandler();
    const Status st = factorizationStatus(pc, N, ierr);
    if (st.ok() || !mumpsWorkspaceShort(pc)) return st;
    Mat F = nullptr;
    CATENA_PETSC(PCFactorGetMatrix(pc, &F));
    PetscInt margin = 0;
    CATENA_PETSC(MatMumpsGetIcntl(F, 14, &margin));
    if (margin >= 6400 || userSetWorkspace(ksp)) return st;
    // MUMPS keeps its error and skips a repeated numeric factorization: start afresh (PCReset
    // drops the factor and the operators; options are read again at the symbolic factorization).
    CATENA_PETSC(PCReset(pc));
    CATENA_PETSC(KSPSetOperators(ksp, A, A));
    CATENA_PETSC(PCFactorSetUpMatSolverType(pc));
    CATENA_PETSC(PCFactorGetMatrix(pc, &F));
    CATENA_PETSC(MatMumpsSetIcntl(F, 14, 2 * std::max<PetscInt>(margin, 20)));
  }
}

std::string mumpsWorkspaceOption(PC pc) {
  const char* prefix = nullptr;
  CATENA_PETSC(PCGetOptionsPrefix(pc, &prefix));
  std::string name = "-";
  (name += prefix ? prefix : "") += "mat_mumps_icntl_14";
  return name;
}

bool mumpsWorkspaceShort(PC pc) {
  MatSolverType type = nullptr;
  PCFactorGetMatSolverType(pc, &type);
  Mat F = nullptr;
  if (!type || std::string(type) != MATSOLVERMUMPS || PCFactorGetMatrix(pc, &F) || !F) return false;
  PetscInt info = 0;
  if (MatMumpsGetInfog(F, 1, &info)) return false;
  for (PetscInt code : {-8, -9, -11, -14, -15, -17, -20})
    if (info == code) return true;
  return false;
}

std::string directLuPackage(KSP ksp) {
  PC pc;
  KSPGetPC(ksp, &pc);
  PetscBool redundant = PETSC_FALSE;
  PetscObjectTypeCompare(reinterpret_cast<PetscObject>(pc), PCREDUNDANT, &redundant);
  if (redundant) {  // the inner solver's package, on the gathered matrix
    KSP inner = nullptr;
    if (PCRedundantGetKSP(pc, &inner) || !inner) return "redundant";
    // Before the first set-up the inner PC has not read its options yet: read them here.
    const char* prefix = nullptr;
    char type[64] = "";
    PetscBool set = PETSC_FALSE;
    KSPGetOptionsPrefix(inner, &prefix);
    PetscOptionsGetString(nullptr, prefix, "-pc_factor_mat_solver_type", type, sizeof type, &set);
    return "redundant " + (set ? std::string(type) : directLuPackage(inner));
  }
  MatSolverType type = nullptr;
  PCFactorGetMatSolverType(pc, &type);
  return type ? type : "petsc";
}

}  // namespace catena
