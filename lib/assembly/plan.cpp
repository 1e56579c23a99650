#include "assembly/plan.hpp"

#include <algorithm>

namespace catena {
namespace {

/// Elements per colour, listed tile by tile, and where each tile starts in that list.
struct Colouring {
  std::vector<std::vector<Index>> elements;
  std::vector<std::vector<Index>> tile_start;
};

/// Greedy colouring of tiles, runs of `tile` consecutive elements given by their two bodies: a
/// tile gets the smallest colour used at none of its bodies. Deterministic (element order); the
/// ground does not conflict. With tile = 1 this colours the elements themselves.
Colouring colour(const std::vector<std::pair<Index, Index>>& elements, std::size_t body_count,
                 std::size_t tile) {
  std::vector<std::vector<int>> used(body_count);
  auto has = [&](Index b, int c) {
    return b >= 0 && std::find(used[b].begin(), used[b].end(), c) != used[b].end();
  };
  Colouring out;
  for (std::size_t first = 0; first < elements.size(); first += tile) {
    const std::size_t last = std::min(elements.size(), first + tile);
    auto taken = [&](int c) {
      for (std::size_t e = first; e < last; ++e)
        if (has(elements[e].first, c) || has(elements[e].second, c)) return true;
      return false;
    };
    int c = 0;
    while (taken(c)) ++c;
    if (c >= static_cast<int>(out.elements.size())) {
      out.elements.resize(c + 1);
      out.tile_start.resize(c + 1, std::vector<Index>{0});
    }
    for (std::size_t e = first; e < last; ++e) {
      out.elements[c].push_back(static_cast<Index>(e));
      for (Index b : {elements[e].first, elements[e].second})
        if (b >= 0 && !has(b, c)) used[b].push_back(c);
    }
    out.tile_start[c].push_back(static_cast<Index>(out.elements[c].size()));
  }
  return out;
}

/// AssemblyPlan::body_nonzero. Diagonal blocks and blocks coupled by a two-body force are full.
/// A 3D joint's K_c has, off the diagonal, only the blocks K(dr1, th2), K(th1, th2),
/// K(th2, dr1) and K(th2, th1) (LockStiffnessBlocks3): body 1's rows by body 2's rotation
/// columns, and body 2's rotation rows by body 1's columns. 2D joints keep full blocks.
template <typename SlotOf>
void markBodyNonzeros(const Model& model, const std::vector<std::pair<Index, Index>>& joint_pairs,
                      const std::vector<std::pair<Index, Index>>& force_pairs,
                      const SlotOf& blockSlot, AssemblyPlan& plan) {
  const int nvb = model.nv_body;
  plan.body_nonzero.assign(plan.body_pattern.nonZeros(), 0);
  auto mark = [&](Index bi, Index bj, int row0, int col0) {
    const BlockSlot s = blockSlot(bi, bj);
    if (s.base < 0) return;
    for (int a = row0; a < nvb; ++a)
      for (int c = col0; c < nvb; ++c) plan.body_nonzero[s.base + a * s.stride + c] = 1;
  };
  for (Index b = 0; b < static_cast<Index>(model.bodies.size()); ++b) mark(b, b, 0, 0);
  for (auto [b1, b2] : force_pairs) {
    mark(b1, b2, 0, 0);
    mark(b2, b1, 0, 0);
  }
  const int rotation = model.dimension == 3 ? 3 : 0;  // first rotation DOF of a 3D body
  for (auto [b1, b2] : joint_pairs) {
    mark(b1, b2, 0, rotation);
    mark(b2, b1, rotation, 0);
  }
}

}  // namespace

AssemblyPlan buildAssemblyPlan(const Model& model, bool joints_in_order) {
  AssemblyPlan plan;
  plan.markers.reserve(model.markers.size());
  for (const Marker& m : model.markers) plan.markers.push_back(markerFrame(m));
  const int nvb = model.nv_body;
  const Index nb = static_cast<Index>(model.bodies.size());

  // Body-coupling graph: diagonal blocks plus every joint and two-body force.
  std::vector<std::pair<Index, Index>> joint_pairs, force_pairs;
  for (const Joint& j : model.joints)
    joint_pairs.emplace_back(model.markerBody(j.marker1), model.markerBody(j.marker2));
  for (const SpringDamper& s : model.springs)
    force_pairs.emplace_back(model.markerBody(s.marker1), model.markerBody(s.marker2));
  for (const RotationalSpringDamper& s : model.rotational_springs)
    force_pairs.emplace_back(model.markerBody(s.marker1), model.markerBody(s.marker2));

  std::vector<std::vector<Index>> neighbours(nb);
  for (Index b = 0; b < nb; ++b) neighbours[b].push_back(b);
  auto couple = [&](Index a, Index c) {
    if (a < 0 || c < 0) return;
    neighbours[a].push_back(c);
    neighbours[c].push_back(a);
  };
  for (auto [a, c] : joint_pairs) couple(a, c);
  for (auto [a, c] : force_pairs) couple(a, c);
  for (auto& n : neighbours) {
    std::sort(n.begin(), n.end());
    n.erase(std::unique(n.begin(), n.end()), n.end());
  }

  // Body pattern in CSR: block row b has neighbours[b].size() blocks of nvb columns per row.
  std::vector<int> row_start(nb + 1, 0);  // value index of the first entry of block row b
  for (Index b = 0; b < nb; ++b)
    row_start[b + 1] = row_start[b] + nvb * nvb * static_cast<int>(neighbours[b].size());
  {
    const int n = static_cast<int>(model.nv);
    SparseMatrixCSR& P = plan.body_pattern;
    P.resize(n, n);
    P.resizeNonZeros(row_start[nb]);
    int* outer = P.outerIndexPtr();
    int* inner = P.innerIndexPtr();
    for (Index b = 0; b < nb; ++b) {
      const int len = nvb * static_cast<int>(neighbours[b].size());
      for (int a = 0; a < nvb; ++a) {
        const int row = static_cast<int>(b) * nvb + a;
        outer[row] = row_start[b] + a * len;
        int k = outer[row];
        for (Index c : neighbours[b])
          for (int j = 0; j < nvb; ++j) inner[k++] = static_cast<int>(c) * nvb + j;
      }
    }
    outer[n] = row_start[nb];
    std::fill(P.valuePtr(), P.valuePtr() + row_start[nb], 0.0);
  }
  auto blockSlot = [&](Index bi, Index bj) {
    BlockSlot s;
    if (bi < 0 || bj < 0) return s;
    const auto& n = neighbours[bi];
    const int pos = static_cast<int>(std::lower_bound(n.begin(), n.end(), bj) - n.begin());
    s.stride = nvb * static_cast<int>(n.size());
    s.base = row_start[bi] + pos * nvb;
    return s;
  };
  auto pairSlots = [&](Index b1, Index b2) {
    PairSlots p;
    p.body1 = b1;
    p.body2 = b2;
    p.block = {blockSlot(b1, b1), blockSlot(b1, b2), blockSlot(b2, b1), blockSlot(b2, b2)};
    return p;
  };
  plan.body_diagonal.resize(nb);
  for (Index b = 0; b < nb; ++b) plan.body_diagonal[b] = blockSlot(b, b);
  for (auto [a, c] : force_pairs) {
    if (plan.springs.size() < model.springs.size())
      plan.springs.push_back(pairSlots(a, c));
    else
      plan.rotational_springs.push_back(pairSlots(a, c));
  }

  // C_q pattern: each active row of joint j has body 1's and body 2's columns, sorted by body.
  {
    const int m = static_cast<int>(model.nc), n = static_cast<int>(model.nv);
    SparseMatrixCSR& P = plan.cq_pattern;
    P.resize(m, n);
    int nnz = 0;
    plan.joints.resize(model.joints.size());
    for (std::size_t j = 0; j < model.joints.size(); ++j) {
      const auto [b1, b2] = joint_pairs[j];
      const int per_row = nvb * ((b1 >= 0) + (b2 >= 0));
      nnz += per_row * static_cast<int>(model.joint_row_offset[j + 1] - model.joint_row_offset[j]);
    }
    P.resizeNonZeros(nnz);
    int* outer = P.outerIndexPtr();
    int* inner = P.innerIndexPtr();
    int k = 0;
    for (std::size_t j = 0; j < model.joints.size(); ++j) {
      const auto [b1, b2] = joint_pairs[j];
      JointSlots& js = plan.joints[j];
      js.pair = pairSlots(b1, b2);
      const Joint& joint = model.joints[j];
      js.marker1 = joint.marker1;
      js.marker2 = joint.marker2;
      js.row = model.joint_row_offset[j];
      js.mask = joint.mask;
      js.rheonomic = joint.motion.active;
      if (b1 >= 0 && b2 >= 0) {
        js.col_offset1 = b1 < b2 ? 0 : nvb;
        js.col_offset2 = b1 < b2 ? nvb : 0;
      } else {
        js.col_offset1 = b1 >= 0 ? 0 : -1;
        js.col_offset2 = b2 >= 0 ? 0 : -1;
      }
      const Index lo = std::min(b1 < 0 ? b2 : b1, b2 < 0 ? b1 : b2);
      const Index hi = std::max(b1, b2);
      for (Index row = model.joint_row_offset[j]; row < model.joint_row_offset[j + 1]; ++row) {
        outer[row] = k;
        for (int c = 0; c < nvb; ++c) inner[k++] = static_cast<int>(lo) * nvb + c;
        if (b1 >= 0 && b2 >= 0)
          for (int c = 0; c < nvb; ++c) inner[k++] = static_cast<int>(hi) * nvb + c;
      }
    }
    outer[m] = k;
    std::fill(P.valuePtr(), P.valuePtr() + nnz, 0.0);
  }

  // Tiles of up to 64 joints (at least 16 tiles when there are enough joints, for the threads).
  const std::size_t tile = joints_in_order
                               ? std::max<std::size_t>(model.joints.size(), 1)
                               : std::clamp<std::size_t>(model.joints.size() / 16, 1, 64);
  Colouring joint_colouring = colour(joint_pairs, nb, tile);
  plan.joint_colours = std::move(joint_colouring.elements);
  plan.joint_colour_tiles = std::move(joint_colouring.tile_start);
  plan.force_colours = colour(force_pairs, nb, 1).elements;

  // K_c refill without a zeroing pass: walk the joints in the order the refill sums them
  // (colours, then tiles, then joints in order; blocks 0..3 within a joint); the first writer of
  // a block stores it.
  std::vector<bool> written(static_cast<std::size_t>(row_start[nb]), false);
  for (const std::vector<Index>& colour : plan.joint_colours)
    for (Index j : colour) {
      JointSlots& js = plan.joints[j];
      for (int i = 0; i < 4; ++i) {
        const BlockSlot& s = js.pair.block[i];
        if (s.base < 0 || written[s.base]) continue;
        written[s.base] = true;
        js.kc_first |= static_cast<std::uint8_t>(1u << i);
      }
    }
  for (Index b = 0; b < nb; ++b)
    for (Index c : neighbours[b]) {
      const BlockSlot s = blockSlot(b, c);
      if (!written[s.base]) plan.kc_unwritten.push_back(s);
    }
  markBodyNonzeros(model, joint_pairs, force_pairs, blockSlot, plan);
  return plan;
}

}  // namespace catena
