#include "parallel/petsc_session.hpp"

#include <slepcsys.h>

#include "core/check.hpp"

namespace catena {

PetscSession::PetscSession(int* argc, char*** argv) {
  // SlepcInitialize initializes PETSc (and MPI) too; "help" is the -help banner.
  const PetscErrorCode ierr =
      SlepcInitialize(argc, argv, nullptr, "catena: constrained multibody solver\n");
  CATENA_CHECK(ierr == 0, "PETSc/SLEPc initialization failed (error code " << ierr << ")");
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank_);
  MPI_Comm_size(PETSC_COMM_WORLD, &size_);
}

PetscSession::~PetscSession() {
  SlepcFinalize();
}

}  // namespace catena
