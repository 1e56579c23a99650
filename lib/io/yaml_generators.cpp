/// @file yaml_generators.cpp
/// The loader's `generator:` section (yaml_elements.hpp): the generators' options with their
/// defaults (model/generators.hpp, four_bar_lattice.hpp), checked before anything is built.

#include <climits>
#include <cmath>
#include <string>

#include "io/memory_estimate.hpp"
#include "io/yaml_elements.hpp"
#include "model/generators.hpp"

namespace catena::io {
namespace {

/// Fails if a generator would build more bodies than the limit. Called before anything is
/// allocated, so that a tiny file cannot ask for an enormous model.
void checkGeneratedSize(const Context& cx, const Map& g, std::string_view key, long long bodies,
                        const std::string& description) {
  noteModelSize(bodies);  // for the message if the process runs out of memory
  if (bodies > cx.limits.max_generated_bodies)
    g.fail(key, description + " exceed the loader's limit of " +
                    std::to_string(cx.limits.max_generated_bodies) + " generated bodies");
}

/// A generator of `type` that builds models of dimension `dim` fails in a file of the other one.
void requireDimension(const Context& cx, const Map& g, const std::string& type, int dim) {
  if (cx.dim() != dim)
    g.fail("type", type + (dim == 3 ? " builds a spatial" : " builds a planar") +
                       " model; it needs dimension: " + std::to_string(dim));
}

/// The two ends and the sag point of a hanging chain (catenary_chain, node_chain).
template <typename Options>
void readHangingEnds(const Map& g, Options& o) {
  o.end_a = g.vector("end_a", o.end_a);
  o.end_b = g.vector("end_b", o.end_b);
  o.sag_point = g.vector("sag_point", o.sag_point);
}

void readCatenaryChain(Context& cx, const Map& g) {
  g.allowKeys({"type", "links", "end_a", "end_b", "sag_point", "mass_per_length", "radius"});
  requireDimension(cx, g, "catenary_chain", 3);
  CatenaryChainOptions o;
  o.links = static_cast<int>(g.integer("links", 1, INT_MAX, o.links));
  checkGeneratedSize(cx, g, "links", o.links, std::to_string(o.links) + " links");
  readHangingEnds(g, o);
  o.mass_per_length = g.number("mass_per_length", o.mass_per_length);
  o.radius = g.number("radius", o.radius);
  build(cx, g.mark(), [&] { addCatenaryChain(cx.builder, o); });
}

void readNodeChain(Context& cx, const Map& g) {
  g.allowKeys(
      {"type", "nodes_per_leg", "end_a", "end_b", "sag_point", "node_mass", "node_inertia"});
  requireDimension(cx, g, "node_chain", 3);
  NodeChainOptions o;
  o.nodes_per_leg = static_cast<int>(g.integer("nodes_per_leg", 1, INT_MAX, o.nodes_per_leg));
  checkGeneratedSize(cx, g, "nodes_per_leg", 2LL * o.nodes_per_leg + 3,
                     std::to_string(2LL * o.nodes_per_leg + 3) + " nodes");
  readHangingEnds(g, o);
  o.node_mass = g.number("node_mass", o.node_mass);
  o.node_inertia = g.number("node_inertia", o.node_inertia);
  build(cx, g.mark(), [&] { addNodeChain(cx.builder, o); });
}

void readFourBarLattice(Context& cx, const Map& g) {
  g.allowKeys({"type", "levels", "cells", "merged_couplers", "cell_width", "crank_length",
               "crank_angle", "crank_angle_deg", "crank_rate", "mass_per_length", "level_angles",
               "level_angles_deg", "level_rates"});
  FourBarLatticeOptions o;
  o.levels = static_cast<int>(g.integer("levels", 1, INT_MAX, o.levels));
  o.cells = static_cast<int>(g.integer("cells", 1, INT_MAX, o.cells));
  o.merged_couplers = g.boolean("merged_couplers", o.merged_couplers);
  // Per level: K + 1 cranks and K couplers (one if merged). Both factors are below 2^33, so
  // the product cannot overflow unless one of them alone is over the limit.
  const long long limit = cx.limits.max_generated_bodies;
  const long long per_level = o.merged_couplers ? o.cells + 2LL : 2LL * o.cells + 1;
  const long long bodies = o.levels > limit || per_level > limit ? LLONG_MAX : o.levels * per_level;
  checkGeneratedSize(
      cx, g, "cells", bodies,
      std::to_string(o.levels) + " levels of " + std::to_string(per_level) + " bodies each");
  o.cell_width = g.number("cell_width", o.cell_width);
  o.crank_length = g.number("crank_length", o.crank_length);
  o.crank_angle = g.angle("crank_angle", o.crank_angle);
  o.crank_rate = g.number("crank_rate", o.crank_rate);
  o.mass_per_length = g.number("mass_per_length", o.mass_per_length);
  g.exclusive("level_angles", "level_angles_deg");
  for (const char* key : {"level_angles", "level_angles_deg", "level_rates"}) {
    if (!g.has(key)) continue;
    const VecX v = g.numbers(key, o.levels);
    std::vector<double>& out = std::string(key) == "level_rates" ? o.level_rates : o.level_angles;
    const double scale = std::string(key) == "level_angles_deg" ? M_PI / 180.0 : 1.0;
    for (Index l = 0; l < v.size(); ++l) out.push_back(scale * v(l));
  }
  build(cx, g.mark(), [&] { addFourBarLattice(cx.builder, o); });
}

}  // namespace

void readGenerator(Context& cx, const YAML::Node& node, const YAML::Mark& at) {
  Map g(cx.reader, node, "generator", "", at);
  const std::string type = g.string("type");
  if (type == "catenary_chain") return readCatenaryChain(cx, g);
  if (type == "four_bar_lattice") return readFourBarLattice(cx, g);
  if (type == "node_chain") return readNodeChain(cx, g);
  g.fail("type", "unknown generator type " + quote(type) +
                     "; valid types: catenary_chain, node_chain, four_bar_lattice");
}

}  // namespace catena::io
