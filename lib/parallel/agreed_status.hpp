#pragma once
/// @file agreed_status.hpp
/// One Status for every rank of a communicator (PETSC_COMM_WORLD unless given), so that all ranks
/// take the same path after a step that may fail on some of them only. Collective.

#include <mpi.h>
#include <petscsys.h>

#include "core/status.hpp"

namespace catena {

/// Ok only if every rank's st is; otherwise this rank's failure, or the code of another rank's
/// failure with a generic message.
inline Status agreedStatus(const Status& st, MPI_Comm comm = PETSC_COMM_WORLD) {
  int local = st.ok() ? -1 : static_cast<int>(st.code), worst = -1;
  MPI_Allreduce(&local, &worst, 1, MPI_INT, MPI_MAX, comm);
  if (worst < 0) return Status::success();
  if (!st.ok()) return st;
  return Status::failure(static_cast<Status::Code>(worst), "failed on another rank");
}

}  // namespace catena
