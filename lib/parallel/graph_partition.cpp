#include "parallel/graph_partition.hpp"

#include <petscmat.h>

#include <algorithm>
#include <numeric>

#include "model/model_part.hpp"
#include "solvers/petsc_check.hpp"

namespace catena {

/// newnum: the new global index of every natural vertex (as a double, exact below 2^53),
/// distributed as the natural slices; lookups scatter from it.
struct GraphPartition::Petsc {
  Vec newnum = nullptr;
  ~Petsc() { VecDestroy(&newnum); }
};

GraphPartition::GraphPartition(Index n, const std::function<std::vector<Index>(Index)>& neighbours,
                               const std::function<int(Index)>& weight, const std::string& prefix)
    : petsc_(std::make_unique<Petsc>()) {
  int rank = 0, size = 1;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  const auto [lo, hi] = contiguousRange(n, rank, size);
  const PetscInt local = hi - lo;
  // n < size on every rank alike: all throw, none is left waiting in a collective call.
  CATENA_CHECK(n >= size, "a graph partition of " << n << " vertices over " << size
                                                  << " ranks leaves a rank without a vertex");
  // numbering: the new global index of every vertex of the natural slice; count: how many
  // vertices each rank gets.
  IS numbering = nullptr;
  std::vector<PetscInt> count(size, 0);
  if (size == 1) {
    method_ = "none";
    count[0] = local;
    CATENA_PETSC(ISCreateStride(PETSC_COMM_WORLD, local, 0, 1, &numbering));
  } else {
    // The adjacency of the natural slice (CSR, no diagonal), handed to MatMPIAdj, which frees
    // it; the vertex weights likewise to MatPartitioning.
    std::vector<PetscInt> ia{0}, ja;
    for (Index v = lo; v < hi; ++v) {
      for (Index u : neighbours(v))
        if (u != v) ja.push_back(u);
      ia.push_back(static_cast<PetscInt>(ja.size()));
    }
    PetscInt *pia = nullptr, *pja = nullptr, *pw = nullptr;
    CATENA_PETSC(PetscMalloc1(ia.size(), &pia));
    CATENA_PETSC(PetscMalloc1(std::max<std::size_t>(ja.size(), 1), &pja));
    CATENA_PETSC(PetscMalloc1(local, &pw));
    std::copy(ia.begin(), ia.end(), pia);
    std::copy(ja.begin(), ja.end(), pja);
    for (Index v = lo; v < hi; ++v) {
      pw[v - lo] = weight(v);
      CATENA_CHECK(pw[v - lo] >= 1, "graph partition: vertex " << v << " has weight " << pw[v - lo]
                                                               << " (needs >= 1)");
    }
    Mat adj = nullptr;
    CATENA_PETSC(MatCreateMPIAdj(PETSC_COMM_WORLD, local, n, pia, pja, nullptr, &adj));
    MatPartitioning part = nullptr;
    CATENA_PETSC(MatPartitioningCreate(PETSC_COMM_WORLD, &part));
    CATENA_PETSC(MatPartitioningSetAdjacency(part, adj));
    CATENA_PETSC(MatPartitioningSetType(part, MATPARTITIONINGPTSCOTCH));
    CATENA_PETSC(MatPartitioningSetVertexWeights(part, pw));
    if (!prefix.empty())
      CATENA_PETSC(
          PetscObjectSetOptionsPrefix(reinterpret_cast<PetscObject>(part), prefix.c_str()));
    CATENA_PETSC(MatPartitioningSetFromOptions(part));
    IS target = nullptr;  // the new rank of every vertex of the natural slice
    CATENA_PETSC(MatPartitioningApply(part, &target));
    MatPartitioningType type = nullptr;
    CATENA_PETSC(MatPartitioningGetType(part, &type));
    method_ = type;
    CATENA_PETSC(ISPartitioningToNumbering(target, &numbering));
    CATENA_PETSC(ISPartitioningCount(target, size, count.data()));
    CATENA_PETSC(ISDestroy(&target));
    CATENA_PETSC(MatPartitioningDestroy(&part));
    CATENA_PETSC(MatDestroy(&adj));
  }
  for (int r = 0; r < size; ++r)
    CATENA_CHECK(count[r] >= 1,
                 "the graph partition (" << method_ << ") left rank " << r << " without a vertex");
  first_ = std::accumulate(count.begin(), count.begin() + rank, Index{0});

  // The numbering by natural slice, kept for renumber(); its inverse by new ownership is the
  // list of the natural vertices this rank now owns, in the new order.
  const PetscInt* num = nullptr;
  CATENA_PETSC(ISGetIndices(numbering, &num));
  CATENA_PETSC(VecCreateMPI(PETSC_COMM_WORLD, local, n, &petsc_->newnum));
  PetscScalar* a = nullptr;
  CATENA_PETSC(VecGetArray(petsc_->newnum, &a));
  for (PetscInt k = 0; k < local; ++k) a[k] = static_cast<PetscScalar>(num[k]);
  CATENA_PETSC(VecRestoreArray(petsc_->newnum, &a));
  CATENA_PETSC(ISRestoreIndices(numbering, &num));
  IS inverse = nullptr;
  CATENA_PETSC(ISInvertPermutation(numbering, count[rank], &inverse));
  const PetscInt* inv = nullptr;
  PetscInt mine = 0;
  CATENA_PETSC(ISGetLocalSize(inverse, &mine));
  CATENA_PETSC(ISGetIndices(inverse, &inv));
  owned_.assign(inv, inv + mine);
  CATENA_PETSC(ISRestoreIndices(inverse, &inv));
  CATENA_PETSC(ISDestroy(&inverse));
  CATENA_PETSC(ISDestroy(&numbering));
}

GraphPartition::~GraphPartition() = default;

std::vector<Index> GraphPartition::renumber(std::span<const Index> natural) const {
  std::vector<PetscInt> idx(natural.begin(), natural.end());
  IS is = nullptr;
  CATENA_PETSC(ISCreateGeneral(PETSC_COMM_SELF, static_cast<PetscInt>(idx.size()), idx.data(),
                               PETSC_USE_POINTER, &is));
  Vec out = nullptr;
  CATENA_PETSC(VecCreateSeq(PETSC_COMM_SELF, static_cast<PetscInt>(idx.size()), &out));
  VecScatter scatter = nullptr;
  CATENA_PETSC(VecScatterCreate(petsc_->newnum, is, out, nullptr, &scatter));
  CATENA_PETSC(VecScatterBegin(scatter, petsc_->newnum, out, INSERT_VALUES, SCATTER_FORWARD));
  CATENA_PETSC(VecScatterEnd(scatter, petsc_->newnum, out, INSERT_VALUES, SCATTER_FORWARD));
  const PetscScalar* a = nullptr;
  CATENA_PETSC(VecGetArrayRead(out, &a));
  std::vector<Index> result(idx.size());
  for (std::size_t k = 0; k < idx.size(); ++k) result[k] = static_cast<Index>(a[k]);
  CATENA_PETSC(VecRestoreArrayRead(out, &a));
  CATENA_PETSC(VecScatterDestroy(&scatter));
  CATENA_PETSC(VecDestroy(&out));
  CATENA_PETSC(ISDestroy(&is));
  return result;
}

}  // namespace catena
