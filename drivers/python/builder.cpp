/// @file builder.cpp
/// catena.Builder (docs/python.md, "Building a mechanism in Python"): a mechanism built call by
/// call over ModelBuilder, one keyword per key of the YAML format (docs/input-format.md), with
/// the YAML loader's checks (lib/io/yaml_loader.cpp, read by the same order) and sentences. A
/// message reads "Builder.add_joint('hinge'): error: <the loader's sentence>": the call stands
/// where the loader writes FILE:LINE:COL. A value of the wrong Python type or shape raises
/// TypeError or ValueError instead (where YAML has no types, the loader says "must be a number").

#include <pybind11/stl.h>

#include <climits>
#include <cmath>
#include <numbers>

#include "assembly/plan.hpp"
#include "bindings.hpp"
#include "io/yaml_loader.hpp"
#include "model/generators.hpp"
#include "model/model_builder.hpp"

namespace catena::python {
namespace {

using Keys = std::initializer_list<std::string_view>;

/// 'text' on one line, at most 40 characters (io::quote's rule, which names elements).
std::string quote(const std::string& text) {
  constexpr std::size_t kMaxQuoted = 40;
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < kMaxQuoted; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    out += c < 0x20 || c == 0x7f ? '?' : text[i];
  }
  if (text.size() > kMaxQuoted) out += "...";
  return out + "'";
}

/// What came, for "got ..." in messages.
std::string describe(const py::handle& value) {
  if (py::isinstance<py::str>(value)) return quote(value.cast<std::string>());
  if (py::isinstance<py::dict>(value)) return "a mapping";
  const std::string text = py::repr(value).cast<std::string>();
  return text.size() > 40 ? text.substr(0, 40) + "..." : text;
}

bool isSequence(const py::handle& value) {
  return !py::isinstance<py::str>(value) && !py::isinstance<py::bytes>(value) &&
         !py::isinstance<py::dict>(value) && PySequence_Check(value.ptr());
}

std::string join(Keys words) {
  std::string out;
  for (std::string_view w : words) out += (out.empty() ? "" : ", ") + std::string(w);
  return out;
}

bool contains(Keys keys, std::string_view key) {
  for (std::string_view k : keys)
    if (k == key) return true;
  return false;
}

/// One builder call: where its messages point ("Builder.add_body('bob')") and the dimension.
struct Call {
  std::string where;
  int dim = 3;

  /// InputError "<where>: error: <message>", as the loader's "FILE:LINE:COL: error: <message>".
  [[noreturn]] void fail(const std::string& message) const {
    throw InputError(where, 0, 0, message);
  }
  [[noreturn]] void typeError(const std::string& message) const {
    throw py::type_error(where + ": " + message);
  }
  [[noreturn]] void valueError(const std::string& message) const {
    throw py::value_error(where + ": " + message);
  }

  /// A finite float (an int or a NumPy scalar will do; not a bool, not a string).
  double number(const py::handle& value, const std::string& what) const {
    if (py::isinstance<py::bool_>(value) || py::isinstance<py::str>(value) || isSequence(value) ||
        py::isinstance<py::dict>(value) || value.is_none())
      typeError(what + " must be a number, got " + describe(value));
    double x = 0.0;
    try {
      x = value.cast<double>();
    } catch (const py::cast_error&) {
      typeError(what + " must be a number, got " + describe(value));
    }
    if (!std::isfinite(x)) valueError(what + " must be a finite number, got " + describe(value));
    return x;
  }

  long long integer(const py::handle& value, const std::string& what, long long lo,
                    long long hi) const {
    if (py::isinstance<py::bool_>(value) || !PyIndex_Check(value.ptr()))
      typeError(what + " must be an integer, got " + describe(value));
    const py::int_ i = py::reinterpret_steal<py::int_>(PyNumber_Index(value.ptr()));
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
    if (overflow)
      fail(what + " is out of the range of an integer: " + quote(py::repr(i).cast<std::string>()));
    if (v < lo || v > hi)
      fail(what + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
           ", got " + quote(std::to_string(v)));
    return v;
  }

  /// Exactly n finite numbers (a list, a tuple, a 1D NumPy array).
  VecX numbers(const py::handle& value, int n, const std::string& what) const {
    const std::string shape = std::to_string(n) + (n == 1 ? " number" : " numbers");
    if (!isSequence(value))
      typeError(what + " must be a sequence of " + shape + ", got " + describe(value));
    const py::sequence s = py::reinterpret_borrow<py::sequence>(value);
    if (s.size() != static_cast<std::size_t>(n))
      valueError(what + " must have " + shape + ", got " + std::to_string(s.size()));
    VecX v(n);
    for (int i = 0; i < n; ++i) v[i] = number(s[i], what + "[" + std::to_string(i) + "]");
    return v;
  }

  Vec3 vector(const py::handle& value, int n, const std::string& what) const {
    Vec3 v = Vec3::Zero();
    v.head(n) = numbers(value, n, what);
    return v;
  }
};

/// The given arguments of one call (those not None), or a dict inside one (orientation, motion,
/// a time function), read as the loader reads a mapping (io::Map): the element ("body 'bob'")
/// and the path ("orientation.") name each value in messages.
class Args {
 public:
  Args(const Call& call, std::string element, std::string path, py::dict values)
      : call_(&call), element_(std::move(element)), path_(std::move(path)), values_(values) {}
  /// Keyword arguments (**options) of a call; None means not given.
  Args(const Call& call, std::string element, const py::kwargs& options)
      : call_(&call), element_(std::move(element)) {
    for (const auto& [key, value] : options)
      if (!value.is_none()) values_[key] = value;
  }
  /// The keyword arguments of a call: (keyword, value) pairs, None meaning not given.
  Args(const Call& call, std::string element,
       std::initializer_list<std::pair<const char*, py::object>> given)
      : call_(&call), element_(std::move(element)) {
    for (const auto& [key, value] : given)
      if (!value.is_none()) values_[key] = value;
  }

  const Call& call() const { return *call_; }
  const std::string& element() const { return element_; }
  void rename(std::string element) { element_ = std::move(element); }
  std::string path(std::string_view key) const { return path_ + std::string(key); }
  std::string what(std::string_view key) const { return element_ + ": " + path(key); }
  [[noreturn]] void fail(const std::string& message) const {
    call_->fail(element_ + ": " + message);
  }

  bool has(std::string_view key) const { return values_.contains(py::str(std::string(key))); }
  py::object get(std::string_view key) const {
    if (!has(key)) fail("missing required key '" + std::string(key) + "'" + where());
    return values_[py::str(std::string(key))];
  }

  void allowKeys(Keys common, Keys only3d = {}, Keys only2d = {}) const {
    const bool planar = call_->dim == 2;
    const Keys& own = planar ? only2d : only3d;
    const Keys& other = planar ? only3d : only2d;
    for (const auto& item : values_) {
      if (!py::isinstance<py::str>(item.first))
        call_->typeError(element_ + ": keys must be strings, got " + describe(item.first));
      const std::string key = item.first.cast<std::string>();
      if (contains(common, key) || contains(own, key)) continue;
      if (contains(other, key))
        fail("key " + quote(key) + where() + " is only valid in " +
             (planar ? "3D models (dimension: 3)" : "2D models (dimension: 2)"));
      std::string allowed = join(common);
      if (own.size() > 0) allowed += ", " + join(own);
      fail("unknown key " + quote(key) + where() + "; allowed keys: " + allowed);
    }
  }
  void exclusive(std::string_view a, std::string_view b) const {
    if (has(a) && has(b)) fail("give either " + path(a) + " or " + path(b) + ", not both");
  }

  double number(std::string_view key) const { return call_->number(get(key), what(key)); }
  double number(std::string_view key, double fallback) const {
    return has(key) ? number(key) : fallback;
  }
  long long integer(std::string_view key, long long lo, long long hi, long long fallback) const {
    return has(key) ? call_->integer(get(key), what(key), lo, hi) : fallback;
  }
  bool boolean(std::string_view key, bool fallback) const {
    if (!has(key)) return fallback;
    const py::object value = get(key);
    if (!py::isinstance<py::bool_>(value))
      call_->typeError(what(key) + " must be true or false, got " + describe(value));
    return value.cast<bool>();
  }
  std::string string(std::string_view key) const {
    const py::object value = get(key);
    if (!py::isinstance<py::str>(value))
      call_->typeError(what(key) + " must be a string, got " + describe(value));
    return value.cast<std::string>();
  }
  std::string string(std::string_view key, const std::string& fallback) const {
    return has(key) ? string(key) : fallback;
  }
  /// `dimension` entries (the rest zero), or `fallback` if absent.
  Vec3 vector(std::string_view key, const Vec3& fallback = Vec3::Zero()) const {
    return vector(key, call_->dim, fallback);
  }
  Vec3 vector(std::string_view key, int n, const Vec3& fallback) const {
    return has(key) ? call_->vector(get(key), n, what(key)) : fallback;
  }
  VecX numbers(std::string_view key, int n) const { return call_->numbers(get(key), n, what(key)); }
  /// Radians from `key`, or degrees from `key`_deg (the loader's conversion), or `fallback`.
  double angle(std::string_view key, double fallback) const {
    const std::string deg = std::string(key) + "_deg";
    exclusive(key, deg);
    if (has(key)) return number(key);
    if (has(deg)) return number(deg) * std::numbers::pi / 180.0;
    return fallback;
  }
  /// The dict under `key` (required).
  Args map(std::string_view key) const {
    const py::object value = get(key);
    if (!py::isinstance<py::dict>(value))
      call_->typeError(what(key) + " must be a mapping (a dict), got " + describe(value));
    return Args(*call_, element_, path(key) + ".", py::reinterpret_borrow<py::dict>(value));
  }

 private:
  std::string where() const {
    return path_.empty() ? "" : " in " + path_.substr(0, path_.size() - 1);
  }
  const Call* call_;
  std::string element_, path_;
  py::dict values_;
};

// ---------------------------------------------------------------------------------------------
// The loader's readers, on Python values

Quat planarRotation(double angle) {
  return Quat(Eigen::AngleAxisd(angle, Vec3::UnitZ()));
}

TimeFunction scaled(TimeFunction f, double s) {
  f.a *= s;
  f.b *= s;
  for (double& c : f.coeff) c *= s;
  return f;
}

/// A number (constant) or a dict {"type": "constant" | "ramp" | "sine" | "polynomial" | "pulse",
/// ...} with the YAML's keys.
TimeFunction readTimeFunction(const Call& call, const py::handle& value, const std::string& element,
                              const std::string& path) {
  if (!py::isinstance<py::dict>(value)) {
    if (isSequence(value))
      call.typeError(element + ": " + path +
                     " must be a number or a time function {type: constant | ramp | sine | "
                     "polynomial | pulse, ...}, got " +
                     describe(value));
    return TimeFunction::constant(call.number(value, element + ": " + path));
  }
  const Args f(call, element, path + ".", py::reinterpret_borrow<py::dict>(value));
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
    const py::object c = f.get("coefficients");
    const std::size_t n = isSequence(c) ? py::len(c) : 0;
    if (n < 1 || n > TimeFunction::kMaxCoefficients)
      call.valueError(f.what("coefficients") + " must be a sequence of 1 to " +
                      std::to_string(TimeFunction::kMaxCoefficients) + " numbers, got " +
                      describe(c));
    const VecX coefficients = f.numbers("coefficients", static_cast<int>(n));
    return TimeFunction::polynomial(coefficients.data(), static_cast<int>(n));
  }
  if (type == "pulse") {
    f.allowKeys({"type", "value", "start", "end"});
    const double start = f.number("start", 0.0), end = f.number("end");
    if (!(end > start))
      f.fail(f.path("end") + " must be later than start (" + std::to_string(start) + " s), got " +
             std::to_string(end) + " s");
    return TimeFunction::pulse(f.number("value"), start, end);
  }
  f.fail("unknown time function type " + quote(type) + " in " + path +
         "; valid types: constant, ramp, sine, polynomial, pulse");
}

TimeFunction timeFunction(const Args& m, std::string_view key, const TimeFunction& fallback) {
  if (!m.has(key)) return fallback;
  return readTimeFunction(m.call(), m.get(key), m.element(), m.path(key));
}

/// 3D: orientation={"quaternion": [w, x, y, z]} or {"axis": [x, y, z], "angle" | "angle_deg"}.
/// 2D: orientation={"angle" | "angle_deg"} or angle= / angle_deg= on the call itself.
Quat readOrientation(const Args& m) {
  const int dim = m.call().dim;
  if (dim == 2) {
    m.exclusive("orientation", "angle");
    m.exclusive("orientation", "angle_deg");
    if (!m.has("orientation")) return planarRotation(m.angle("angle", 0.0));
  }
  if (!m.has("orientation")) return Quat::Identity();
  const Args o = m.map("orientation");
  o.allowKeys({"angle", "angle_deg"}, {"quaternion", "axis"});
  if (dim == 2) return planarRotation(o.angle("angle", 0.0));
  const bool has_angle = o.has("angle") || o.has("angle_deg");
  if (o.has("quaternion")) {
    if (o.has("axis") || has_angle)
      o.fail("give either orientation.quaternion or orientation.axis with an angle");
    const VecX q = o.numbers("quaternion", 4);
    return Quat(q[0], q[1], q[2], q[3]);  // (w, x, y, z); the builder normalizes with a warning
  }
  if (!o.has("axis") && !has_angle) return Quat::Identity();
  if (!o.has("axis")) o.fail("orientation.angle needs orientation.axis");
  if (!has_angle) o.fail("orientation.axis needs orientation.angle or angle_deg");
  const Vec3 axis = o.vector("axis", 3, Vec3::Zero());
  if (!(axis.norm() > 0.0)) o.fail("orientation.axis must not be zero");
  return Quat(Eigen::AngleAxisd(o.angle("angle", 0.0), axis.normalized()));
}

/// 3D: [Ixx, Iyy, Izz], [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] or a 3x3 matrix (nested lists or a
/// NumPy array). 2D: the scalar Izz.
Mat3 readInertia(const Args& m) {
  Mat3 inertia = Mat3::Zero();
  if (m.call().dim == 2) {
    inertia(2, 2) = m.number("inertia");
    return inertia;
  }
  const py::object value = m.get("inertia");
  const std::size_t n = isSequence(value) ? py::len(value) : 0;
  const bool matrix = n == 3 && isSequence(py::reinterpret_borrow<py::sequence>(value)[0]);
  if (!matrix && n != 3 && n != 6)
    m.call().valueError(m.what("inertia") +
                        " must be [Ixx, Iyy, Izz], [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] or a 3x3 "
                        "matrix, got " +
                        describe(value));
  if (matrix) {
    const py::sequence rows = py::reinterpret_borrow<py::sequence>(value);
    for (int i = 0; i < 3; ++i)
      inertia.row(i) = m.call()
                           .vector(rows[i], 3, m.what("inertia") + "[" + std::to_string(i) + "]")
                           .transpose();
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
Vec3 readRotational(const Args& m, std::string_view key) {
  if (m.call().dim == 3) return m.vector(key, Vec3::Zero());
  return Vec3(0.0, 0.0, m.number(key, 0.0));
}

/// fixed=["x", "rz"]: coordinates the assembly of the initial state must keep.
std::uint8_t readFixedCoordinates(const Args& m) {
  static const char* names3[] = {"x", "y", "z", "rx", "ry", "rz"};
  static const char* names2[] = {"x", "y", "theta"};
  const int dim = m.call().dim, count = dim == 3 ? 6 : 3;
  std::uint8_t bits = 0;
  if (!m.has("fixed")) return bits;
  const py::object value = m.get("fixed");
  if (!isSequence(value))
    m.call().typeError(m.what("fixed") + " must be a sequence, got " + describe(value));
  for (const py::handle item : value) {
    if (!py::isinstance<py::str>(item))
      m.call().typeError(m.what("fixed") + " must be a string, got " + describe(item));
    const std::string name = item.cast<std::string>();
    int k = 0;
    while (k < count && name != (dim == 3 ? names3[k] : names2[k])) ++k;
    if (k == count)
      m.call().fail(m.what("fixed") + ": unknown coordinate " + quote(name) +
                    (dim == 3 ? "; valid: x, y, z, rx, ry, rz" : "; valid: x, y, theta"));
    bits |= static_cast<std::uint8_t>(1u << k);
  }
  return bits;
}

JointType readJointType(const Args& m) {
  const std::string name = m.string("type");
  const auto type = jointTypeFromName(name);
  const int dim = m.call().dim;
  if (!type || !defaultMask(*type, dim))
    m.fail("unknown joint type " + quote(name) + " in " + std::to_string(dim) +
           "D; valid types: " + jointTypeNames(dim));
  return *type;
}

RowMask readMask(const Args& m) {
  const py::object value = m.get("mask");
  const int rows = m.call().dim == 3 ? 6 : 3;
  if (!isSequence(value) || py::len(value) != static_cast<std::size_t>(rows))
    m.call().valueError(m.what("mask") + " must be a sequence of " + std::to_string(rows) +
                        " entries 0 or 1 (" + (rows == 6 ? "x, y, z, Rx, Ry, Rz" : "x, y, theta") +
                        "), got " + describe(value));
  RowMask mask = 0;
  int i = 0;
  for (const py::handle item : value) {
    const std::string what = m.what("mask") + "[" + std::to_string(i) + "]";
    if (m.call().integer(item, what, 0, 1)) mask |= RowMask(1u << i);
    ++i;
  }
  return mask;
}

JointMotion readMotion(const Args& joint) {
  const Args m = joint.map("motion");
  m.allowKeys({"angle", "angle_deg", "translation"}, {"axis"});
  JointMotion motion;
  motion.active = true;
  motion.axis = m.vector("axis", 3, Vec3::UnitX());  // the builder checks it is unit
  m.exclusive("angle", "angle_deg");
  motion.angle = timeFunction(m, "angle", TimeFunction::constant(0.0));
  if (m.has("angle_deg"))
    motion.angle = scaled(timeFunction(m, "angle_deg", {}), std::numbers::pi / 180.0);
  if (m.has("translation")) {
    const py::object value = m.get("translation");
    const int n = m.call().dim;
    if (!isSequence(value) || py::len(value) != static_cast<std::size_t>(n))
      m.call().valueError(m.what("translation") + " must be a sequence of " + std::to_string(n) +
                          " time functions, got " + describe(value));
    int i = 0;
    for (const py::handle item : value) {
      const std::string path = "motion.translation[" + std::to_string(i) + "]";
      motion.translation[i++] = readTimeFunction(m.call(), item, m.element(), path);
    }
  }
  auto continuous = [&](const TimeFunction& f, std::string_view key) {
    if (f.kind == TimeFunction::Kind::kPulse)
      m.fail(m.path(key) +
             ": a pulse jumps, and a prescribed motion must be continuous (pulses are for loads)");
  };
  continuous(motion.angle, m.has("angle_deg") ? "angle_deg" : "angle");
  for (const TimeFunction& f : motion.translation) continuous(f, "translation");
  return motion;
}

/// Index of the marker named by `key`, as the loader's markerIndex.
Index markerIndex(const ModelBuilder& builder, const Args& m, std::string_view key) {
  const std::string name = m.string(key);
  const Index index = builder.findMarker(name);
  if (index < 0)
    m.fail(std::string(key) + " " + quote(name) +
           " does not exist (markers are defined under markers: or by the generator)");
  return index;
}

/// What a spring and a rotational spring share: name, markers, stiffness, damping (default 0).
template <typename Spring>
void readSpringCommon(const ModelBuilder& builder, const Args& m, Spring& spring) {
  spring.marker1 = markerIndex(builder, m, "marker1");
  spring.marker2 = markerIndex(builder, m, "marker2");
  spring.stiffness = m.number("stiffness");
  spring.damping = m.number("damping", 0.0);
}

/// The two ends and the sag point of a hanging chain (catenary chain, node chain).
template <typename Options>
void readHangingEnds(const Args& g, Options& o) {
  o.end_a = g.vector("end_a", o.end_a);
  o.end_b = g.vector("end_b", o.end_b);
  o.sag_point = g.vector("sag_point", o.sag_point);
}

/// A generator of models of dimension `dim` fails in a builder of the other one.
void requireDimension(const Args& g, const std::string& type, int dim) {
  if (g.call().dim != dim)
    g.fail(type + (dim == 3 ? " builds a spatial" : " builds a planar") +
           " model; it needs dimension: " + std::to_string(dim));
}

/// Fails if a generator would build more bodies than the loader allows from a file.
void checkGeneratedSize(const Args& g, long long bodies, const std::string& description) {
  const long limit = LoaderLimits{}.max_generated_bodies;
  if (bodies > limit)
    g.fail(description + " exceed the loader's limit of " + std::to_string(limit) +
           " generated bodies");
}

// ---------------------------------------------------------------------------------------------
// The Builder

struct PyBuilder {
  ModelBuilder builder;
  std::vector<std::string> warnings;
  /// Why further calls fail (empty: they do not): build() ran, or a call failed after adding
  /// part of its elements (a generator; ModelBuilder can not take them back).
  std::string spent;

  PyBuilder(int dimension, std::string name) : builder(make(dimension, std::move(name))) {}

  static ModelBuilder make(int dimension, std::string name) {
    try {
      return ModelBuilder(dimension, std::move(name));
    } catch (const Error& e) {
      throw InputError("Builder", 0, 0, std::string("top level: ") + e.what());  // as the loader
    }
  }

  /// The call "Builder.<method>('<name>')" (or "Builder.<method>"); fails once spent.
  Call call(const std::string& method, const std::string& name = "") const {
    Call c{"Builder." + method + (name.empty() ? "" : "(" + quote(name) + ")"),
           builder.dimension()};
    if (!spent.empty()) throw Error(c.where + ": " + spent + "; start a new catena.Builder");
    return c;
  }

  std::size_t elements() const {
    const Model& m = builder.peek();
    return m.bodies.size() + m.markers.size() + m.joints.size() + m.loads.size() +
           m.springs.size() + m.rotational_springs.size();
  }

  /// Runs one ModelBuilder (or generator) call as the loader's build(): its catena::Error
  /// becomes an InputError at the call, its warnings are kept with the call's name. A call that
  /// fails after adding elements spends the builder.
  template <typename F>
  void run(const Call& c, F&& add) {
    const std::size_t before = builder.peek().warnings.size(), count = elements();
    try {
      add();
    } catch (const Error& e) {
      if (elements() != count)
        spent = "an earlier call, " + c.where + ", failed after adding part of the mechanism";
      c.fail(e.what());
    }
    const auto& all = builder.peek().warnings;
    for (std::size_t i = before; i < all.size(); ++i)
      warnings.push_back(c.where + ": warning: " + all[i]);
  }

  void setGravity(const py::object& g) {
    const Call c = call("set_gravity");
    const Vec3 v = c.vector(g, c.dim, "gravity");
    run(c, [&] { builder.setGravity(v); });
  }

  void addBody(const std::string& name, const py::object& mass, const py::object& inertia,
               const py::object& com, const py::object& position, const py::object& orientation,
               const py::object& angle, const py::object& angle_deg, const py::object& velocity,
               const py::object& angular_velocity, const py::object& fixed) {
    const Call c = call("add_body", name);
    const Args m(c, "body " + quote(name),
                 {{"mass", mass},
                  {"inertia", inertia},
                  {"com", com},
                  {"position", position},
                  {"orientation", orientation},
                  {"velocity", velocity},
                  {"angular_velocity", angular_velocity},
                  {"fixed", fixed},
                  {"angle", angle},
                  {"angle_deg", angle_deg}});
    m.allowKeys({"mass", "inertia", "com", "position", "orientation", "velocity",
                 "angular_velocity", "fixed"},
                {}, {"angle", "angle_deg"});
    Body body;
    body.name = name;
    body.mass = m.number("mass");
    body.inertia = readInertia(m);
    body.com = m.vector("com");
    body.position = m.vector("position");
    body.orientation = readOrientation(m);
    body.velocity = m.vector("velocity");
    body.angular_velocity = readRotational(m, "angular_velocity");
    body.fixed = readFixedCoordinates(m);
    run(c, [&] { builder.addBody(std::move(body)); });
  }

  void addMarker(const std::string& name, const std::string& body, const py::object& position,
                 const py::object& orientation, const py::object& angle,
                 const py::object& angle_deg) {
    const Call c = call("add_marker", name);
    const Args m(c, "marker " + quote(name),
                 {{"position", position},
                  {"orientation", orientation},
                  {"angle", angle},
                  {"angle_deg", angle_deg}});
    m.allowKeys({"position", "orientation"}, {}, {"angle", "angle_deg"});
    Marker marker;
    marker.name = name;
    marker.body = builder.findBody(body);
    if (marker.body == -2)
      m.fail("body " + quote(body) +
             " does not exist (bodies are defined under bodies: or by the generator)");
    marker.position = m.vector("position");
    marker.orientation = readOrientation(m);
    run(c, [&] { builder.addMarker(std::move(marker)); });
  }

  void addJoint(const std::string& name, const std::string& type, const std::string& marker1,
                const std::string& marker2, const py::object& motion, const py::object& mask,
                const py::object& length) {
    const Call c = call("add_joint", name);
    const Args m(c, "joint " + quote(name),
                 {{"type", py::str(type)},
                  {"marker1", py::str(marker1)},
                  {"marker2", py::str(marker2)},
                  {"motion", motion},
                  {"mask", mask},
                  {"length", length}});
    m.allowKeys({"type", "marker1", "marker2", "motion", "mask"}, {}, {"length"});
    Joint joint;
    joint.name = name;
    joint.type = readJointType(m);
    const bool lock = joint.type == JointType::kLock, distance = joint.type == JointType::kDistance;
    if (m.has("mask") != lock)
      m.fail(lock ? "a lock joint needs a mask of active rows"
                  : "mask is only valid for type lock");
    if (m.has("length") != distance)
      m.fail(distance ? "a distance joint needs a length"
                      : "length is only valid for type distance");
    joint.marker1 = markerIndex(builder, m, "marker1");
    joint.marker2 = markerIndex(builder, m, "marker2");
    if (lock) joint.mask = readMask(m);
    if (distance) joint.length = timeFunction(m, "length", {});
    if (m.has("motion")) joint.motion = readMotion(m);
    run(c, [&] { builder.addJoint(std::move(joint)); });
  }

  void addLoad(const std::string& name, const std::string& marker, const py::object& force,
               const py::object& torque, const py::object& basis_, const py::object& scale) {
    const Call c = call("add_load", name);
    const Args m(c, "load " + quote(name),
                 {{"marker", py::str(marker)},
                  {"force", force},
                  {"torque", torque},
                  {"basis", basis_},
                  {"scale", scale}});
    MarkerLoad load;
    load.name = name;
    load.marker = markerIndex(builder, m, "marker");
    load.force = m.vector("force");
    load.torque = readRotational(m, "torque");
    const std::string basis = m.string("basis", "world");
    if (basis != "world" && basis != "marker")
      m.fail("basis must be world or marker, got " + quote(basis));
    load.in_marker_basis = basis == "marker";
    load.scale = timeFunction(m, "scale", TimeFunction::constant(1.0));
    run(c, [&] { builder.addLoad(std::move(load)); });
  }

  void addSpring(const std::string& name, const std::string& marker1, const std::string& marker2,
                 const py::object& stiffness, const py::object& damping,
                 const py::object& rest_length, const py::object& preload) {
    const Call c = call("add_spring", name);
    const Args m(c, "spring " + quote(name),
                 {{"marker1", py::str(marker1)},
                  {"marker2", py::str(marker2)},
                  {"stiffness", stiffness},
                  {"damping", damping},
                  {"rest_length", rest_length},
                  {"preload", preload}});
    SpringDamper spring;
    spring.name = name;
    readSpringCommon(builder, m, spring);
    spring.rest_length = m.number("rest_length", 0.0);
    spring.preload = m.number("preload", 0.0);
    run(c, [&] { builder.addSpring(std::move(spring)); });
  }

  void addRotationalSpring(const std::string& name, const std::string& marker1,
                           const std::string& marker2, const py::object& stiffness,
                           const py::object& damping, const py::object& rest_angle,
                           const py::object& rest_angle_deg) {
    const Call c = call("add_rotational_spring", name);
    const Args m(c, "rotational spring " + quote(name),
                 {{"marker1", py::str(marker1)},
                  {"marker2", py::str(marker2)},
                  {"stiffness", stiffness},
                  {"damping", damping},
                  {"rest_angle", rest_angle},
                  {"rest_angle_deg", rest_angle_deg}});
    m.allowKeys({"marker1", "marker2", "stiffness", "damping"}, {},
                {"rest_angle", "rest_angle_deg"});
    RotationalSpringDamper spring;
    spring.name = name;
    readSpringCommon(builder, m, spring);
    spring.rest_angle = m.angle("rest_angle", 0.0);
    run(c, [&] { builder.addRotationalSpring(std::move(spring)); });
  }

  void addCatenaryChain(const py::kwargs& options) {
    const Call c = call("add_catenary_chain");
    const Args g(c, "generator", options);
    g.allowKeys({"links", "end_a", "end_b", "sag_point", "mass_per_length", "radius"});
    requireDimension(g, "catenary_chain", 3);
    CatenaryChainOptions o;
    o.links = static_cast<int>(g.integer("links", 1, INT_MAX, o.links));
    checkGeneratedSize(g, o.links, std::to_string(o.links) + " links");
    readHangingEnds(g, o);
    o.mass_per_length = g.number("mass_per_length", o.mass_per_length);
    o.radius = g.number("radius", o.radius);
    run(c, [&] { catena::addCatenaryChain(builder, o); });
  }

  void addNodeChain(const py::kwargs& options) {
    const Call c = call("add_node_chain");
    const Args g(c, "generator", options);
    g.allowKeys({"nodes_per_leg", "end_a", "end_b", "sag_point", "node_mass", "node_inertia"});
    requireDimension(g, "node_chain", 3);
    NodeChainOptions o;
    o.nodes_per_leg = static_cast<int>(g.integer("nodes_per_leg", 1, INT_MAX, o.nodes_per_leg));
    checkGeneratedSize(g, 2LL * o.nodes_per_leg + 3,
                       std::to_string(2LL * o.nodes_per_leg + 3) + " nodes");
    readHangingEnds(g, o);
    o.node_mass = g.number("node_mass", o.node_mass);
    o.node_inertia = g.number("node_inertia", o.node_inertia);
    run(c, [&] { catena::addNodeChain(builder, o); });
  }

  void addFourBarLattice(const py::kwargs& options) {
    const Call c = call("add_four_bar_lattice");
    const Args g(c, "generator", options);
    g.allowKeys({"levels", "cells", "merged_couplers", "cell_width", "crank_length", "crank_angle",
                 "crank_angle_deg", "crank_rate", "mass_per_length", "level_angles",
                 "level_angles_deg", "level_rates"});
    FourBarLatticeOptions o;
    o.levels = static_cast<int>(g.integer("levels", 1, INT_MAX, o.levels));
    o.cells = static_cast<int>(g.integer("cells", 1, INT_MAX, o.cells));
    o.merged_couplers = g.boolean("merged_couplers", o.merged_couplers);
    const long long limit = LoaderLimits{}.max_generated_bodies;
    const long long per_level = o.merged_couplers ? o.cells + 2LL : 2LL * o.cells + 1;
    const long long bodies =
        o.levels > limit || per_level > limit ? LLONG_MAX : o.levels * per_level;
    checkGeneratedSize(
        g, bodies,
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
    run(c, [&] { catena::addFourBarLattice(builder, o); });
  }

  PyModel build() {
    const Call c = call("build");
    PyModel p{builder.finalize(), {}, "", std::move(warnings)};
    spent = "this Builder has built its model already (build() empties it)";
    p.source = p.model.name;  // analyses' messages start with it, as the CLI's with the file
    p.plan = buildAssemblyPlan(p.model);
    return p;
  }
};

}  // namespace

void bindBuilder(py::module_& m) {
  const py::none none;
  py::class_<PyBuilder>(m, "Builder",
                        "A mechanism built call by call, one keyword per key of the YAML format\n"
                        "(docs/input-format.md), with the loader's validation; build() -> Model.")
      .def(py::init<int, std::string>(), py::arg("dimension") = 3, py::arg("name") = "mechanism",
           "dimension: 3 (spatial) or 2 (planar); name: the model's (messages of analyses)")
      .def_property_readonly("dimension", [](const PyBuilder& b) { return b.builder.dimension(); })
      .def("set_gravity", &PyBuilder::setGravity, py::arg("g"),
           "gravity, m/s^2: dimension entries (3D [gx, gy, gz], 2D [gx, gy])")
      .def("add_body", &PyBuilder::addBody, py::arg("name"), py::arg("mass"), py::arg("inertia"),
           py::arg("com") = none, py::arg("position") = none, py::arg("orientation") = none,
           py::arg("angle") = none, py::arg("angle_deg") = none, py::arg("velocity") = none,
           py::arg("angular_velocity") = none, py::arg("fixed") = none,
           "A body (kg; kg m^2 about the centre of mass: 3D [Ixx, Iyy, Izz], 6 entries or 3x3,\n"
           "2D Izz; m; m/s; rad/s, 3D in the body basis). orientation: 3D {'quaternion': [w, x,\n"
           "y, z]} or {'axis': [x, y, z], 'angle' | 'angle_deg': a}; 2D angle= or angle_deg=.\n"
           "fixed: coordinates the initial assembly keeps ('x', ..., 'rz'; 2D 'theta').")
      .def("add_marker", &PyBuilder::addMarker, py::arg("name"), py::arg("body"),
           py::arg("position") = none, py::arg("orientation") = none, py::arg("angle") = none,
           py::arg("angle_deg") = none,
           "A frame on body `body` (a name, or 'ground'): position (m) and orientation in the\n"
           "body frame, as add_body's.")
      .def("add_joint", &PyBuilder::addJoint, py::arg("name"), py::arg("type"), py::arg("marker1"),
           py::arg("marker2"), py::arg("motion") = none, py::arg("mask") = none,
           py::arg("length") = none,
           "A joint of marker1's frame in marker2's. mask: type 'lock' only (6 entries 0/1, 2D\n"
           "3); length: type 'distance' (2D) only, m; motion: {'axis': [x, y, z] (3D),\n"
           "'angle' | 'angle_deg': f, 'translation': [f, ...]}. A time function f is a number\n"
           "or a dict {'type': 'ramp', 'initial': a, 'slope': b, 'start': t0} (YAML's keys).")
      .def("add_load", &PyBuilder::addLoad, py::arg("name"), py::arg("marker"),
           py::arg("force") = none, py::arg("torque") = none, py::arg("basis") = none,
           py::arg("scale") = none,
           "Force (N) and torque (N m; 2D a number) at a marker, basis 'world' (default) or\n"
           "'marker', times scale(t) (a time function, default 1).")
      .def("add_spring", &PyBuilder::addSpring, py::arg("name"), py::arg("marker1"),
           py::arg("marker2"), py::arg("stiffness"), py::arg("damping") = none,
           py::arg("rest_length") = none, py::arg("preload") = none,
           "Spring-damper between marker origins: N/m, N s/m, m, N (tension positive).")
      .def("add_rotational_spring", &PyBuilder::addRotationalSpring, py::arg("name"),
           py::arg("marker1"), py::arg("marker2"), py::arg("stiffness"), py::arg("damping") = none,
           py::arg("rest_angle") = none, py::arg("rest_angle_deg") = none,
           "Rotational spring-damper between marker frames: N m/rad, N m s/rad; 2D a rest\n"
           "angle (rad, or rest_angle_deg).")
      .def("add_catenary_chain", &PyBuilder::addCatenaryChain,
           "The YAML's generator catenary_chain (3D): links, end_a, end_b, sag_point (m),\n"
           "mass_per_length (kg/m), radius (m).")
      .def("add_node_chain", &PyBuilder::addNodeChain,
           "The YAML's generator node_chain (3D): nodes_per_leg, end_a, end_b, sag_point (m),\n"
           "node_mass (kg), node_inertia (kg m^2).")
      .def("add_four_bar_lattice", &PyBuilder::addFourBarLattice,
           "The YAML's generator four_bar_lattice: levels, cells, merged_couplers, cell_width,\n"
           "crank_length (m), crank_angle (rad; or crank_angle_deg), crank_rate (rad/s),\n"
           "mass_per_length (kg/m), level_angles (or level_angles_deg), level_rates.")
      .def("build", &PyBuilder::build,
           "The finalized Model with its assembly plan; the Builder is then spent (a further\n"
           "call raises catena.Error).");
}

}  // namespace catena::python
