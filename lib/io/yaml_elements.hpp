#pragma once
/// @file yaml_elements.hpp
/// The mechanism loader's readers of one element each (a body, a marker, a joint, a force, the
/// generator, gravity), shared by the whole-file loader (yaml_loader.cpp) and the element by
/// element one (element_loader.hpp). Each checks its node, builds through ModelBuilder, and
/// throws InputError at the node (Reader::fail). Private to catena_io (it includes yaml-cpp).

#include <cstddef>

#include "io/yaml_loader.hpp"
#include "io/yaml_reader.hpp"
#include "model/model_builder.hpp"

namespace catena::io {

/// Everything one load needs: where messages point, what is being built, how big it may get.
struct Context {
  Reader& reader;
  ModelBuilder& builder;
  const LoaderLimits& limits;
  int dim() const { return reader.dimension; }
};

/// Runs one ModelBuilder (or generator) call for the element at `mark`. The builder validates
/// the element; its catena::Error becomes an InputError there, and its warnings get the position.
template <typename F>
void build(Context& cx, const YAML::Mark& mark, F&& add) {
  const std::size_t before = cx.builder.peek().warnings.size();
  try {
    add();
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    cx.reader.fail(mark, e.what());
  }
  const auto& warnings = cx.builder.peek().warnings;
  for (std::size_t i = before; i < warnings.size(); ++i) cx.reader.warn(mark, warnings[i]);
}

/// "dimension must be 2 (planar) or 3 (spatial), got <dim>": the top level's dimension check.
std::string dimensionError(long long dim);

/// Item `index` of bodies:, markers:, joints:, forces: (the index names an unnamed element).
void readBody(Context& cx, const YAML::Node& node, std::size_t index);
void readMarker(Context& cx, const YAML::Node& node, std::size_t index);
void readJoint(Context& cx, const YAML::Node& node, std::size_t index);
void readForce(Context& cx, const YAML::Node& node, std::size_t index);
/// The generator: mapping (yaml_generators.cpp); `at` where a node without a mark points.
void readGenerator(Context& cx, const YAML::Node& node, const YAML::Mark& at);
/// gravity: [x, y, z] (m/s^2; z = 0 in 2D).
void readGravity(Context& cx, const YAML::Node& node, const YAML::Mark& at);

}  // namespace catena::io
