#include "parallel/ghost_exchange.hpp"

#include <petscvec.h>

#include <algorithm>
#include <vector>

#include "solvers/petsc_check.hpp"

namespace catena {

struct GhostExchange::Petsc {
  Vec v = nullptr;
  ~Petsc() { VecDestroy(&v); }
};

GhostExchange::GhostExchange(int block, Index owned_blocks, std::span<const Index> ghosts)
    : petsc_(std::make_unique<Petsc>()),
      owned_size_(owned_blocks * block),
      local_size_((owned_blocks + static_cast<Index>(ghosts.size())) * block) {
  CATENA_CHECK(block >= 1 && owned_blocks >= 0,
               "a ghost exchange needs a positive block size and a non-negative owned count");
  const std::vector<PetscInt> g(ghosts.begin(), ghosts.end());
  CATENA_PETSC(VecCreateGhostBlock(PETSC_COMM_WORLD, block, owned_size_, PETSC_DECIDE,
                                   static_cast<PetscInt>(g.size()), g.data(), &petsc_->v));
}

GhostExchange::~GhostExchange() = default;

void GhostExchange::update(double* local) const {
  Vec v = petsc_->v;
  PetscScalar* a = nullptr;
  CATENA_PETSC(VecGetArray(v, &a));
  std::copy_n(local, owned_size_, a);
  CATENA_PETSC(VecRestoreArray(v, &a));
  CATENA_PETSC(VecGhostUpdateBegin(v, INSERT_VALUES, SCATTER_FORWARD));
  CATENA_PETSC(VecGhostUpdateEnd(v, INSERT_VALUES, SCATTER_FORWARD));
  Vec l = nullptr;
  CATENA_PETSC(VecGhostGetLocalForm(v, &l));
  const PetscScalar* b = nullptr;
  CATENA_PETSC(VecGetArrayRead(l, &b));
  std::copy(b + owned_size_, b + local_size_, local + owned_size_);
  CATENA_PETSC(VecRestoreArrayRead(l, &b));
  CATENA_PETSC(VecGhostRestoreLocalForm(v, &l));
}

void GhostExchange::accumulate(double* local) const {
  Vec v = petsc_->v;
  Vec l = nullptr;
  CATENA_PETSC(VecGhostGetLocalForm(v, &l));
  PetscScalar* a = nullptr;
  CATENA_PETSC(VecGetArray(l, &a));
  std::copy(local, local + local_size_, a);
  CATENA_PETSC(VecRestoreArray(l, &a));
  CATENA_PETSC(VecGhostRestoreLocalForm(v, &l));
  CATENA_PETSC(VecGhostUpdateBegin(v, ADD_VALUES, SCATTER_REVERSE));
  CATENA_PETSC(VecGhostUpdateEnd(v, ADD_VALUES, SCATTER_REVERSE));
  const PetscScalar* b = nullptr;
  CATENA_PETSC(VecGetArrayRead(v, &b));
  std::copy_n(b, owned_size_, local);
  CATENA_PETSC(VecRestoreArrayRead(v, &b));
}

}  // namespace catena
