#pragma once
/// @file model_part.hpp
/// The part of a model that one rank holds (docs/parallel.md). A part is a finalized local Model
/// whose bodies are the rank's owned bodies, then the ghost bodies that its joints reach, and
/// whose joints are the joints it owns: a joint is owned by the rank of its holding body (body 1,
/// or body 2 where body 1 is the ground: holdingBody). Owned bodies
/// and owned joints are contiguous ranges of the global numbering, in rank order, so the global
/// numbering of coordinates (body-major) and of constraint rows (joint order) does not depend on
/// the number of ranks. MPI-free: generators build parts (generators.hpp), parallel/ numbers them.

#include <cstdint>
#include <utility>
#include <vector>

#include "model/model.hpp"

namespace catena {

/// A part's halo (integrators/distributed_dynamics.hpp): the owned bodies with every joint that
/// touches one, also the joints that other ranks own, so that a rank evaluates its bodies' rows
/// of the equations of motion whole and in the order one rank does: the same bits on any rank
/// count. A finalized model whose bodies are the part's owned bodies (same order), then
/// ghost_bodies; whose joints are those touching an owned body, in ascending global order.
struct HaloPart {
  Model model;                      ///< empty (no bodies): the generator made no halo
  std::vector<Index> ghost_bodies;  ///< global index of local body owned_bodies + i
  std::vector<Index> joints;        ///< global index of local joint j, ascending

  bool empty() const { return model.bodies.empty(); }
};

struct ModelPart {
  Model model;             ///< local bodies: [0, owned_bodies) owned, then ghost_bodies
  Index owned_bodies = 0;  ///< owned bodies: global [first_body, first_body + owned_bodies)
  Index first_body = 0;
  std::vector<Index> ghost_bodies;  ///< global index of local body owned_bodies + i
  Index first_joint = 0;            ///< global index of local joint 0 (joints: all owned)
  Index global_bodies = 0, global_joints = 0;
  /// Made on request (generators.hpp): distributed dynamics evaluates the owned bodies' rows
  /// whole on it; without it, a ghost body's rows are summed over the ranks.
  HaloPart halo;

  /// Global index of local body b (owned or ghost).
  Index globalBody(Index b) const {
    return b < owned_bodies ? first_body + b : ghost_bodies[b - owned_bodies];
  }
};

/// The body that holds joint j (whose rank owns the joint and its rows): its body 1, or its
/// body 2 where body 1 is the ground.
inline Index holdingBody(const Model& m, Index j) {
  const Index b1 = m.markerBody(m.joints[j].marker1);
  return b1 != kGround ? b1 : m.markerBody(m.joints[j].marker2);
}

/// Contiguous block partition: items [first, last) of n for rank r of p, sizes differing by at
/// most 1, in rank order. 64-bit intermediate: n up to 2^31 - 1.
inline std::pair<Index, Index> contiguousRange(Index n, int r, int p) {
  const auto at = [&](int k) { return static_cast<Index>(static_cast<std::int64_t>(n) * k / p); };
  return {at(r), at(r + 1)};
}

}  // namespace catena
