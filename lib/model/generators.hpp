#pragma once
/// @file generators.hpp
/// Model generators for the headline workloads. They add to a ModelBuilder, so an input file can
/// start from a generated mechanism and add loads or bodies to it.
///
/// Catenary chain (tangent-stiffness paper, section 4.2): N rigid links from A through the sag
/// point C to B, N/2 per leg, initialized in the 'V' shape A-C-B; consecutive links joined by
/// universal joints (twist locked, both bendings free). The end links hinge to the ground by a
/// universal joint at A and a spherical joint at B (why: docs/input-format.md, "The generated
/// mechanisms"). Link k is body "link_k" with its frame at mid-length and x along the link;
/// markers "link_k/start" and "link_k/end"; joints "joint_k" (between links k-1 and k), "end_a",
/// "end_b". Mobility 2N - 3: that of N rods joined by ball joints with both ends fixed.
///
/// The four-bar lattice is in four_bar_lattice.hpp.

#include <string>
#include <vector>

#include "model/four_bar_lattice.hpp"
#include "model/model_builder.hpp"
#include "model/model_part.hpp"

namespace catena {

struct CatenaryChainOptions {
  int links = 20;                         ///< N, even, >= 2
  Vec3 end_a = Vec3(0.0, 0.0, 0.0);       ///< m
  Vec3 end_b = Vec3(10.0, 0.0, 0.0);      ///< m
  Vec3 sag_point = Vec3(5.0, 0.0, -6.0);  ///< m, the kink of the initial 'V'
  double mass_per_length = 1.0;           ///< kg/m
  double radius = 0.02;                   ///< m, solid circular section (inertia only)
};

/// The anchor chain as the tangent-stiffness paper's authors build it in their public demo
/// (docs/input-format.md, "The generated mechanisms"): bodies are lumped nodes, not links. 2 K + 3
/// bodies "node_0".."node_{2K+2}": one at A, K evenly spaced strictly between A and C, one at C,
/// K between C and B, one at B; each of mass `node_mass` and inertia `node_inertia` I. The K
/// nodes of a leg have x along their leg; the node at A is turned by +45 degrees about y, the
/// node at B by -45 degrees, the node at C not at all. Consecutive nodes are joined by universal
/// joints "joint_k" whose points sit at +-h along the two bodies' x axes (h: half the distance
/// between the nodes), so the initial 'V' is not assembled at A, B and C; statics assembles it.
/// The end nodes hinge to the ground by revolute joints "end_a", "end_b" about the world y axis.
/// With K = 20 its four lowest modes are the paper's Table 3 (tests/verification/modal_test.cpp).
struct NodeChainOptions {
  int nodes_per_leg = 20;                 ///< K
  Vec3 end_a = Vec3(0.0, 0.0, 0.0);       ///< m
  Vec3 end_b = Vec3(10.0, 0.0, 0.0);      ///< m
  Vec3 sag_point = Vec3(5.0, 0.0, -6.0);  ///< m
  double node_mass = 10.0;                ///< kg
  double node_inertia = 10.0;             ///< kg m^2, about every axis
};

/// Adds the chain to a 3D builder (gravity is not touched). Throws catena::Error for a 2D
/// builder, N odd or < 2, a non-positive mass per length or radius, or a sag point on an end.
void addCatenaryChain(ModelBuilder& builder, const CatenaryChainOptions& options);
/// Adds links [first, last) of the chain (0 <= first < last <= N) to a 3D builder, with the
/// joints those links hold (joint k, between links k-1 and k, or end_a for k = 0, is held by link
/// k; end_b by link N-1), the ground markers of the end joints among them, and, if first > 0, the
/// ghost link first-1 (added after the owned links) that joint `first` reaches. Every link is
/// computed from its index alone: identical to the same link of the whole chain, and O(last -
/// first) work. addCatenaryChain is the part [0, N). halo (model_part.hpp, HaloPart): also the
/// ghost link `last` (after first-1) and the joint `last` it holds, when last < N.
void addCatenaryChainPart(ModelBuilder& builder, const CatenaryChainOptions& options, int first,
                          int last, bool halo = false);
/// The part of the chain that rank `rank` of `size` holds (model_part.hpp): the contiguous range
/// contiguousRange(N, rank, size) of links, a finalized local model with gravity (0, 0, -9.81).
/// Needs N >= size. Never builds the whole chain. halo: also ModelPart::halo, which distributed
/// dynamics needs for results that do not depend on the rank count.
ModelPart buildCatenaryChainPart(const CatenaryChainOptions& options, int rank, int size,
                                 bool halo = false);
/// Adds the node chain to a 3D builder (gravity is not touched).
void addNodeChain(ModelBuilder& builder, const NodeChainOptions& options);

/// Convenience: a finalized chain with gravity (0, 0, -9.81).
Model buildCatenaryChain(const CatenaryChainOptions& options);

}  // namespace catena
