#include "solvers/petsc_check.hpp"

#include <cstring>
#include <string>

namespace catena {
namespace {

/// Where the last PETSc error started (PETSC_ERROR_INITIAL), and whether it was an allocation.
struct LastError {
  bool out_of_memory = false;
  char function[128] = {};
};
LastError g_last;

PetscErrorCode recordError(MPI_Comm comm, int line, const char* fun, const char* file,
                           PetscErrorCode n, PetscErrorType p, const char* mess, void* ctx) {
  if (p == PETSC_ERROR_INITIAL) {
    g_last.out_of_memory = n == PETSC_ERR_MEM || (fun && std::strncmp(fun, "PetscMalloc", 11) == 0);
    std::strncpy(g_last.function, fun ? fun : "", sizeof g_last.function - 1);
  }
  return PetscTraceBackErrorHandler(comm, line, fun, file, n, p, mess, ctx);
}

}  // namespace

void installPetscErrorRecorder() {
  static const bool installed = [] {
    PetscPushErrorHandler(recordError, nullptr);
    return true;
  }();
  (void)installed;
}

void throwPetscError(PetscErrorCode code, const char* call) {
  if (g_last.out_of_memory) {
    g_last.out_of_memory = false;
    throw OutOfMemory(std::string("PETSc could not allocate memory (in ") + g_last.function +
                      ", called from " + call + ")");
  }
  std::string what = std::string("PETSc call failed: ") + call + ": ";
  const char* text = nullptr;
  if (code > PETSC_ERR_MIN_VALUE && code < PETSC_ERR_MAX_VALUE &&
      PetscErrorMessage(code, &text, nullptr) == 0 && text)
    what += std::string(text) + " (PETSc error " + std::to_string(code) + ")";
  else
    what += "PETSc returned " + std::to_string(code) +
            ", which is not a PETSc error code (see PETSc's message above)";
  throw Error(what);
}

}  // namespace catena
