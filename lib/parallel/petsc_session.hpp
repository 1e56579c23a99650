#pragma once
/// @file petsc_session.hpp
/// One PETSc/SLEPc (and MPI) session per process: initializes on construction with the command
/// line, so PETSc and SLEPc options (-ksp_type, -eps_type, -st_type, ...) pass straight through,
/// and finalizes on destruction. Drivers create one; tests create one in a global fixture.

#include <string>
#include <vector>

namespace catena {

class PetscSession {
 public:
  /// argc/argv may be null (no options). Throws catena::Error if initialization fails.
  PetscSession(int* argc, char*** argv);
  ~PetscSession();
  PetscSession(const PetscSession&) = delete;
  PetscSession& operator=(const PetscSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  /// The options given when the session started (command line, PETSC_OPTIONS, .petscrc) that
  /// nothing has read since, as "-name" (PetscOptionsLeftGet). A driver calls it at the end of
  /// a run to warn of misspelt or misplaced options; defaults that catena itself put into the
  /// options database later are not reported.
  std::vector<std::string> unusedOptions() const;

 private:
  int rank_ = 0, size_ = 1;
  std::vector<std::string> given_;  ///< options unread right after initialization
};

}  // namespace catena
