#pragma once
/// @file petsc_check.hpp
/// PETSc error codes to C++ exceptions (solvers/ and parallel/ only). PETSc has already printed
/// its trace. A failed allocation inside PETSc becomes catena::OutOfMemory, anything else
/// catena::Error naming the call and PETSc's text for the code.

#include <petscsys.h>

#include "core/check.hpp"

namespace catena {

/// Installs, once per process, a PETSc error handler that records where each error started
/// (so that an allocation failure is recognized even when PETSc's return code does not say so:
/// PETSc 3.18.5's PetscMallocA returns the caller's source line, e.g. 6264, instead of
/// PETSC_ERR_MEM) and then prints PETSc's usual trace. PetscSession calls it.
void installPetscErrorRecorder();

/// Throws for a failed PETSc call `call` that returned `code` (non-zero): catena::OutOfMemory if
/// the error started in PETSc's allocator or is PETSC_ERR_MEM, else catena::Error.
[[noreturn]] void throwPetscError(PetscErrorCode code, const char* call);

}  // namespace catena

#define CATENA_PETSC(call)                                                             \
  do {                                                                                 \
    const PetscErrorCode catena_petsc_ierr_ = (call);                                  \
    if (catena_petsc_ierr_ != 0) ::catena::throwPetscError(catena_petsc_ierr_, #call); \
  } while (false)
