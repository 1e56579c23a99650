#include "io/element_loader.hpp"

#include <map>

#include "io/yaml_elements.hpp"

namespace catena {

struct ElementLoader::Impl {
  io::Reader reader{""};
  LoaderLimits limits;
  ModelBuilder builder;
  io::Context cx{reader, builder, limits};
  std::map<std::string, std::size_t> added;  // per kind: names an unnamed item "body #3"
  std::string spent;                         // why further calls fail; empty: they do not

  Impl(int dimension, std::string name) : builder(dimension, std::move(name)) {
    reader.dimension = dimension;
  }

  std::size_t elements() const {
    const Model& m = builder.peek();
    return m.bodies.size() + m.markers.size() + m.joints.size() + m.loads.size() +
           m.springs.size() + m.rotational_springs.size();
  }

  void requireUnspent(const std::string& where) const {
    if (!spent.empty()) throw Error(where + ": " + spent + "; start a new one");
  }

  void read(const std::string& kind, const YAML::Node& node) {
    const YAML::Mark at = node.Mark();
    if (kind == "gravity") return io::readGravity(cx, node, at);
    if (kind == "generator") return io::readGenerator(cx, node, at);
    const std::size_t index = added[kind];  // of the elements of this kind added so far
    if (kind == "body")
      io::readBody(cx, node, index);
    else if (kind == "marker")
      io::readMarker(cx, node, index);
    else if (kind == "joint")
      io::readJoint(cx, node, index);
    else if (kind == "force")
      io::readForce(cx, node, index);
    else
      throw Error("ElementLoader::add: unknown kind '" + kind + "'");
    ++added[kind];
  }
};

ElementLoader::ElementLoader(int dimension, std::string name, const std::string& where) {
  if (dimension != 2 && dimension != 3)
    throw InputError(where, 0, 0, "top level: " + io::dimensionError(dimension));
  impl_ = std::make_unique<Impl>(dimension, std::move(name));
}

ElementLoader::~ElementLoader() = default;

int ElementLoader::dimension() const {
  return impl_->reader.dimension;
}

void ElementLoader::add(const std::string& kind, const std::string& where,
                        const std::string& text) {
  Impl& d = *impl_;
  d.requireUnspent(where);
  d.reader.setSource(where, false);
  const std::size_t before = d.elements();
  try {
    try {
      d.read(kind, io::parseSingleDocument(d.reader, text));
    } catch (const YAML::Exception& e) {
      d.reader.fail(e.mark, std::string("the element could not be read: ") + e.msg);
    }
  } catch (const Error&) {
    if (d.elements() != before)
      d.spent = "an earlier call, " + where + ", failed after adding part of the mechanism";
    throw;
  }
}

LoadedInput ElementLoader::finalize(const std::string& where) {
  Impl& d = *impl_;
  d.requireUnspent(where);
  d.spent = "this builder has built its model already";
  LoadedInput input;
  input.model = d.builder.finalize();
  input.warnings = std::move(d.reader.warnings());
  return input;
}

}  // namespace catena
