#pragma once
/// @file element_loader.hpp
/// A mechanism built element by element, each element given as the text of its YAML (or JSON)
/// mapping in the input format (docs/input-format.md), with the loader's checks and sentences:
/// what the Python module's catena.Builder calls. Each call names the element's source
/// (`where`, e.g. "Builder.add_joint('hinge')"), which messages carry in place of
/// FILE:LINE:COL: "<where>: error: <the loader's sentence>" (InputError, line 0).

#include <memory>
#include <string>
#include <vector>

#include "io/yaml_loader.hpp"

namespace catena {

class ElementLoader {
 public:
  /// dimension 2 or 3 (else InputError from `where`); name: the model's name.
  ElementLoader(int dimension, std::string name, const std::string& where = "dimension");
  ~ElementLoader();
  ElementLoader(const ElementLoader&) = delete;
  ElementLoader& operator=(const ElementLoader&) = delete;

  int dimension() const;
  /// `kind`: gravity (a sequence), generator, body, marker, joint, force (a mapping each, the
  /// form of one item of the file's section). Throws InputError for a bad element, catena::Error
  /// after finalize().
  void add(const std::string& kind, const std::string& where, const std::string& text);
  /// The model (the loader's finalize); the loader is spent afterwards. Warnings as the loader
  /// keeps them ("<where>: warning: ...").
  LoadedInput finalize();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace catena
