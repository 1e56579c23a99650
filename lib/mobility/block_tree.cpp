#include "mobility/block_tree.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

#include "core/check.hpp"

namespace catena {

namespace {

std::pair<Index, Index> jointBodies(const Model& model, Index j) {
  const Joint& J = model.joints[j];
  return {model.markerBody(J.marker1), model.markerBody(J.marker2)};
}

/// Builds a tree from nodes made in any order (leaves and merges interleaved), renumbering
/// leaves first.
class TreeBuilder {
 public:
  Index leaf(std::vector<Index> bodies) {
    leaves_.push_back(std::move(bodies));
    kind_.push_back({true, static_cast<Index>(leaves_.size()) - 1});
    return static_cast<Index>(kind_.size()) - 1;
  }
  Index merge(std::vector<Index> children) {
    if (children.size() == 1) return children[0];
    merges_.push_back(std::move(children));
    kind_.push_back({false, static_cast<Index>(merges_.size()) - 1});
    return static_cast<Index>(kind_.size()) - 1;
  }
  BlockTree finish(std::string description) {
    BlockTree t;
    const Index nl = static_cast<Index>(leaves_.size());
    auto id = [&](Index v) { return kind_[v].first ? kind_[v].second : nl + kind_[v].second; };
    t.blocks = std::move(leaves_);
    t.merges = std::move(merges_);
    for (std::vector<Index>& ch : t.merges)
      for (Index& c : ch) c = id(c);
    t.description = std::move(description);
    return t;
  }

 private:
  std::vector<std::vector<Index>> leaves_, merges_;
  std::vector<std::pair<bool, Index>> kind_;
};

}  // namespace

BlockTree blockTreeForFourBarLattice(const FourBarLatticeOptions& o, int block_cells) {
  CATENA_CHECK(o.levels >= 1 && o.cells >= 1, "a four-bar lattice needs L, K >= 1");
  CATENA_CHECK(block_cells >= 1, "block_cells must be >= 1, got " << block_cells);
  const Index L = o.levels, K = o.cells, c = block_cells;
  TreeBuilder tb;
  if (!o.merged_couplers) {
    // Body order of addFourBarLattice: per level K + 1 cranks, then K couplers.
    const Index per = 2 * K + 1;
    const Index PL = (L + c - 1) / c, PK = (K + c - 1) / c;
    std::vector<Index> patch(PL * PK);
    for (Index pl = 0; pl < PL; ++pl)
      for (Index pk = 0; pk < PK; ++pk) {
        std::vector<Index> bodies;
        for (Index l = pl * c; l < std::min(L, (pl + 1) * c); ++l)
          for (Index k = pk * c; k < std::min(K, (pk + 1) * c); ++k) {
            bodies.push_back(l * per + k);
            if (k == K - 1) bodies.push_back(l * per + K);
            bodies.push_back(l * per + K + 1 + k);
          }
        std::sort(bodies.begin(), bodies.end());
        patch[pl * PK + pk] = tb.leaf(std::move(bodies));
      }
    // Nested dissection of the grid of patches: halve the side with more cells.
    auto build = [&](auto&& self, Index l0, Index l1, Index k0, Index k1) -> Index {
      if (l1 - l0 == 1 && k1 - k0 == 1) return patch[l0 * PK + k0];
      const Index levels = std::min(L, l1 * c) - l0 * c, cells = std::min(K, k1 * c) - k0 * c;
      if (k1 - k0 == 1 || (l1 - l0 > 1 && levels > cells)) {
        const Index mid = (l0 + l1) / 2;
        return tb.merge({self(self, l0, mid, k0, k1), self(self, mid, l1, k0, k1)});
      }
      const Index mid = (k0 + k1) / 2;
      return tb.merge({self(self, l0, l1, k0, mid), self(self, l0, l1, mid, k1)});
    };
    build(build, 0, PL, 0, PK);
    return tb.finish("four-bar lattice " + std::to_string(L) + " x " + std::to_string(K) +
                     " (unmerged): blocks of " + std::to_string(c) + " x " + std::to_string(c) +
                     " cells, nested dissection");
  }
  // Merged: per level K + 1 cranks, then the coupler.
  const Index per = K + 2, runs = (K + 1 + c - 1) / c;
  auto crank = [&](Index l, Index j) { return l * per + j; };
  std::vector<Index> head(L);
  std::vector<std::vector<Index>> run(L);
  for (Index l = 0; l < L; ++l) {
    std::vector<Index> bodies;
    for (Index j = 0; j < std::min(K + 1, c); ++j) bodies.push_back(crank(l, j));
    bodies.push_back(l * per + K + 1);
    head[l] = tb.leaf(std::move(bodies));
    for (Index r = 1; r < runs; ++r) {
      std::vector<Index> bodies2;
      for (Index j = r * c; j < std::min(K + 1, (r + 1) * c); ++j) bodies2.push_back(crank(l, j));
      run[l].push_back(tb.leaf(std::move(bodies2)));
    }
  }
  auto build = [&](auto&& self, Index a, Index b) -> Index {
    if (b - a == 1) {
      if (a > 0) return head[a];  // level a's other cranks join with the level below
      std::vector<Index> ch{head[0]};
      ch.insert(ch.end(), run[0].begin(), run[0].end());
      return tb.merge(std::move(ch));
    }
    const Index mid = (a + b) / 2;
    std::vector<Index> ch{self(self, a, mid), self(self, mid, b)};
    ch.insert(ch.end(), run[mid].begin(), run[mid].end());
    return tb.merge(std::move(ch));
  };
  build(build, 0, L);
  return tb.finish("four-bar lattice " + std::to_string(L) + " x " + std::to_string(K) +
                   " (merged): a block per level (coupler + " + std::to_string(c) +
                   " cranks) and blocks of " + std::to_string(c) +
                   " cranks, levels joined by halving");
}

BlockTree blockTreeForChain(Index links, Index block_links) {
  CATENA_CHECK(
      links >= 1 && block_links >= 1,
      "a chain tree needs links >= 1 and block_links >= 1, got " << links << ", " << block_links);
  TreeBuilder tb;
  const Index nseg = (links + block_links - 1) / block_links;
  std::vector<Index> seg(nseg);
  for (Index s = 0; s < nseg; ++s) {
    std::vector<Index> bodies;
    for (Index i = s * block_links; i < std::min(links, (s + 1) * block_links); ++i)
      bodies.push_back(i);
    seg[s] = tb.leaf(std::move(bodies));
  }
  auto build = [&](auto&& self, Index a, Index b) -> Index {
    if (b - a == 1) return seg[a];
    const Index mid = (a + b) / 2;
    return tb.merge({self(self, a, mid), self(self, mid, b)});
  };
  build(build, 0, nseg);
  return tb.finish("chain of " + std::to_string(links) + " links: segments of " +
                   std::to_string(block_links) + ", joined by halving");
}

BlockTree blockTreeByBisection(const Model& model, Index max_block_bodies) {
  CATENA_CHECK(max_block_bodies >= 1, "max_block_bodies must be >= 1");
  const Index nb = static_cast<Index>(model.bodies.size());
  // Body-joint graph, CSR.
  std::vector<Index> start(nb + 1, 0), adj;
  for (Index j = 0; j < static_cast<Index>(model.joints.size()); ++j) {
    const auto [b1, b2] = jointBodies(model, j);
    if (b1 >= 0 && b2 >= 0 && b1 != b2) {
      ++start[b1 + 1];
      ++start[b2 + 1];
    }
  }
  std::partial_sum(start.begin(), start.end(), start.begin());
  adj.resize(start.back());
  std::vector<Index> fill(start.begin(), start.end() - 1);
  for (Index j = 0; j < static_cast<Index>(model.joints.size()); ++j) {
    const auto [b1, b2] = jointBodies(model, j);
    if (b1 >= 0 && b2 >= 0 && b1 != b2) {
      adj[fill[b1]++] = b2;
      adj[fill[b2]++] = b1;
    }
  }
  std::vector<Index> stamp(nb, -1), seen(nb, -1);
  Index stamp_id = 0, seen_id = 0;
  // Breadth-first order of the part's bodies reachable from `from`.
  auto bfs = [&](Index from, std::vector<Index>& order) {
    ++seen_id;
    order.clear();
    order.push_back(from);
    seen[from] = seen_id;
    for (std::size_t h = 0; h < order.size(); ++h)
      for (Index e = start[order[h]]; e < start[order[h] + 1]; ++e) {
        const Index v = adj[e];
        if (stamp[v] == stamp_id && seen[v] != seen_id) {
          seen[v] = seen_id;
          order.push_back(v);
        }
      }
  };
  TreeBuilder tb;
  std::vector<Index> order;
  auto split = [&](auto&& self, std::vector<Index> part) -> Index {
    if (static_cast<Index>(part.size()) <= max_block_bodies) {
      std::sort(part.begin(), part.end());
      return tb.leaf(std::move(part));
    }
    ++stamp_id;
    for (Index b : part) stamp[b] = stamp_id;
    const Index pass = seen_id + 1;  // bodies reached in this call have seen[] >= pass
    bfs(part[0], order);
    std::vector<Index> first, second;
    if (order.size() < part.size()) {
      // Disconnected: whole components, in order of discovery, until half of the bodies.
      first = order;
      std::vector<Index> comp;
      std::size_t last = 0;
      for (Index b : part) {
        if (seen[b] >= pass) continue;
        bfs(b, comp);
        std::vector<Index>& to = first.size() < part.size() / 2 ? first : second;
        to.insert(to.end(), comp.begin(), comp.end());
        last = comp.size();
      }
      if (second.empty()) {  // the last component goes to the other side
        second.assign(first.end() - last, first.end());
        first.resize(first.size() - last);
      }
    } else {
      // Connected: a second sweep from the last body reached (pseudo-peripheral), then halves.
      const Index far = order.back();
      bfs(far, order);
      first.assign(order.begin(), order.begin() + order.size() / 2);
      second.assign(order.begin() + order.size() / 2, order.end());
    }
    const Index a = self(self, std::move(first));
    const Index b = self(self, std::move(second));
    return tb.merge({a, b});
  };
  if (nb > 0) {
    std::vector<Index> all(nb);
    std::iota(all.begin(), all.end(), 0);
    split(split, std::move(all));
  }
  return tb.finish("bisection of the body-joint graph, blocks of at most " +
                   std::to_string(max_block_bodies) + " bodies");
}

BlockTree blockTreeForModel(const Model& model) {
  const Index nb = static_cast<Index>(model.bodies.size());
  auto name = [&](Index b) -> const std::string& { return model.bodies[b].name; };
  // Four-bar lattice: crank_0_0 .. crank_0_K, then coupler_0 or coupler_0_0 .. coupler_0_{K-1}.
  if (model.dimension == 2 && nb >= 3 && name(0) == "crank_0_0") {
    Index k1 = 0;
    while (k1 < nb && name(k1) == "crank_0_" + std::to_string(k1)) ++k1;
    const Index K = k1 - 1;
    if (K >= 1 && k1 < nb && (name(k1) == "coupler_0" || name(k1) == "coupler_0_0")) {
      const bool merged = name(k1) == "coupler_0";
      const Index per = merged ? K + 2 : 2 * K + 1;
      bool ok = nb % per == 0;
      for (Index l = 0; ok && l < nb / per; ++l) {
        const std::string lv = std::to_string(l);
        for (Index j = 0; ok && j <= K; ++j)
          ok = name(l * per + j) == "crank_" + lv + "_" + std::to_string(j);
        if (merged)
          ok = ok && name(l * per + K + 1) == "coupler_" + lv;
        else
          for (Index k = 0; ok && k < K; ++k)
            ok = name(l * per + K + 1 + k) == "coupler_" + lv + "_" + std::to_string(k);
      }
      if (ok) {
        FourBarLatticeOptions o;
        o.levels = static_cast<int>(nb / per);
        o.cells = static_cast<int>(K);
        o.merged_couplers = merged;
        return blockTreeForFourBarLattice(o, merged ? 8 : 2);
      }
    }
  }
  // Catenary chain: link_0 .. link_{N-1}.
  if (nb >= 2 && name(0) == "link_0") {
    bool ok = true;
    for (Index b = 0; ok && b < nb; ++b) ok = name(b) == "link_" + std::to_string(b);
    if (ok) return blockTreeForChain(nb, 4);
  }
  return blockTreeByBisection(model, 8);
}

}  // namespace catena
