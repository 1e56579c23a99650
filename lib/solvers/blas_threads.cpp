#include "solvers/blas_threads.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace catena {

void pinBlasToOneThread() {
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  using SetThreads = void (*)(int);
  // Already loaded (a dependency of LAPACK and PETSc): its pool was sized from the environment
  // as the process started, so the variable alone is too late for it.
  if (void* f = dlsym(RTLD_DEFAULT, "openblas_set_num_threads")) reinterpret_cast<SetThreads>(f)(1);
}

}  // namespace catena
