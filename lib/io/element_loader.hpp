#pragma once
/// @file element_loader.hpp
/// A mechanism built element by element, each element given as the text of its YAML (or JSON)
/// mapping in the input format (docs/input-format.md), read by the loader's own readers
/// (yaml_elements.hpp): the same checks and sentences as a file. What the Python module's
/// catena.Builder calls. Each call names the element's source (`where`, e.g.
/// "Builder.add_joint('hinge')"), which messages carry in place of FILE:LINE:COL:
/// "<where>: error: <the loader's sentence>" (InputError, line 0).

#include <memory>
#include <string>

#include "io/yaml_loader.hpp"

namespace catena {

class ElementLoader {
 public:
  /// dimension 2 or 3, else InputError "<where>: error: top level: dimension must be ...".
  ElementLoader(int dimension, std::string name, const std::string& where = "dimension");
  ~ElementLoader();
  ElementLoader(const ElementLoader&) = delete;
  ElementLoader& operator=(const ElementLoader&) = delete;

  int dimension() const;
  /// `kind`: gravity (a sequence), generator, body, marker, joint or force (a mapping: one item
  /// of the file's section). Throws InputError for a bad element. An element that fails after
  /// adding part of itself (a generator's name clash) spends the loader: ModelBuilder can not
  /// take elements back. A spent loader throws catena::Error naming why.
  void add(const std::string& kind, const std::string& where, const std::string& text);
  /// The model (ModelBuilder::finalize) and the warnings ("<where>: warning: ..."); spends the
  /// loader.
  LoadedInput finalize(const std::string& where = "finalize");

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace catena
