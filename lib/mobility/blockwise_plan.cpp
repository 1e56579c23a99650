#include "mobility/blockwise_plan.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>

#include "core/check.hpp"

namespace catena::blockwise {
namespace {

std::pair<Index, Index> jointBodies(const Model& model, Index j) {
  const Joint& J = model.joints[j];
  return {model.markerBody(J.marker1), model.markerBody(J.marker2)};
}

}  // namespace

Plan buildPlan(const Model& model, const BlockTree& tree) {
  Plan P;
  const Index nb = static_cast<Index>(model.bodies.size());
  P.nv = model.nv_body;
  P.nblocks = static_cast<Index>(tree.blocks.size());
  P.nnodes = tree.nodes();
  CATENA_CHECK(P.nblocks > 0 || nb == 0, "a block tree needs at least one block");
  const Index N = P.nnodes;
  P.leaf_of.assign(nb, -1);
  P.local_of.assign(nb, -1);
  for (Index blk = 0; blk < P.nblocks; ++blk) {
    CATENA_CHECK(!tree.blocks[blk].empty(), "block " << blk << " of the tree has no bodies");
    Index local = 0;
    for (Index b : tree.blocks[blk]) {
      CATENA_CHECK(b >= 0 && b < nb,
                   "block " << blk << " lists body " << b << ", the model has " << nb << " bodies");
      CATENA_CHECK(P.leaf_of[b] < 0,
                   "body " << b << " is in blocks " << P.leaf_of[b] << " and " << blk);
      P.leaf_of[b] = blk;
      P.local_of[b] = local++;
    }
  }
  for (Index b = 0; b < nb; ++b)
    CATENA_CHECK(P.leaf_of[b] >= 0,
                 "body " << b << " (" << model.bodies[b].name << ") is in no block of the tree");
  P.parent.assign(N, -1);
  P.position.assign(N, 0);
  P.height.assign(N, 0);
  for (std::size_t j = 0; j < tree.merges.size(); ++j) {
    const Index node = P.nblocks + static_cast<Index>(j);
    CATENA_CHECK(!tree.merges[j].empty(), "merge " << j << " of the tree has no children");
    for (std::size_t c = 0; c < tree.merges[j].size(); ++c) {
      const Index child = tree.merges[j][c];
      CATENA_CHECK(child >= 0 && child < node,
                   "merge " << j << " lists node " << child << ": children come before parents");
      CATENA_CHECK(P.parent[child] < 0, "node " << child << " has two parents");
      P.parent[child] = node;
      P.position[child] = static_cast<Index>(c);
      P.height[node] = std::max(P.height[node], P.height[child] + 1);
    }
  }
  for (Index v = 0; v + 1 < N; ++v)
    CATENA_CHECK(P.parent[v] >= 0, "node " << v << " is not joined to the root of the tree");
  P.depth.assign(N, 0);
  for (Index v = N - 2; v >= 0; --v) P.depth[v] = P.depth[P.parent[v]] + 1;
  const Index H = N > 0 ? P.height[N - 1] : 0;
  P.by_height.assign(H, {});
  for (Index v = P.nblocks; v < N; ++v) P.by_height[P.height[v] - 1].push_back(v);

  // Classify the joints: internal to a block, or joined at a step of a merge (the lowest
  // common ancestor of the two blocks, at the position of the later of the two children).
  const Index nj = static_cast<Index>(model.joints.size());
  std::vector<Index> leaf_count(P.nblocks + 1, 0);
  std::vector<Index> joint_node(nj, -1), joint_step(nj, 0);
  P.step_start.assign(tree.merges.size() + 1, 0);
  for (std::size_t j = 0; j < tree.merges.size(); ++j)
    P.step_start[j + 1] = P.step_start[j] + static_cast<Index>(tree.merges[j].size()) - 1;
  std::vector<Index> step_count(P.step_start.back() + 1, 0);
  P.release_node.assign(nb, -1);
  P.release_step.assign(nb, 0);
  auto later = [&](Index node, Index step, Index b) {
    return P.release_node[b] < 0 || P.depth[node] < P.depth[P.release_node[b]] ||
           (node == P.release_node[b] && step > P.release_step[b]);
  };
  for (Index j = 0; j < nj; ++j) {
    const Index rows = model.joint_row_offset[j + 1] - model.joint_row_offset[j];
    if (rows == 0) continue;
    const auto [b1, b2] = jointBodies(model, j);
    if (b1 == kGround && b2 == kGround) continue;
    const Index l1 = b1 == kGround ? -1 : P.leaf_of[b1], l2 = b2 == kGround ? -1 : P.leaf_of[b2];
    if (l1 < 0 || l2 < 0 || l1 == l2) {
      joint_node[j] = l1 >= 0 ? l1 : l2;
      leaf_count[joint_node[j] + 1] += rows;
      continue;
    }
    Index u = l1, v = l2;
    while (P.depth[u] > P.depth[v]) u = P.parent[u];
    while (P.depth[v] > P.depth[u]) v = P.parent[v];
    while (P.parent[u] != P.parent[v]) {
      u = P.parent[u];
      v = P.parent[v];
    }
    const Index node = P.parent[u], step = std::max(P.position[u], P.position[v]);
    joint_node[j] = node;
    joint_step[j] = step;
    step_count[P.step_start[node - P.nblocks] + step - 1 + 1] += rows;
    for (Index b : {b1, b2})
      if (later(node, step, b)) {
        P.release_node[b] = node;
        P.release_step[b] = step;
      }
  }
  P.leaf_row_start.assign(P.nblocks + 1, 0);
  std::partial_sum(leaf_count.begin() + 1, leaf_count.end(), P.leaf_row_start.begin() + 1);
  P.step_row_start.assign(step_count.size(), 0);
  std::partial_sum(step_count.begin() + 1, step_count.end(), P.step_row_start.begin() + 1);
  P.leaf_rows.resize(P.leaf_row_start.back());
  P.step_rows.resize(P.step_row_start.back());
  std::vector<Index> leaf_fill(P.leaf_row_start.begin(), P.leaf_row_start.end() - 1);
  std::vector<Index> step_fill(P.step_row_start.begin(), P.step_row_start.end() - 1);
  for (Index j = 0; j < nj; ++j) {
    if (joint_node[j] < 0) continue;
    for (Index row = model.joint_row_offset[j]; row < model.joint_row_offset[j + 1]; ++row) {
      if (joint_node[j] < P.nblocks)
        P.leaf_rows[leaf_fill[joint_node[j]]++] = row;
      else
        P.step_rows[step_fill[P.step_start[joint_node[j] - P.nblocks] + joint_step[j] - 1]++] = row;
    }
  }

  // Dry run of the boundaries: each node's final boundary and the workspace sizes. A basis has
  // at most as many columns as boundary coordinates (it is compressed when it has more).
  P.boundary.assign(N, {});
  P.work.assign(N, 0.0);
  const std::size_t nv = P.nv;
  for (Index blk = 0; blk < P.nblocks; ++blk) {
    for (Index b : tree.blocks[blk])
      if (P.release_node[b] >= 0) P.boundary[blk].push_back(b);
    const std::size_t nbk = tree.blocks[blk].size() * nv;
    const std::size_t rows = P.leaf_row_start[blk + 1] - P.leaf_row_start[blk];
    const std::size_t nbd = P.boundary[blk].size() * nv;
    P.max_x = std::max(P.max_x, nbk * rows);
    P.max_w = std::max(P.max_w, nbd * nbk);
    P.max_y = std::max(P.max_y, nbd * nbk);
    P.max_cols = std::max(P.max_cols, std::max(rows, nbk));
    P.work[blk] = double(nbk) * double(rows) * double(std::min(nbk, rows) + nbd);
    P.max_boundary = std::max(P.max_boundary, P.boundary[blk].size());
  }
  std::vector<Index> acc, next;
  for (std::size_t j = 0; j < tree.merges.size(); ++j) {
    const Index node = P.nblocks + static_cast<Index>(j);
    const std::vector<Index>& ch = tree.merges[j];
    acc = P.boundary[ch[0]];
    for (std::size_t s = 1; s < ch.size(); ++s) {
      const std::size_t k = (acc.size() + P.boundary[ch[s]].size()) * nv;  // bound on columns
      const Index g = P.step_start[j] + static_cast<Index>(s) - 1;
      const std::size_t rows = P.step_row_start[g + 1] - P.step_row_start[g];
      next.clear();
      for (const std::vector<Index>* part : {&acc, &P.boundary[ch[s]]})
        for (Index b : *part)
          if (stillBoundary(P, b, node, static_cast<Index>(s))) next.push_back(b);
      const std::size_t nbd = next.size() * nv;
      P.max_x = std::max(P.max_x, k * rows);
      P.max_w = std::max(P.max_w, nbd * k);
      P.max_y = std::max(P.max_y, nbd * k);
      P.max_cols = std::max(P.max_cols, std::max(rows, k));
      P.max_t = std::max(P.max_t, std::min(rows, k) * std::min(rows, k));
      P.max_s = std::max(P.max_s, std::min(rows, k) * k);
      P.max_boundary = std::max(P.max_boundary, next.size());
      P.work[node] += double(k) * double(rows) * double(std::min(k, rows)) + double(nbd) * k * k;
      acc.swap(next);
    }
    P.boundary[node] = acc;
  }
  // The kernels index a factorization's buffers with Index (32 bits).
  const std::size_t largest = std::max({P.max_x, P.max_w, P.max_y, P.max_cols * kChunk});
  CATENA_CHECK(largest < static_cast<std::size_t>(std::numeric_limits<Index>::max()),
               "block-wise rank: a factorization of this tree needs "
                   << largest
                   << " entries, beyond the 32-bit index range; use smaller blocks or "
                      "a tree with smaller boundaries");
  return P;
}

}  // namespace catena::blockwise
