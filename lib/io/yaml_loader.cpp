#include "io/yaml_loader.hpp"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>
#include <vector>

#include "io/yaml_elements.hpp"
#include "io/yaml_reader.hpp"
#include "model/model_builder.hpp"

namespace catena {

InputError::InputError(std::string file, int line, int column, const std::string& message)
    : Error(file + (line > 0 ? ":" + std::to_string(line) + ":" + std::to_string(column) : "") +
            ": error: " + message),
      file_(std::move(file)),
      line_(line),
      column_(column) {}

namespace io {
namespace {

Quat planarRotation(double angle) {
  return Quat(Eigen::AngleAxisd(angle, Vec3::UnitZ()));
}

// ---------------------------------------------------------------------------------------------
// Time functions

/// Degrees to radians for a time function: its values and rates scale, its times do not.
TimeFunction scaled(TimeFunction f, double s) {
  f.a *= s;
  f.b *= s;
  for (double& c : f.coeff) c *= s;
  return f;
}

TimeFunction readTimeFunction(const Reader& r, const YAML::Node& node, const std::string& element,
                              const std::string& path, const YAML::Mark& at) {
  if (node.IsScalar()) return TimeFunction::constant(r.number(node, element + ": " + path, at));
  if (!node.IsMap())
    r.fail(io::markOr(node, at), element + ": " + path +
                                     " must be a number or a time function {type: constant | "
                                     "ramp | sine | polynomial | pulse, ...}, got " +
                                     io::describe(node));
  const Map f(r, node, element, path + ".", at);
  const std::string type = f.string("type");
  if (type == "constant") {
    f.allowKeys({"type", "value"});
    return TimeFunction::constant(f.number("value"));
  }
  if (type == "ramp") {
    f.allowKeys({"type", "initial", "slope", "start"});
    return TimeFunction::ramp(f.number("initial", 0.0), f.number("slope"), f.number("start", 0.0));
  }
  if (type == "sine") {
    f.allowKeys({"type", "offset", "amplitude", "frequency", "phase"});
    return TimeFunction::sine(f.number("offset", 0.0), f.number("amplitude"), f.number("frequency"),
                              f.number("phase", 0.0));
  }
  if (type == "polynomial") {
    f.allowKeys({"type", "coefficients"});
    const YAML::Node& c = f.require("coefficients");
    const std::size_t n = c.IsSequence() ? c.size() : 0;
    if (n < 1 || n > TimeFunction::kMaxCoefficients)
      f.fail("coefficients", f.path("coefficients") + " must be a sequence of 1 to " +
                                 std::to_string(TimeFunction::kMaxCoefficients) + " numbers, got " +
                                 io::describe(c));
    const VecX coefficients = f.numbers("coefficients", static_cast<int>(n));
    return TimeFunction::polynomial(coefficients.data(), static_cast<int>(n));
  }
  if (type == "pulse") {
    f.allowKeys({"type", "value", "start", "end"});
    const double start = f.number("start", 0.0), end = f.number("end");
    if (!(end > start))
      f.fail("end", f.path("end") + " must be later than start (" + std::to_string(start) +
                        " s), got " + std::to_string(end) + " s");
    return TimeFunction::pulse(f.number("value"), start, end);
  }
  f.fail("type", "unknown time function type " + io::quote(type) + " in " + path +
                     "; valid types: constant, ramp, sine, polynomial, pulse");
}

/// The time function under `key` of m, or `fallback` if absent.
TimeFunction timeFunction(const Map& m, std::string_view key, const TimeFunction& fallback) {
  const YAML::Node* node = m.find(key);
  if (!node) return fallback;
  return readTimeFunction(m.reader(), *node, m.element(), m.path(key), m.markOf(key));
}

// ---------------------------------------------------------------------------------------------
// Shared pieces of bodies, markers, joints and forces

/// Orientation of a body or marker. 3D: `orientation: {quaternion: [w, x, y, z]}` or
/// `{axis: [x, y, z], angle | angle_deg}`. 2D: `orientation: {angle | angle_deg}` or the
/// shorthand `angle` / `angle_deg` on the element itself.
Quat readOrientation(const Map& m, int dim) {
  if (dim == 2) {
    m.exclusive("orientation", "angle");
    m.exclusive("orientation", "angle_deg");
    if (!m.has("orientation")) return planarRotation(m.angle("angle", 0.0));
  }
  if (!m.has("orientation")) return Quat::Identity();
  const Map o = m.map("orientation");
  o.allowKeys({"angle", "angle_deg"}, {"quaternion", "axis"});
  if (dim == 2) return planarRotation(o.angle("angle", 0.0));
  const bool has_angle = o.has("angle") || o.has("angle_deg");
  if (o.has("quaternion")) {
    if (o.has("axis") || has_angle)
      o.fail("quaternion", "give either orientation.quaternion or orientation.axis with an angle");
    const VecX q = o.numbers("quaternion", 4);
    return Quat(q[0], q[1], q[2], q[3]);  // (w, x, y, z); the builder normalizes with a warning
  }
  if (!o.has("axis") && !has_angle) return Quat::Identity();
  if (!o.has("axis")) o.fail("angle", "orientation.angle needs orientation.axis");
  if (!has_angle) o.fail("axis", "orientation.axis needs orientation.angle or angle_deg");
  const Vec3 axis = o.vector("axis", 3, Vec3::Zero());
  if (!(axis.norm() > 0.0)) o.fail("axis", "orientation.axis must not be zero");
  return Quat(Eigen::AngleAxisd(o.angle("angle", 0.0), axis.normalized()));
}

/// 3D: [Ixx, Iyy, Izz], [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] or the 3x3 matrix. 2D: the scalar Izz.
Mat3 readInertia(const Map& m, int dim) {
  Mat3 inertia = Mat3::Zero();
  if (dim == 2) {
    inertia(2, 2) = m.number("inertia");
    return inertia;
  }
  const YAML::Node& node = m.require("inertia");
  const std::size_t n = node.IsSequence() ? node.size() : 0;
  const bool matrix = n == 3 && node.begin()->IsSequence();
  if (!matrix && n != 3 && n != 6)
    m.fail("inertia", m.path("inertia") +
                          " must be [Ixx, Iyy, Izz], [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] or a 3x3 "
                          "matrix, got " +
                          io::describe(node));
  if (matrix) {
    int i = 0;
    for (const YAML::Node& row : node) {
      const std::string what = m.what("inertia") + "[" + std::to_string(i) + "]";
      inertia.row(i++) = m.reader().vector(row, 3, what, node.Mark()).transpose();
    }
    return inertia;  // the builder checks symmetry
  }
  const VecX v = m.numbers("inertia", static_cast<int>(n));
  inertia.diagonal() = v.head<3>();
  if (n == 6) {
    inertia(0, 1) = inertia(1, 0) = v[3];
    inertia(0, 2) = inertia(2, 0) = v[4];
    inertia(1, 2) = inertia(2, 1) = v[5];
  }
  return inertia;
}

/// A scalar in 2D (about z), a vector in 3D: angular velocity, torque.
Vec3 readRotational(const Map& m, std::string_view key, int dim) {
  if (dim == 3) return m.vector(key, Vec3::Zero());
  return Vec3(0.0, 0.0, m.number(key, 0.0));
}

Index markerIndex(const Context& cx, const Map& m, std::string_view key) {
  const std::string name = m.string(key);
  const Index index = cx.builder.findMarker(name);
  if (index < 0)
    m.fail(key, std::string(key) + " " + io::quote(name) +
                    " does not exist (markers are defined under markers: or by the generator)");
  return index;
}

// ---------------------------------------------------------------------------------------------
// Sections

/// `fixed: [x, rz]`: coordinates the assembly of the initial state must keep.
std::uint8_t readFixedCoordinates(Context& cx, const Map& m) {
  static const char* names3[] = {"x", "y", "z", "rx", "ry", "rz"};
  static const char* names2[] = {"x", "y", "theta"};
  const int count = cx.dim() == 3 ? 6 : 3;
  std::uint8_t bits = 0;
  const YAML::Node* node = m.find("fixed");
  if (!node) return bits;
  io::forEachItem(
      cx.reader, *node, m.what("fixed"), m.markOf("fixed"),
      [&](const YAML::Node& item, std::size_t) {
        const std::string name = cx.reader.string(item, m.what("fixed"), m.markOf("fixed"));
        int k = 0;
        while (k < count && name != (cx.dim() == 3 ? names3[k] : names2[k])) ++k;
        if (k == count)
          cx.reader.fail(
              io::markOr(item, m.markOf("fixed")),
              m.what("fixed") + ": unknown coordinate " + io::quote(name) +
                  (cx.dim() == 3 ? "; valid: x, y, z, rx, ry, rz" : "; valid: x, y, theta"));
        bits |= static_cast<std::uint8_t>(1u << k);
      });
  return bits;
}

}  // namespace

void readBody(Context& cx, const YAML::Node& node, std::size_t index) {
  Map m(cx.reader, node, io::elementLabel("body", node, index), "", node.Mark());
  m.allowKeys({"name", "mass", "inertia", "com", "position", "orientation", "velocity",
               "angular_velocity", "fixed"},
              {}, {"angle", "angle_deg"});
  Body body;
  body.name = m.string("name");
  body.mass = m.number("mass");
  body.inertia = readInertia(m, cx.dim());
  body.com = m.vector("com");
  body.position = m.vector("position");
  body.orientation = readOrientation(m, cx.dim());
  body.velocity = m.vector("velocity");
  body.angular_velocity = readRotational(m, "angular_velocity", cx.dim());
  body.fixed = readFixedCoordinates(cx, m);
  build(cx, m.mark(), [&] { cx.builder.addBody(std::move(body)); });
}

void readMarker(Context& cx, const YAML::Node& node, std::size_t index) {
  Map m(cx.reader, node, io::elementLabel("marker", node, index), "", node.Mark());
  m.allowKeys({"name", "body", "position", "orientation"}, {}, {"angle", "angle_deg"});
  Marker marker;
  marker.name = m.string("name");
  const std::string body = m.string("body");
  marker.body = cx.builder.findBody(body);
  if (marker.body == -2)
    m.fail("body", "body " + io::quote(body) +
                       " does not exist (bodies are defined under bodies: or by the generator)");
  marker.position = m.vector("position");
  marker.orientation = readOrientation(m, cx.dim());
  build(cx, m.mark(), [&] { cx.builder.addMarker(std::move(marker)); });
}

namespace {

JointType readJointType(const Context& cx, const Map& m) {
  const std::string name = m.string("type");
  const auto type = jointTypeFromName(name);
  // A type of the other dimension is as unknown here as a misspelt one.
  if (!type || !defaultMask(*type, cx.dim()))
    m.fail("type", "unknown joint type " + io::quote(name) + " in " + std::to_string(cx.dim()) +
                       "D; valid types: " + jointTypeNames(cx.dim()));
  return *type;
}

RowMask readMask(const Context& cx, const Map& m) {
  const YAML::Node& node = m.require("mask");
  const int rows = cx.dim() == 3 ? 6 : 3;
  if (!node.IsSequence() || node.size() != static_cast<std::size_t>(rows))
    m.fail("mask", m.path("mask") + " must be a sequence of " + std::to_string(rows) +
                       " entries 0 or 1 (" + (rows == 6 ? "x, y, z, Rx, Ry, Rz" : "x, y, theta") +
                       "), got " + io::describe(node));
  RowMask mask = 0;
  int i = 0;
  for (const YAML::Node& item : node) {
    const std::string what = m.what("mask") + "[" + std::to_string(i) + "]";
    if (cx.reader.integer(item, what, node.Mark(), 0, 1)) mask |= RowMask(1u << i);
    ++i;
  }
  return mask;
}

JointMotion readMotion(const Context& cx, const Map& joint) {
  const Map m = joint.map("motion");
  m.allowKeys({"angle", "angle_deg", "translation"}, {"axis"});
  JointMotion motion;
  motion.active = true;
  motion.axis = m.vector("axis", 3, Vec3::UnitX());  // the builder checks it is unit
  m.exclusive("angle", "angle_deg");
  motion.angle = timeFunction(m, "angle", TimeFunction::constant(0.0));
  if (m.has("angle_deg"))
    motion.angle = scaled(timeFunction(m, "angle_deg", {}), std::numbers::pi / 180.0);
  if (const YAML::Node* node = m.find("translation")) {
    const int n = cx.dim();
    if (!node->IsSequence() || node->size() != static_cast<std::size_t>(n))
      m.fail("translation", m.path("translation") + " must be a sequence of " + std::to_string(n) +
                                " time functions, got " + io::describe(*node));
    int i = 0;
    for (const YAML::Node& item : *node) {
      const std::string path = "motion.translation[" + std::to_string(i) + "]";
      motion.translation[i++] = readTimeFunction(cx.reader, item, m.element(), path, node->Mark());
    }
  }
  auto continuous = [&](const TimeFunction& f, std::string_view key) {
    if (f.kind == TimeFunction::Kind::kPulse)
      m.fail(key, m.path(key) +
                      ": a pulse jumps, and a prescribed motion must be continuous "
                      "(pulses are for loads)");
  };
  continuous(motion.angle, m.has("angle_deg") ? "angle_deg" : "angle");
  for (const TimeFunction& f : motion.translation) continuous(f, "translation");
  return motion;
}

}  // namespace

void readJoint(Context& cx, const YAML::Node& node, std::size_t index) {
  Map m(cx.reader, node, io::elementLabel("joint", node, index), "", node.Mark());
  m.allowKeys({"name", "type", "marker1", "marker2", "motion", "mask"}, {}, {"length"});
  Joint joint;
  joint.name = m.string("name");
  joint.type = readJointType(cx, m);
  const bool lock = joint.type == JointType::kLock, distance = joint.type == JointType::kDistance;
  if (m.has("mask") != lock)
    m.fail(lock ? "type" : "mask",
           lock ? "a lock joint needs a mask of active rows" : "mask is only valid for type lock");
  if (m.has("length") != distance)
    m.fail(distance ? "type" : "length",
           distance ? "a distance joint needs a length" : "length is only valid for type distance");
  joint.marker1 = markerIndex(cx, m, "marker1");
  joint.marker2 = markerIndex(cx, m, "marker2");
  if (lock) joint.mask = readMask(cx, m);
  if (distance) joint.length = timeFunction(m, "length", {});
  if (m.has("motion")) joint.motion = readMotion(cx, m);
  build(cx, m.mark(), [&] { cx.builder.addJoint(std::move(joint)); });
}

namespace {

void readLoad(Context& cx, Map& m) {
  m.nameElement("load");
  m.allowKeys({"name", "type", "marker", "force", "torque", "basis", "scale"});
  MarkerLoad load;
  load.name = m.string("name");
  load.marker = markerIndex(cx, m, "marker");
  load.force = m.vector("force");
  load.torque = readRotational(m, "torque", cx.dim());
  const std::string basis = m.string("basis", "world");
  if (basis != "world" && basis != "marker")
    m.fail("basis", "basis must be world or marker, got " + io::quote(basis));
  load.in_marker_basis = basis == "marker";
  load.scale = timeFunction(m, "scale", TimeFunction::constant(1.0));
  build(cx, m.mark(), [&] { cx.builder.addLoad(std::move(load)); });
}

/// What a spring and a rotational spring share: name, markers, stiffness, damping (default 0).
template <typename Spring>
void readSpringCommon(Context& cx, Map& m, Spring& spring) {
  spring.name = m.string("name");
  spring.marker1 = markerIndex(cx, m, "marker1");
  spring.marker2 = markerIndex(cx, m, "marker2");
  spring.stiffness = m.number("stiffness");
  spring.damping = m.number("damping", 0.0);
}

void readSpring(Context& cx, Map& m) {
  m.nameElement("spring");
  m.allowKeys(
      {"name", "type", "marker1", "marker2", "stiffness", "damping", "rest_length", "preload"});
  SpringDamper spring;
  readSpringCommon(cx, m, spring);
  spring.rest_length = m.number("rest_length", 0.0);
  spring.preload = m.number("preload", 0.0);
  build(cx, m.mark(), [&] { cx.builder.addSpring(std::move(spring)); });
}

void readRotationalSpring(Context& cx, Map& m) {
  m.nameElement("rotational spring");
  m.allowKeys({"name", "type", "marker1", "marker2", "stiffness", "damping"}, {},
              {"rest_angle", "rest_angle_deg"});
  RotationalSpringDamper spring;
  readSpringCommon(cx, m, spring);
  spring.rest_angle = m.angle("rest_angle", 0.0);
  build(cx, m.mark(), [&] { cx.builder.addRotationalSpring(std::move(spring)); });
}

}  // namespace

void readForce(Context& cx, const YAML::Node& node, std::size_t index) {
  Map m(cx.reader, node, io::elementLabel("force", node, index), "", node.Mark());
  const std::string type = m.string("type");
  if (type == "load") return readLoad(cx, m);
  if (type == "spring") return readSpring(cx, m);
  if (type == "rotational_spring") return readRotationalSpring(cx, m);
  m.fail("type", "unknown force type " + io::quote(type) +
                     "; valid types: load, spring, rotational_spring");
}

std::string dimensionError(long long dim) {
  return "dimension must be 2 (planar) or 3 (spatial), got " + std::to_string(dim);
}

void readGravity(Context& cx, const YAML::Node& node, const YAML::Mark& at) {
  const Vec3 g = cx.reader.vector(node, cx.dim(), "top level: gravity", at);
  build(cx, at, [&] { cx.builder.setGravity(g); });
}

namespace {

RunOptions readAnalysis(const Reader& reader, const Map& top) {
  RunOptions options;
  const YAML::Node& node = top.require("analysis");
  if (node.IsNull()) return options;
  const Map a(reader, node, "analysis", "", top.markOf("analysis"));
  a.allowKeys({"type"});
  options.analysis = a.string("type", options.analysis);
  const std::string& t = options.analysis;
  if (t != "check" && t != "statics" && t != "modal" && t != "simulate")
    a.fail("type", "unknown analysis type " + io::quote(t) +
                       "; valid types: check, statics, modal, simulate");
  return options;
}

template <typename F>
void readList(Context& cx, const Map& top, std::string_view key, F&& read) {
  if (const YAML::Node* node = top.find(key))
    io::forEachItem(cx.reader, *node, std::string(key), top.markOf(key),
                    [&](const YAML::Node& item, std::size_t i) { read(cx, item, i); });
}

int readDimension(const Map& top) {
  const long long dim = top.integer("dimension", LLONG_MIN, LLONG_MAX, 3);
  if (dim != 2 && dim != 3) top.fail("dimension", dimensionError(dim));
  return static_cast<int>(dim);
}

constexpr const char* kTopKeysHint = "dimension, bodies, markers, joints";

/// The single document of the text, which must be a non-empty mapping.
YAML::Node parseDocument(const Reader& reader, const std::string& text) {
  YAML::Node root = io::parseSingleDocument(reader, text);
  if (!root.IsDefined() || root.IsNull())
    reader.fail(YAML::Mark(), "the file is empty; expected a mapping with keys such as " +
                                  std::string(kTopKeysHint));
  if (!root.IsMap())
    reader.fail(root.Mark(), "the top level must be a mapping with keys such as " +
                                 std::string(kTopKeysHint) + "; got " + io::describe(root));
  return root;
}

LoadedInput loadTree(Reader& reader, const YAML::Node& root, const std::string& default_name,
                     const LoaderLimits& limits) {
  const Map top(reader, root, "top level");
  if (top.has("formulation"))
    top.fail("formulation",
             "'formulation:' selects another input format (formulation: natural, "
             "docs/natural-coordinates.md), which `catena simulate` reads; this command reads "
             "the mixed-basis format (docs/input-format.md), which has no 'formulation' key");
  top.allowKeys({"name", "dimension", "gravity", "generator", "bodies", "markers", "joints",
                 "forces", "analysis"});
  reader.dimension = readDimension(top);
  ModelBuilder builder(reader.dimension, top.string("name", default_name));
  Context cx{reader, builder, limits};

  if (top.has("gravity")) readGravity(cx, top.require("gravity"), top.markOf("gravity"));
  if (top.has("generator")) readGenerator(cx, top.require("generator"), top.markOf("generator"));
  readList(cx, top, "bodies", readBody);
  readList(cx, top, "markers", readMarker);
  readList(cx, top, "joints", readJoint);
  readList(cx, top, "forces", readForce);

  LoadedInput input;
  if (top.has("analysis")) input.options = readAnalysis(reader, top);
  input.model = builder.finalize();
  input.warnings = std::move(reader.warnings());
  return input;
}

/// "inputs/pendulum.yaml" -> "pendulum"; a source name without a stem is used as it is.
std::string defaultName(const std::string& source_name) {
  const std::string stem = std::filesystem::path(source_name).stem().string();
  if (!stem.empty()) return stem;
  return source_name.empty() ? "mechanism" : source_name;
}

}  // namespace
}  // namespace io

using io::defaultName;
using io::loadTree;
using io::parseDocument;
using io::Reader;

LoadedInput loadMechanismString(const std::string& text, const std::string& source_name,
                                const LoaderLimits& limits) {
  Reader reader(source_name);
  const YAML::Node root = parseDocument(reader, text);
  try {
    return loadTree(reader, root, defaultName(source_name), limits);
  } catch (const YAML::Exception& e) {
    // Node access in yaml-cpp can throw (e.g. on an invalid node); keep the position it gives.
    reader.fail(e.mark, std::string("the YAML tree could not be read: ") + e.msg);
  }
}

void requireBodies(const Model& model, const std::string& file) {
  if (model.bodies.empty())
    throw InputError(file, 0, 0, "the mechanism has no bodies: nothing to analyse");
}

LoadedInput loadMechanismFile(const std::string& path, const LoaderLimits& limits) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec) throw InputError(path, 0, 0, "cannot open the file: " + ec.message());
  if (std::filesystem::is_directory(status))
    throw InputError(path, 0, 0, "is a directory, not a mechanism file");
  errno = 0;
  std::ifstream file(path, std::ios::binary);
  if (!file)
    throw InputError(path, 0, 0,
                     std::string("cannot open the file for reading: ") +
                         (errno ? std::strerror(errno) : "unknown reason"));
  // Read in chunks up to the limit: a device such as /dev/zero never ends.
  std::string text;
  std::vector<char> chunk(1 << 16);
  while (file) {
    file.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const std::size_t got = static_cast<std::size_t>(file.gcount());
    if (text.size() + got > limits.max_input_bytes) {
      throw InputError(path, 0, 0,
                       "the input is larger than " + std::to_string(limits.max_input_bytes) +
                           " bytes (the limit; set CATENA_MAX_INPUT_BYTES to raise it)");
    }
    text.append(chunk.data(), got);
  }
  if (file.bad())
    throw InputError(
        path, 0, 0,
        std::string("cannot read the file: ") + (errno ? std::strerror(errno) : "unknown reason"));
  return loadMechanismString(text, path, limits);
}

std::size_t defaultMaxInputBytes() {
  constexpr std::size_t kDefault = std::size_t{256} << 20;
  const char* env = std::getenv("CATENA_MAX_INPUT_BYTES");
  if (!env || !*env) return kDefault;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(env, &end, 10);
  if (errno || *end || v == 0 || env[0] == '-')
    throw Error(std::string("CATENA_MAX_INPUT_BYTES must be a positive integer (bytes), got '") +
                env + "'");
  return static_cast<std::size_t>(v);
}

}  // namespace catena
