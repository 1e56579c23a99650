#include "io/element_loader.hpp"

#include <map>

#include "io/yaml_elements.hpp"

namespace catena {

struct ElementLoader::Impl {
  io::Reader reader{""};
  LoaderLimits limits;
  ModelBuilder builder;
  io::Context cx{reader, builder, limits};
  std::map<std::string, std::size_t> added;  // per kind: the index that names an unnamed one
  bool spent = false;

  Impl(int dimension, std::string name) : builder(dimension, std::move(name)) {
    reader.dimension = dimension;
  }
};

ElementLoader::ElementLoader(int dimension, std::string name, const std::string& where) {
  if (dimension != 2 && dimension != 3)
    throw InputError(
        where, 0, 0,
        "dimension must be 2 (planar) or 3 (spatial), got " + std::to_string(dimension));
  impl_ = std::make_unique<Impl>(dimension, std::move(name));
}

ElementLoader::~ElementLoader() = default;

int ElementLoader::dimension() const {
  return impl_->reader.dimension;
}

void ElementLoader::add(const std::string& kind, const std::string& where,
                        const std::string& text) {
  Impl& d = *impl_;
  if (d.spent) throw Error(where + ": the mechanism was already built (build() ends a builder)");
  d.reader.setSource(where, false);
  const YAML::Node node = io::parseSingleDocument(d.reader, text);
  const YAML::Mark at = node.Mark();
  try {
    if (kind == "gravity") return io::readGravity(d.cx, node, at);
    if (kind == "generator") return io::readGenerator(d.cx, node, at);
    const std::size_t index = d.added[kind]++;
    if (kind == "body") return io::readBody(d.cx, node, index);
    if (kind == "marker") return io::readMarker(d.cx, node, index);
    if (kind == "joint") return io::readJoint(d.cx, node, index);
    if (kind == "force") return io::readForce(d.cx, node, index);
  } catch (const YAML::Exception& e) {
    d.reader.fail(e.mark, std::string("the element could not be read: ") + e.msg);
  }
  throw Error("ElementLoader::add: unknown kind '" + kind + "'");
}

LoadedInput ElementLoader::finalize() {
  Impl& d = *impl_;
  if (d.spent) throw Error("the mechanism was already built (build() ends a builder)");
  d.spent = true;
  LoadedInput input;
  input.model = d.builder.finalize();
  input.warnings = std::move(d.reader.warnings());
  return input;
}

}  // namespace catena
