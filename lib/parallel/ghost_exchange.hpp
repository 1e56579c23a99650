#pragma once
/// @file ghost_exchange.hpp
/// Ghost exchange of per-body data through PETSc (a ghosted Vec, VecCreateGhostBlock): every rank
/// owns a contiguous range of blocks (bodies) of `block` doubles and reads copies of some blocks
/// that other ranks own (its ghosts). The local array is the owned blocks, then the ghost blocks
/// in the order given at construction, which is the local body order of a ModelPart
/// (model/model_part.hpp), so a local state vector is exchanged in place. Collective over
/// PETSC_COMM_WORLD; PETSc must be initialized (parallel/petsc_session.hpp).

#include <memory>
#include <span>

#include "core/types.hpp"

namespace catena {

class GhostExchange {
 public:
  /// block: doubles per body; owned_blocks: bodies owned by this rank (global index = the sum of
  /// the owned counts of the lower ranks + local index); ghosts: global indices of the ghost
  /// bodies, none owned by this rank.
  GhostExchange(int block, Index owned_blocks, std::span<const Index> ghosts);
  ~GhostExchange();
  GhostExchange(const GhostExchange&) = delete;
  GhostExchange& operator=(const GhostExchange&) = delete;

  /// local: (owned_blocks + ghosts) * block doubles. Copies the owners' values of the ghost
  /// blocks into local's ghost slots (VecGhostUpdateBegin/End, INSERT_VALUES, forward); the
  /// owned slots are read, not changed. Collective.
  void update(double* local) const;

  /// local: as for update. Adds the ghost blocks' values into their owners' blocks (reverse
  /// scatter, ADD_VALUES): each owned block becomes its own value plus the ghosts of it on the
  /// other ranks. The ghost slots are read, not changed. Collective.
  void accumulate(double* local) const;

  Index localSize() const { return local_size_; }

 private:
  struct Petsc;  // PETSc objects stay out of this header
  std::unique_ptr<Petsc> petsc_;
  Index owned_size_ = 0, local_size_ = 0;
};

}  // namespace catena
