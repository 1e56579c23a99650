/// @file builder.cpp
/// catena.Builder (docs/python.md, "Building a mechanism in Python"): a mechanism built call by
/// call, one keyword per key of the YAML format (docs/input-format.md). Each call's keywords
/// (those not None) become the JSON text of one element, which the YAML loader's own readers
/// check and build (io/element_loader.hpp): the same validation and sentences as a file, with
/// "Builder.add_joint('hinge')" where the loader writes FILE:LINE:COL.

#include <pybind11/stl.h>

#include "assembly/plan.hpp"
#include "bindings.hpp"
#include "io/element_loader.hpp"

namespace catena::python {
namespace {

using namespace pybind11::literals;

/// The JSON text of `element` (JSON is YAML; floats by repr, which the loader reads back to the
/// same double). NumPy arrays and scalars are written as lists and numbers; any other object
/// JSON can not write raises TypeError naming the call.
std::string jsonText(const py::object& element, const std::string& where) {
  const py::object dumps = py::module_::import("json").attr("dumps");
  const py::cpp_function plain([](const py::object& value) -> py::object {
    if (py::hasattr(value, "tolist")) return value.attr("tolist")();
    throw py::type_error("a value of type " +
                         py::str(py::type::of(value).attr("__name__")).cast<std::string>() +
                         " has no YAML form");
  });
  try {
    return dumps(element, "default"_a = plain).cast<std::string>();
  } catch (const py::error_already_set& e) {
    if (!e.matches(PyExc_TypeError) && !e.matches(PyExc_ValueError)) throw;
    throw py::type_error(where + ": " + py::str(e.value()).cast<std::string>());
  }
}

/// 'name', as the calls are named in messages (at most 40 characters, one line).
std::string quotedName(const std::string& name) {
  std::string out = "'";
  for (std::size_t i = 0; i < name.size() && i < 40; ++i)
    out += static_cast<unsigned char>(name[i]) < 0x20 ? '?' : name[i];
  return out + (name.size() > 40 ? "...'" : "'");
}

using Keywords = std::initializer_list<std::pair<const char*, py::object>>;

struct PyBuilder {
  ElementLoader loader;

  PyBuilder(int dimension, std::string name) : loader(dimension, std::move(name), "Builder") {}

  /// One element: the keywords given (not None), in the order of the call's signature.
  void add(const std::string& kind, const std::string& call, Keywords keywords,
           const py::kwargs& more = {}) {
    py::dict element;
    std::string name;
    for (const auto& [key, value] : keywords) {
      if (value.is_none()) continue;
      element[key] = value;
      if (std::string(key) == "name" && py::isinstance<py::str>(value))
        name = value.cast<std::string>();
    }
    for (const auto& [key, value] : more)
      if (!value.is_none()) element[key] = value;
    const std::string where =
        "Builder." + call + (name.empty() ? "" : "(" + quotedName(name) + ")");
    const std::string text = jsonText(element, where);
    py::gil_scoped_release release;
    loader.add(kind, where, text);
  }

  void setGravity(const py::object& g) {
    const std::string where = "Builder.set_gravity";
    const std::string text = jsonText(g, where);
    loader.add("gravity", where, text);
  }

  PyModel build() {
    LoadedInput in = loader.finalize("Builder.build");
    PyModel p{std::move(in.model), {}, "", std::move(in.warnings)};
    p.source = p.model.name;  // analyses' messages start with it, as the CLI's with the file
    p.plan = buildAssemblyPlan(p.model);
    return p;
  }
};

}  // namespace

void bindBuilder(py::module_& m) {
  const py::none none;
  using B = PyBuilder;
  py::class_<B>(m, "Builder",
                "A mechanism built call by call, one keyword per key of the YAML format\n"
                "(docs/input-format.md), checked by the loader's own readers; build() -> Model.")
      .def(py::init<int, std::string>(), py::arg("dimension") = 3, py::arg("name") = "mechanism",
           "dimension: 3 (spatial) or 2 (planar); name: the model's (messages of analyses)")
      .def_property_readonly("dimension", [](const B& b) { return b.loader.dimension(); })
      .def("set_gravity", &B::setGravity, py::arg("g"),
           "gravity, m/s^2: dimension entries (3D [gx, gy, gz], 2D [gx, gy])")
      .def(
          "add_body",
          [](B& b, py::object name, py::object mass, py::object inertia, py::object com,
             py::object position, py::object orientation, py::object angle, py::object angle_deg,
             py::object velocity, py::object angular_velocity, py::object fixed) {
            b.add("body", "add_body",
                  {{"name", name},
                   {"mass", mass},
                   {"inertia", inertia},
                   {"com", com},
                   {"position", position},
                   {"orientation", orientation},
                   {"angle", angle},
                   {"angle_deg", angle_deg},
                   {"velocity", velocity},
                   {"angular_velocity", angular_velocity},
                   {"fixed", fixed}});
          },
          py::arg("name"), py::arg("mass"), py::arg("inertia"), py::arg("com") = none,
          py::arg("position") = none, py::arg("orientation") = none, py::arg("angle") = none,
          py::arg("angle_deg") = none, py::arg("velocity") = none,
          py::arg("angular_velocity") = none, py::arg("fixed") = none,
          "A body (kg; kg m^2 about the centre of mass: 3D [Ixx, Iyy, Izz], 6 entries or 3x3,\n"
          "2D Izz; m; m/s; rad/s, 3D in the body basis). orientation: 3D {'quaternion': [w, x,\n"
          "y, z]} or {'axis': [x, y, z], 'angle' | 'angle_deg': a}; 2D angle= or angle_deg=.\n"
          "fixed: coordinates the initial assembly keeps ('x', ..., 'rz'; 2D 'theta').")
      .def(
          "add_marker",
          [](B& b, py::object name, py::object body, py::object position, py::object orientation,
             py::object angle, py::object angle_deg) {
            b.add("marker", "add_marker",
                  {{"name", name},
                   {"body", body},
                   {"position", position},
                   {"orientation", orientation},
                   {"angle", angle},
                   {"angle_deg", angle_deg}});
          },
          py::arg("name"), py::arg("body"), py::arg("position") = none,
          py::arg("orientation") = none, py::arg("angle") = none, py::arg("angle_deg") = none,
          "A frame on body `body` (a name, or 'ground'): position (m) and orientation in the\n"
          "body frame, as add_body's.")
      .def(
          "add_joint",
          [](B& b, py::object name, py::object type, py::object marker1, py::object marker2,
             py::object motion, py::object mask, py::object length) {
            b.add("joint", "add_joint",
                  {{"name", name},
                   {"type", type},
                   {"marker1", marker1},
                   {"marker2", marker2},
                   {"motion", motion},
                   {"mask", mask},
                   {"length", length}});
          },
          py::arg("name"), py::arg("type"), py::arg("marker1"), py::arg("marker2"),
          py::arg("motion") = none, py::arg("mask") = none, py::arg("length") = none,
          "A joint of marker1's frame in marker2's. mask: type 'lock' only (6 entries 0/1, 2D\n"
          "3); length: type 'distance' (2D) only, m; motion: {'axis': [x, y, z] (3D),\n"
          "'angle' | 'angle_deg': f, 'translation': [f, ...]}. A time function f is a number\n"
          "or a dict {'type': 'ramp', 'initial': a, 'slope': b, 'start': t0} (YAML's keys).")
      .def(
          "add_load",
          [](B& b, py::object name, py::object marker, py::object force, py::object torque,
             py::object basis, py::object scale) {
            b.add("force", "add_load",
                  {{"name", name},
                   {"type", py::str("load")},
                   {"marker", marker},
                   {"force", force},
                   {"torque", torque},
                   {"basis", basis},
                   {"scale", scale}});
          },
          py::arg("name"), py::arg("marker"), py::arg("force") = none, py::arg("torque") = none,
          py::arg("basis") = none, py::arg("scale") = none,
          "Force (N) and torque (N m; 2D a number) at a marker, basis 'world' (default) or\n"
          "'marker', times scale(t) (a time function, default 1).")
      .def(
          "add_spring",
          [](B& b, py::object name, py::object marker1, py::object marker2, py::object stiffness,
             py::object damping, py::object rest_length, py::object preload) {
            b.add("force", "add_spring",
                  {{"name", name},
                   {"type", py::str("spring")},
                   {"marker1", marker1},
                   {"marker2", marker2},
                   {"stiffness", stiffness},
                   {"damping", damping},
                   {"rest_length", rest_length},
                   {"preload", preload}});
          },
          py::arg("name"), py::arg("marker1"), py::arg("marker2"), py::arg("stiffness"),
          py::arg("damping") = none, py::arg("rest_length") = none, py::arg("preload") = none,
          "Spring-damper between marker origins: N/m, N s/m, m, N (tension positive).")
      .def(
          "add_rotational_spring",
          [](B& b, py::object name, py::object marker1, py::object marker2, py::object stiffness,
             py::object damping, py::object rest_angle, py::object rest_angle_deg) {
            b.add("force", "add_rotational_spring",
                  {{"name", name},
                   {"type", py::str("rotational_spring")},
                   {"marker1", marker1},
                   {"marker2", marker2},
                   {"stiffness", stiffness},
                   {"damping", damping},
                   {"rest_angle", rest_angle},
                   {"rest_angle_deg", rest_angle_deg}});
          },
          py::arg("name"), py::arg("marker1"), py::arg("marker2"), py::arg("stiffness"),
          py::arg("damping") = none, py::arg("rest_angle") = none, py::arg("rest_angle_deg") = none,
          "Rotational spring-damper between marker frames: N m/rad, N m s/rad; 2D a rest\n"
          "angle (rad, or rest_angle_deg).")
      .def(
          "add_catenary_chain",
          [](B& b, const py::kwargs& options) {
            b.add("generator", "add_catenary_chain", {{"type", py::str("catenary_chain")}},
                  options);
          },
          "The YAML's generator catenary_chain (3D): links, end_a, end_b, sag_point (m),\n"
          "mass_per_length (kg/m), radius (m).")
      .def(
          "add_node_chain",
          [](B& b, const py::kwargs& options) {
            b.add("generator", "add_node_chain", {{"type", py::str("node_chain")}}, options);
          },
          "The YAML's generator node_chain (3D): nodes_per_leg, end_a, end_b, sag_point (m),\n"
          "node_mass (kg), node_inertia (kg m^2).")
      .def(
          "add_four_bar_lattice",
          [](B& b, const py::kwargs& options) {
            b.add("generator", "add_four_bar_lattice", {{"type", py::str("four_bar_lattice")}},
                  options);
          },
          "The YAML's generator four_bar_lattice: levels, cells, merged_couplers, cell_width,\n"
          "crank_length (m), crank_angle (rad; or crank_angle_deg), crank_rate (rad/s),\n"
          "mass_per_length (kg/m), level_angles (or level_angles_deg), level_rates.")
      .def("build", &B::build,
           "The finalized Model with its assembly plan; the Builder is then spent (a further\n"
           "call raises catena.Error).");
}

}  // namespace catena::python
