#include "parallel/model_partition.hpp"

#include <mpi.h>
#include <petscsys.h>

#include <algorithm>
#include <unordered_map>

#include "core/check.hpp"
#include "model/model_builder.hpp"
#include "parallel/graph_partition.hpp"

namespace catena {
namespace {

/// The joints of the whole model by holding body, and each body's neighbours through joints.
struct JointGraph {
  std::vector<std::vector<Index>> held, neighbours;
  explicit JointGraph(const Model& m) : held(m.bodies.size()), neighbours(m.bodies.size()) {
    for (Index j = 0; j < static_cast<Index>(m.joints.size()); ++j) {
      const Index holder = holdingBody(m, j);
      CATENA_CHECK(holder != kGround,
                   "joint '" << m.joints[j].name << "' joins the ground to the ground");
      held[holder].push_back(j);
      const Index a = m.markerBody(m.joints[j].marker1), b = m.markerBody(m.joints[j].marker2);
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

}  // namespace

PartitionedModel partitionModel(const Model& whole, const std::string& prefix) {
  CATENA_CHECK(whole.springs.empty() && whole.rotational_springs.empty(),
               "model '" << whole.name << "': distributed models do not take spring-dampers yet "
                         << "(docs/parallel.md)");
  CATENA_CHECK(!whole.bodies.empty(), "model '" << whole.name << "' has no bodies to distribute");
  const JointGraph graph(whole);
  const Index n = static_cast<Index>(whole.bodies.size());
  const GraphPartition partition(
      n, [&](Index b) { return graph.neighbours[b]; },
      [&](Index b) {
        int rows = 0;
        for (Index j : graph.held[b])
          rows += whole.joint_row_offset[j + 1] - whole.joint_row_offset[j];
        return whole.nv_body + rows;
      },
      prefix);

  PartitionedModel out;
  out.partitioner = partition.method();
  out.body = partition.owned();
  // Every rank throws, or none: a rank left waiting in a collective call would hang the run.
  int empty = out.body.empty() ? 1 : 0, any_empty = 0, ranks = 1;
  MPI_Allreduce(&empty, &any_empty, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD);
  MPI_Comm_size(PETSC_COMM_WORLD, &ranks);
  CATENA_CHECK(!any_empty, "model '" << whole.name << "': the partition of its " << n
                                     << " bodies over " << ranks
                                     << " ranks leaves a rank without a body; run it on fewer "
                                        "ranks");
  std::vector<char> owned(n, 0);
  for (Index b : out.body) owned[b] = 1;
  std::vector<Index> ghosts;
  for (Index b : out.body)
    for (Index j : graph.held[b]) {
      out.joint.push_back(j);
      for (Index k : {whole.joints[j].marker1, whole.joints[j].marker2}) {
        const Index other = whole.markerBody(k);
        if (other != kGround && !owned[other]) ghosts.push_back(other);
      }
    }
  std::sort(ghosts.begin(), ghosts.end());
  ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
  out.body.insert(out.body.end(), ghosts.begin(), ghosts.end());

  // The local model: bodies with all their markers, the ground markers of the joints, the
  // joints, the loads on owned bodies.
  ModelBuilder builder(whole.dimension, whole.name);
  builder.setGravity(whole.gravity);
  std::unordered_map<Index, Index> local_body, local_marker;
  for (Index b : out.body) local_body.emplace(b, builder.addBody(whole.bodies[b]));
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
  for (Index j : out.joint) {
    Joint joint = whole.joints[j];
    joint.marker1 = markerOf(joint.marker1);
    joint.marker2 = markerOf(joint.marker2);
    builder.addJoint(joint);
  }
  const Index owned_count = static_cast<Index>(out.body.size() - ghosts.size());
  for (const MarkerLoad& l : whole.loads) {
    const Index b = whole.markerBody(l.marker);
    if (b == kGround || !owned[b]) continue;
    MarkerLoad load = l;
    load.marker = markerOf(l.marker);
    builder.addLoad(load);
  }

  ModelPart& part = out.part;
  part.model = builder.finalize();
  part.owned_bodies = owned_count;
  part.first_body = partition.first();
  part.ghost_bodies = partition.renumber(ghosts);
  long joints = static_cast<long>(out.joint.size()), below = 0;
  MPI_Exscan(&joints, &below, 1, MPI_LONG, MPI_SUM, PETSC_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  part.first_joint = rank == 0 ? 0 : static_cast<Index>(below);  // Exscan leaves rank 0 undefined
  part.global_bodies = n;
  part.global_joints = static_cast<Index>(whole.joints.size());
  return out;
}

}  // namespace catena
