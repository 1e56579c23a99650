#include "parallel/petsc_session.hpp"

#include <slepcsys.h>
#if defined(__GLIBC__)  // defined by the headers above
#include <malloc.h>
#endif

#include <algorithm>

#include "core/check.hpp"
#include "solvers/petsc_check.hpp"

namespace catena {

namespace {

/// Debian's SuperLU_DIST, loaded with PETSc, bundles CombBLAS, whose static initializer switches
/// off glibc's mmap of large blocks and the trimming of the heap (mallopt M_MMAP_MAX 0,
/// M_TRIM_THRESHOLD -1). Every block then comes from the heap and stays there once freed, and
/// each new KLU factorization, allocated at its estimate before it shrinks, finds no hole large
/// enough and grows the heap again: statics of a 2e5-link chain peaked at 3.3 GB instead of
/// 2.7 GB. Any mallopt also ends glibc's dynamic mmap threshold (128 KiB rising to 32 MiB as
/// mapped blocks are freed), so setting the defaults back left it at 128 KiB: every vector of a
/// large model was mapped, faulted in page by page and unmapped again (2.8 million page faults
/// in a 2-rank statics of 2e5 links). So: glibc's thresholds where its dynamic rule ends, blocks
/// up to 32 MiB from the heap and larger ones (the factors) mapped and returned when freed.
/// Results unchanged: only where blocks come from.
/// The options in the database that nothing has read yet, as "-name".
std::vector<std::string> optionsLeft() {
  PetscInt n = 0;
  char** names = nullptr;
  char** values = nullptr;
  if (PetscOptionsLeftGet(nullptr, &n, &names, &values) != 0) return {};
  std::vector<std::string> out;
  for (PetscInt k = 0; k < n; ++k)
    out.push_back(std::string(names[k][0] == '-' ? "" : "-") + names[k]);
  PetscOptionsLeftRestore(nullptr, &n, &names, &values);
  return out;
}

void restoreMallocDefaults() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 65536);
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
#endif
}

}  // namespace

PetscSession::PetscSession(int* argc, char*** argv) {
  restoreMallocDefaults();
  // SlepcInitialize initializes PETSc (and MPI) too; "help" is the -help banner.
  const PetscErrorCode ierr =
      SlepcInitialize(argc, argv, nullptr, "catena: constrained multibody solver\n");
  CATENA_CHECK(ierr == 0, "PETSc/SLEPc initialization failed (error code " << ierr << ")");
  installPetscErrorRecorder();
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank_);
  MPI_Comm_size(PETSC_COMM_WORLD, &size_);
  given_ = optionsLeft();
}

std::vector<std::string> PetscSession::unusedOptions() const {
  std::vector<std::string> out;
  for (const std::string& name : optionsLeft())
    if (std::find(given_.begin(), given_.end(), name) != given_.end()) out.push_back(name);
  return out;
}

PetscSession::~PetscSession() {
  SlepcFinalize();
}

}  // namespace catena
