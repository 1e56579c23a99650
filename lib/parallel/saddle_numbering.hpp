#pragma once
/// @file saddle_numbering.hpp
/// The saddle-point numbering of a DistributedModel (independent of the rank count for a given
/// partition): body by body, a body's velocity coordinates followed by the rows of the joints
/// it holds (model_part.hpp holdingBody; in joint order); a rank owns the contiguous range of its
/// bodies. Used by the distributed statics (its [K, C_q^T; C_q, 0]) and the modal pencil.

#include <vector>

#include "parallel/distributed_model.hpp"

namespace catena {

struct SaddleNumbering {
  Index first = 0, local_size = 0;  ///< this rank's range [first, first + local_size)
  std::vector<Index> kv;  ///< local velocity coordinate (owned, then ghosts) -> global index
  std::vector<Index> kr;  ///< local (owned) constraint row -> global index
};

/// The numbering, with the ghost bodies' indices learned from their owners. Collective.
SaddleNumbering saddleNumbering(const DistributedModel& dm);

}  // namespace catena
