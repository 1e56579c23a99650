#pragma once
/// @file lattice_part.hpp
/// The part of an unmerged four-bar lattice (model/four_bar_lattice.hpp) that this rank holds
/// under a graph partition of its bodies (graph_partition.hpp, PT-Scotch): vertices are bodies,
/// edges joints, a body's weight its velocity coordinates plus the rows of the joints it holds,
/// so ranks get equal shares of the saddle-point unknowns and few joints cross ranks. Built from
/// indices alone; the whole lattice never exists on one rank. Collective.

#include <string>

#include "model/four_bar_lattice.hpp"

namespace catena {

struct DistributedLatticePart {
  ModelPart part;
  std::string partitioner;  ///< MatPartitioning type ("ptscotch"; "none" on one rank)
};

/// This rank's part. Throws catena::Error for merged couplers (redundant constraints).
/// Collective; PETSc must be initialized.
DistributedLatticePart buildDistributedFourBarLattice(const FourBarLatticeOptions& options);

}  // namespace catena
