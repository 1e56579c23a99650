#include "parallel/lattice_part.hpp"

#include <mpi.h>
#include <petscsys.h>

#include "core/check.hpp"
#include "parallel/graph_partition.hpp"

namespace catena {

DistributedLatticePart buildDistributedFourBarLattice(const FourBarLatticeOptions& o) {
  CATENA_CHECK(!o.merged_couplers,
               "a distributed four-bar lattice needs unmerged couplers (merged couplers make "
               "redundant constraints: statics and modes would be singular)");
  const GraphPartition partition(
      fourBarLatticeBodies(o), [&](Index b) { return fourBarLatticeNeighbours(o, b); },
      [&](Index b) { return 3 + 2 * fourBarLatticeHeldJoints(o, b); }, "lattice_");
  LatticePartLayout layout;
  layout.owned = partition.owned();
  layout.first_body = partition.first();
  layout.ghost_natural = fourBarLatticeGhosts(o, layout.owned);
  layout.ghost_global = partition.renumber(layout.ghost_natural);
  long joints = 0, below = 0;
  for (Index b : layout.owned) joints += fourBarLatticeHeldJoints(o, b);
  MPI_Exscan(&joints, &below, 1, MPI_LONG, MPI_SUM, PETSC_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  layout.first_joint = rank == 0 ? 0 : static_cast<Index>(below);
  return {buildFourBarLatticePart(o, layout), partition.method()};
}

}  // namespace catena
