#pragma once
/// @file petsc_check.hpp
/// PETSc error codes to catena::Error (solvers/ only). PETSc has already printed its trace.

#include <petscsys.h>

#include "core/check.hpp"

#define CATENA_PETSC(call)                                                             \
  do {                                                                                 \
    const PetscErrorCode catena_petsc_ierr_ = (call);                                  \
    CATENA_CHECK(catena_petsc_ierr_ == 0,                                              \
                 "PETSc call failed (error " << catena_petsc_ierr_ << "): " << #call); \
  } while (false)
