#pragma once
/// @file model_partition.hpp
/// The part of any model (a YAML input, a generator's whole model) that this rank holds, so that
/// every model a rank can hold runs through the distributed analyses: bodies are split by a
/// graph partition (graph_partition.hpp: vertices bodies, edges joints, weights the body's
/// velocity coordinates plus the rows of the joints it holds), each rank's bodies renumbered
/// into one contiguous global range; a joint goes to the rank of the body that holds it
/// (model/model_part.hpp holdingBody), the joints of a rank body by body in its local order.
/// Every rank reads the whole model; the parts are built from it, each joint with the whole
/// model's row mask (redundant rows left out stay out). Models with springs are refused
/// (distributed assembly has no spring terms): catena::Error. Collective.

#include <string>
#include <vector>

#include "model/model_part.hpp"

namespace catena {

struct PartitionedModel {
  ModelPart part;
  std::vector<Index> body;   ///< the whole model's index of local body b (owned, then ghosts)
  std::vector<Index> joint;  ///< the whole model's index of local joint j
  std::string partitioner;   ///< MatPartitioning type ("none" on one rank)
};

/// prefix: PETSc options prefix of the partitioner (e.g. -model_mat_partitioning_type average).
/// reproducible: the bodies in contiguous ranges of the whole model's order instead (so the
/// global numbering of bodies, joints and unknowns is the same on any rank count) and the part
/// with its halo (ModelPart::halo): what bitwise reproducible dynamics needs
/// (integrators/distributed_dynamics.hpp).
PartitionedModel partitionModel(const Model& whole, const std::string& prefix = "model_",
                                bool reproducible = false);

}  // namespace catena
