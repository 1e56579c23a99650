#include "parallel/saddle_numbering.hpp"

#include <mpi.h>
#include <petscsys.h>

namespace catena {

SaddleNumbering saddleNumbering(const DistributedModel& dm) {
  const Model& m = dm.local();
  const int nvb = m.nv_body;
  const Index owned = dm.part().owned_bodies;
  std::vector<std::vector<Index>> held(owned);  // joints by their holding body
  for (Index j = 0; j < static_cast<Index>(m.joints.size()); ++j)
    held[holdingBody(m, j)].push_back(j);
  SaddleNumbering n;
  n.local_size = dm.ownedVelocities() + m.nc;
  long below = 0, local = n.local_size;
  MPI_Exscan(&local, &below, 1, MPI_LONG, MPI_SUM, PETSC_COMM_WORLD);
  n.first = dm.rank() == 0 ? 0 : static_cast<Index>(below);  // Exscan leaves rank 0 undefined
  n.kv.resize(m.nv);
  n.kr.resize(m.nc);
  Index at = n.first;
  for (Index b = 0; b < owned; ++b) {
    for (int c = 0; c < nvb; ++c) n.kv[b * nvb + c] = at++;
    for (Index j : held[b])
      for (Index r = m.joint_row_offset[j]; r < m.joint_row_offset[j + 1]; ++r) n.kr[r] = at++;
  }
  // Ghost bodies' indices from their owners, through the ghost exchange (block 1).
  const Index bodies = static_cast<Index>(m.bodies.size());
  std::vector<double> start(bodies);
  for (Index b = 0; b < owned; ++b) start[b] = static_cast<double>(n.kv[b * nvb]);
  GhostExchange(1, owned, dm.part().ghost_bodies).update(start.data());
  for (Index b = owned; b < bodies; ++b)
    for (int c = 0; c < nvb; ++c) n.kv[b * nvb + c] = static_cast<Index>(start[b]) + c;
  return n;
}

}  // namespace catena
