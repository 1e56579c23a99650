#include "parallel/model_partition.hpp"

#include <mpi.h>
#include <petscsys.h>

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "core/check.hpp"
#include "model/model_builder.hpp"
#include "parallel/graph_partition.hpp"

namespace catena {
namespace {

/// The joints of the whole model by holding body and by body they touch, and each body's
/// neighbours through joints.
struct JointGraph {
  std::vector<std::vector<Index>> held, touching, neighbours;
  explicit JointGraph(const Model& m)
      : held(m.bodies.size()), touching(m.bodies.size()), neighbours(m.bodies.size()) {
    for (Index j = 0; j < static_cast<Index>(m.joints.size()); ++j) {
      const Index holder = holdingBody(m, j);
      CATENA_CHECK(holder != kGround,
                   "joint '" << m.joints[j].name << "' joins the ground to the ground");
      held[holder].push_back(j);
      const Index a = m.markerBody(m.joints[j].marker1), b = m.markerBody(m.joints[j].marker2);
      for (Index body : {a, b})  // a != b: ModelBuilder refuses a joint within one body
        if (body != kGround) touching[body].push_back(j);
      if (a != kGround && b != kGround && a != b) {
        neighbours[a].push_back(b);
        neighbours[b].push_back(a);
      }
    }
    for (std::vector<Index>& n : neighbours) {
      std::sort(n.begin(), n.end());
      n.erase(std::unique(n.begin(), n.end()), n.end());
    }
  }
};

/// The bodies that `joints` reach and `owned` does not hold, ascending, each once.
template <class Owned>
std::vector<Index> reachedBodies(const Model& whole, const std::vector<Index>& joints,
                                 const Owned& owned) {
  std::vector<Index> out;
  for (Index j : joints)
    for (Index marker : {whole.joints[j].marker1, whole.joints[j].marker2}) {
      const Index b = whole.markerBody(marker);
      if (b != kGround && !owned(b)) out.push_back(b);
    }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/// The local model of the whole model's `bodies` and `joints` (in these orders): the bodies with
/// all their markers, the joints' ground markers, the loads on the first `loaded` bodies, each
/// joint with the whole model's row mask.
Model localModel(const Model& whole, const std::vector<Index>& bodies, std::size_t loaded,
                 const std::vector<Index>& joints) {
  ModelBuilder builder(whole.dimension, whole.name);
  builder.setGravity(whole.gravity);
  std::unordered_map<Index, Index> local_body, local_marker;
  for (Index b : bodies) local_body.emplace(b, builder.addBody(whole.bodies[b]));
  for (Index k = 0; k < static_cast<Index>(whole.markers.size()); ++k) {
    const Index b = whole.markers[k].body;
    if (b == kGround || !local_body.count(b)) continue;
    Marker marker = whole.markers[k];
    marker.body = local_body.at(b);
    local_marker.emplace(k, builder.addMarker(marker));
  }
  auto markerOf = [&](Index k) {
    if (auto it = local_marker.find(k); it != local_marker.end()) return it->second;
    const Index at = builder.addMarker(whole.markers[k]);  // a ground marker
    local_marker.emplace(k, at);
    return at;
  };
  for (Index j : joints) {
    Joint joint = whole.joints[j];
    joint.marker1 = markerOf(joint.marker1);
    joint.marker2 = markerOf(joint.marker2);
    builder.addJoint(joint);
  }
  const std::unordered_set<Index> loaded_bodies(bodies.begin(), bodies.begin() + loaded);
  for (const MarkerLoad& l : whole.loads) {
    const Index b = whole.markerBody(l.marker);
    if (b == kGround || !loaded_bodies.count(b)) continue;
    MarkerLoad load = l;
    load.marker = markerOf(l.marker);
    builder.addLoad(load);
  }
  Model m = builder.finalize();
  // ModelBuilder gives a joint its type's rows: those the whole model leaves out (redundant
  // rows, independentRows) come back, so its masks are restored.
  for (std::size_t j = 0; j < joints.size(); ++j) m.joints[j].mask = whole.joints[joints[j]].mask;
  m.countRows();
  return m;
}

/// The halo of the owned bodies [first, last) of a contiguous partition (global indices are the
/// whole model's for bodies, and joints numbered by holding body): every joint touching an owned
/// body, in global order, and the other bodies they reach.
HaloPart haloPart(const Model& whole, const JointGraph& graph, Index first, Index last) {
  const Index n = static_cast<Index>(whole.bodies.size());
  std::vector<Index> global_joint(whole.joints.size());
  Index k = 0;
  for (Index b = 0; b < n; ++b)
    for (Index j : graph.held[b]) global_joint[j] = k++;
  std::vector<Index> joints;
  for (Index b = first; b < last; ++b)
    joints.insert(joints.end(), graph.touching[b].begin(), graph.touching[b].end());
  std::sort(joints.begin(), joints.end(),
            [&](Index a, Index b) { return global_joint[a] < global_joint[b]; });
  joints.erase(std::unique(joints.begin(), joints.end()), joints.end());
  HaloPart halo;
  halo.ghost_bodies = reachedBodies(whole, joints, [&](Index b) { return b >= first && b < last; });
  std::vector<Index> bodies;
  for (Index b = first; b < last; ++b) bodies.push_back(b);
  bodies.insert(bodies.end(), halo.ghost_bodies.begin(), halo.ghost_bodies.end());
  halo.model = localModel(whole, bodies, static_cast<std::size_t>(last - first), joints);
  for (Index j : joints) halo.joints.push_back(global_joint[j]);
  return halo;
}

}  // namespace

PartitionedModel partitionModel(const Model& whole, const std::string& prefix, bool reproducible) {
  CATENA_CHECK(whole.springs.empty() && whole.rotational_springs.empty(),
               "model '" << whole.name << "': distributed models do not take spring-dampers yet "
                         << "(docs/parallel.md)");
  CATENA_CHECK(!whole.bodies.empty(), "model '" << whole.name << "' has no bodies to distribute");
  const JointGraph graph(whole);
  const Index n = static_cast<Index>(whole.bodies.size());
  int rank = 0, ranks = 1;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  MPI_Comm_size(PETSC_COMM_WORLD, &ranks);

  PartitionedModel out;
  std::optional<GraphPartition> partition;
  Index first_body = 0;
  if (reproducible) {
    const auto [first, last] = contiguousRange(n, rank, ranks);
    for (Index b = first; b < last; ++b) out.body.push_back(b);
    first_body = first;
    out.partitioner = "contiguous";
  } else {
    partition.emplace(
        n, [&](Index b) { return graph.neighbours[b]; },
        [&](Index b) {
          int rows = 0;
          for (Index j : graph.held[b])
            rows += whole.joint_row_offset[j + 1] - whole.joint_row_offset[j];
          return whole.nv_body + rows;
        },
        prefix);
    out.partitioner = partition->method();
    out.body = partition->owned();
    first_body = partition->first();
  }
  // Every rank throws, or none: a rank left waiting in a collective call would hang the run.
  int empty = out.body.empty() ? 1 : 0, any_empty = 0;
  MPI_Allreduce(&empty, &any_empty, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD);
  CATENA_CHECK(!any_empty, "model '" << whole.name << "': the partition of its " << n
                                     << " bodies over " << ranks
                                     << " ranks leaves a rank without a body; run it on fewer "
                                        "ranks");
  std::vector<char> owned(n, 0);
  for (Index b : out.body) owned[b] = 1;
  for (Index b : out.body)
    out.joint.insert(out.joint.end(), graph.held[b].begin(), graph.held[b].end());
  const std::vector<Index> ghosts =
      reachedBodies(whole, out.joint, [&](Index b) { return owned[b] != 0; });
  const std::size_t owned_count = out.body.size();
  out.body.insert(out.body.end(), ghosts.begin(), ghosts.end());

  ModelPart& part = out.part;
  part.model = localModel(whole, out.body, owned_count, out.joint);
  part.owned_bodies = static_cast<Index>(owned_count);
  part.first_body = first_body;
  part.ghost_bodies = partition ? partition->renumber(ghosts) : ghosts;
  long joints = static_cast<long>(out.joint.size()), below = 0;
  MPI_Exscan(&joints, &below, 1, MPI_LONG, MPI_SUM, PETSC_COMM_WORLD);
  part.first_joint = rank == 0 ? 0 : static_cast<Index>(below);  // Exscan leaves rank 0 undefined
  part.global_bodies = n;
  part.global_joints = static_cast<Index>(whole.joints.size());
  if (reproducible) part.halo = haloPart(whole, graph, first_body, first_body + part.owned_bodies);
  return out;
}

}  // namespace catena
