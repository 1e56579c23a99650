#define BOOST_TEST_MODULE yaml_loader
#include "io/yaml_loader.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>

#include "io/element_loader.hpp"
#include "test_support.hpp"

using namespace catena;
namespace fs = std::filesystem;

// Printers for BOOST_TEST's failure messages.
namespace catena {
std::ostream& operator<<(std::ostream& os, JointType t) {
  return os << jointTypeName(t);
}
std::ostream& operator<<(std::ostream& os, TimeFunction::Kind k) {
  return os << "kind " << static_cast<int>(k);
}
}  // namespace catena

namespace {

constexpr double kPi = std::numbers::pi;

// The repository, found from this file (tests/unit/io/) so no build setting is needed.
const fs::path kRepo = fs::path(__FILE__).parent_path() / ".." / ".." / "..";

LoadedInput load(const std::string& text, const LoaderLimits& limits = {}) {
  return loadMechanismString(text, "test.yaml", limits);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The text must fail with an InputError at `line` (1-based) whose message contains `phrase`.
void checkError(const std::string& text, int line, const std::string& phrase,
                const LoaderLimits& limits = {}) {
  try {
    load(text, limits);
    BOOST_ERROR("no error (expected line " << line << ", '" << phrase << "') for:\n" << text);
  } catch (const InputError& e) {
    const std::string what = e.what();
    BOOST_TEST_MESSAGE(what);
    BOOST_CHECK_MESSAGE(e.line() == line,
                        "expected line " << line << ", got " << e.line() << ": " << what);
    BOOST_CHECK_MESSAGE(e.file() == "test.yaml", what);
    BOOST_CHECK_MESSAGE(contains(what, "test.yaml:" + std::to_string(line) + ":"), what);
    BOOST_CHECK_MESSAGE(contains(what, phrase), "expected '" << phrase << "' in: " << what);
  }
}

const Body& body(const Model& m, const std::string& name) {
  const Index i = m.findBody(name);
  BOOST_REQUIRE_MESSAGE(i >= 0, "no body " << name);
  return m.bodies[i];
}

const Marker& marker(const Model& m, const std::string& name) {
  const Index i = m.findMarker(name);
  BOOST_REQUIRE_MESSAGE(i >= 0, "no marker " << name);
  return m.markers[i];
}

const Joint& joint(const Model& m, const std::string& name) {
  const auto it = std::find_if(m.joints.begin(), m.joints.end(),
                               [&](const Joint& j) { return j.name == name; });
  BOOST_REQUIRE_MESSAGE(it != m.joints.end(), "no joint " << name);
  return *it;
}

std::string readText(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

/// Quaternions q and -q are the same rotation.
void checkRotation(const Quat& q, const Quat& expected, const std::string& what) {
  BOOST_CHECK_MESSAGE(
      std::abs(std::abs(q.dot(expected)) - 1.0) < 1e-14,
      what << ": got " << q.coeffs().transpose() << ", expected " << expected.coeffs().transpose());
}

// A small 3D file with a given body and joint block, for error tests on one element.
std::string withBody(const std::string& body_lines) {
  return "bodies:\n"
         "  - name: bob\n" +
         body_lines;
}

const char* kTwoBodies = R"(bodies:
  - {name: a, mass: 1, inertia: [1, 1, 1]}
  - {name: b, mass: 1, inertia: [1, 1, 1]}
markers:
  - {name: a/m, body: a}
  - {name: b/m, body: b}
  - {name: g/m, body: ground}
)";

}  // namespace

// ---------------------------------------------------------------------------------------------
// Valid files

BOOST_AUTO_TEST_CASE(complete_3d_example_from_the_docs) {
  const fs::path seed = kRepo / "tests" / "fuzz" / "seeds" / "complete_example.yaml";
  const LoadedInput in = loadMechanismFile(seed.string());
  const Model& m = in.model;
  BOOST_TEST(in.warnings.empty());
  BOOST_TEST(m.name == "crank_pendulum");
  BOOST_TEST(m.dimension == 3);
  BOOST_TEST(in.options.analysis == "simulate");
  test::checkClose(m.gravity, Vec3(0, 0, -9.81), 0.0, "gravity");
  BOOST_TEST(m.bodies.size() == 2u);
  BOOST_TEST(m.markers.size() == 6u);
  BOOST_TEST(m.joints.size() == 2u);
  BOOST_TEST(m.loads.size() == 1u);
  BOOST_TEST(m.springs.size() == 1u);
  BOOST_TEST(m.nc == 6 + 5);  // driven_revolute + revolute

  const Body& rod = body(m, "rod");
  test::checkClose(rod.inertia, Vec3(0.125, 0.125, 0.001).asDiagonal().toDenseMatrix(), 0.0,
                   "matrix inertia");
  test::checkClose(rod.position, Vec3(0.5, 0, -0.5), 0.0, "rod position");
  const Joint& motor = joint(m, "motor");
  BOOST_TEST(motor.type == JointType::kDrivenRevolute);
  BOOST_TEST(motor.motion.active);
  BOOST_TEST(motor.motion.angle.kind == TimeFunction::Kind::kRamp);
  BOOST_TEST(motor.motion.angle.b == kPi);
  BOOST_TEST(motor.motion.angle.c == 0.5);
  test::checkClose(motor.motion.axis, Vec3::UnitX(), 0.0, "default motion axis");
  BOOST_TEST(m.loads[0].scale.kind == TimeFunction::Kind::kSine);
  BOOST_TEST(m.loads[0].scale.c == 0.5);
  BOOST_TEST(!m.loads[0].in_marker_basis);
  BOOST_TEST(m.springs[0].stiffness == 200.0);
  BOOST_TEST(m.springs[0].rest_length == 0.9);

  // The joints close at the initial state: the markers coincide.
  for (const Joint& j : m.joints) {
    const Marker &f1 = m.markers[j.marker1], &f2 = m.markers[j.marker2];
    auto world = [&](const Marker& f) {
      if (f.body == kGround) return Vec3(f.position);
      const Body& b = m.bodies[f.body];
      return Vec3(b.position + b.orientation * f.position);
    };
    test::checkClose(world(f1), world(f2), 1e-15, "joint " + j.name);
  }
}

BOOST_AUTO_TEST_CASE(docs_example_is_the_seed_file) {
  // docs/input-format.md ends with the same file in a ```yaml block under "Complete example".
  const std::string doc = readText(kRepo / "docs" / "input-format.md");
  const std::size_t section = doc.find("## Complete example");
  BOOST_REQUIRE(section != std::string::npos);
  const std::size_t begin = doc.find("```yaml\n", section);
  BOOST_REQUIRE(begin != std::string::npos);
  const std::size_t end = doc.find("```", begin + 8);
  BOOST_REQUIRE(end != std::string::npos);
  const std::string block = doc.substr(begin + 8, end - begin - 8);
  const fs::path seed = kRepo / "tests" / "fuzz" / "seeds" / "complete_example.yaml";
  BOOST_TEST(block == readText(seed));
  BOOST_TEST(load(block).model.bodies.size() == 2u);
}

BOOST_AUTO_TEST_CASE(values_units_and_defaults_3d) {
  const LoadedInput in = load(R"(bodies:
  - name: plain
    mass: 2
    inertia: [1, 2, 3]
  - name: turned
    mass: 1
    inertia: [2, 3, 4, 0.1, 0.2, 0.3]
    com: [0.1, 0.2, 0.3]
    position: [1, 2, 3]
    orientation: {axis: [0, 0, 2], angle_deg: 90}
    velocity: [4, 5, 6]
    angular_velocity: [7, 8, 9]
  - name: radians
    mass: 1
    inertia: [[2, 0.1, 0.2], [0.1, 3, 0.3], [0.2, 0.3, 4]]
    orientation: {axis: [1, 0, 0], angle: 0.5}
  - name: point
    mass: 1e-3
    inertia: [0, 0, 0]
markers:
  - {name: m, body: turned}
  - {name: g, body: ground, position: [0, 0, 1], orientation: {quaternion: [0, 1, 0, 0]}}
)");
  const Model& m = in.model;
  BOOST_TEST(m.name == "test");  // the stem of the source name
  BOOST_TEST(m.dimension == 3);
  BOOST_TEST(in.options.analysis == "check");
  BOOST_TEST(m.gravity.isZero(0.0));

  const Body& plain = body(m, "plain");
  BOOST_TEST(plain.mass == 2.0);
  test::checkClose(plain.inertia, Vec3(1, 2, 3).asDiagonal().toDenseMatrix(), 0.0, "diagonal");
  BOOST_TEST(plain.com.isZero(0.0));
  BOOST_TEST(plain.position.isZero(0.0));
  BOOST_TEST(plain.velocity.isZero(0.0));
  BOOST_TEST(plain.angular_velocity.isZero(0.0));
  checkRotation(plain.orientation, Quat::Identity(), "default orientation");

  const Body& turned = body(m, "turned");
  Mat3 full;
  full << 2, 0.1, 0.2, 0.1, 3, 0.3, 0.2, 0.3, 4;
  test::checkClose(turned.inertia, full, 0.0, "six-entry inertia");
  test::checkClose(body(m, "radians").inertia, full, 0.0, "matrix inertia");
  test::checkClose(turned.com, Vec3(0.1, 0.2, 0.3), 0.0, "com");
  test::checkClose(turned.position, Vec3(1, 2, 3), 0.0, "position");
  test::checkClose(turned.velocity, Vec3(4, 5, 6), 0.0, "velocity");
  test::checkClose(turned.angular_velocity, Vec3(7, 8, 9), 0.0, "angular velocity");
  // angle_deg: 90 about z (axis normalized) is a quarter turn: x -> y.
  checkRotation(turned.orientation, Quat(std::sqrt(0.5), 0, 0, std::sqrt(0.5)), "quarter turn");
  test::checkClose(turned.orientation * Vec3::UnitX(), Vec3::UnitY(), 1e-15, "x -> y");
  checkRotation(body(m, "radians").orientation, Quat(Eigen::AngleAxisd(0.5, Vec3::UnitX())),
                "axis-angle in rad");
  BOOST_TEST(body(m, "point").isPointMass());

  BOOST_TEST(marker(m, "m").body == m.findBody("turned"));
  BOOST_TEST(marker(m, "g").body == kGround);
  checkRotation(marker(m, "g").orientation, Quat(0, 1, 0, 0), "quaternion (w, x, y, z)");
}

BOOST_AUTO_TEST_CASE(joints_forces_and_time_functions_3d) {
  const LoadedInput in = load(std::string(kTwoBodies) + R"(joints:
  - {name: fix, type: fix, marker1: a/m, marker2: g/m}
  - name: lock
    type: lock
    mask: [1, 0, 1, 0, 0, 1]
    marker1: b/m
    marker2: a/m
  - name: drive
    type: driven_prismatic
    marker1: b/m
    marker2: g/m
    motion:
      translation: [{type: sine, amplitude: 2, frequency: 3}, 0.5, 0]
      angle_deg: {type: polynomial, coefficients: [180, 90]}
      axis: [0, 1, 0]
forces:
  - {name: l, type: load, marker: a/m, force: [1, 2, 3], torque: [4, 5, 6], basis: marker}
  - {name: s, type: spring, marker1: a/m, marker2: b/m, stiffness: 10}
  - {name: r, type: rotational_spring, marker1: a/m, marker2: b/m, stiffness: 2, damping: 0.5}
analysis:
  type: modal
)");
  const Model& m = in.model;
  BOOST_TEST(in.options.analysis == "modal");
  BOOST_TEST(joint(m, "fix").mask == 0b111111);
  BOOST_TEST(!joint(m, "fix").motion.active);
  BOOST_TEST(joint(m, "lock").mask == 0b100101);
  const JointMotion& mo = joint(m, "drive").motion;
  BOOST_TEST(mo.active);
  BOOST_TEST(mo.translation[0].kind == TimeFunction::Kind::kSine);
  BOOST_TEST(mo.translation[0].a == 0.0);  // default offset and phase
  BOOST_TEST(mo.translation[0].b == 2.0);
  BOOST_TEST(mo.translation[0].c == 3.0);
  BOOST_TEST(mo.translation[0].d == 0.0);
  BOOST_TEST(mo.translation[1].isConstant());
  BOOST_TEST(mo.translation[1].a == 0.5);
  BOOST_TEST(mo.angle.kind == TimeFunction::Kind::kPolynomial);
  BOOST_TEST(mo.angle.degree == 1);
  BOOST_TEST(std::abs(mo.angle.coeff[0] - kPi) < 1e-15);      // degrees -> rad
  BOOST_TEST(std::abs(mo.angle.coeff[1] - kPi / 2) < 1e-15);  // deg/s -> rad/s
  test::checkClose(mo.axis, Vec3::UnitY(), 0.0, "motion axis");

  const MarkerLoad& l = m.loads[0];
  test::checkClose(l.force, Vec3(1, 2, 3), 0.0, "force");
  test::checkClose(l.torque, Vec3(4, 5, 6), 0.0, "torque");
  BOOST_TEST(l.in_marker_basis);
  BOOST_TEST(l.scale.isConstant());
  BOOST_TEST(l.scale.a == 1.0);  // default scale
  BOOST_TEST(m.springs[0].stiffness == 10.0);
  BOOST_TEST(m.springs[0].damping == 0.0);
  BOOST_TEST(m.springs[0].rest_length == 0.0);
  BOOST_TEST(m.springs[0].preload == 0.0);
  BOOST_TEST(m.rotational_springs[0].damping == 0.5);
}

BOOST_AUTO_TEST_CASE(every_time_function_form) {
  const std::string prefix = std::string(kTwoBodies) +
                             "forces:\n  - {name: l, type: load, marker: a/m, force: [1, 0, 0], "
                             "scale: ";
  auto scale = [&](const std::string& f) { return load(prefix + f + "}\n").model.loads[0].scale; };
  const TimeFunction number = scale("2.5");
  BOOST_TEST(number.isConstant());
  BOOST_TEST(number.a == 2.5);
  const TimeFunction constant = scale("{type: constant, value: -1}");
  BOOST_TEST(constant.isConstant());
  BOOST_TEST(constant.a == -1.0);
  const TimeFunction ramp = scale("{type: ramp, initial: 1, slope: 2, start: 3}");
  BOOST_TEST(ramp.kind == TimeFunction::Kind::kRamp);
  BOOST_TEST(ramp.evaluate(4.0).value == 3.0);
  const TimeFunction sine =
      scale("{type: sine, offset: 1, amplitude: 2, frequency: 0.25, phase: 0.5}");
  BOOST_TEST(sine.kind == TimeFunction::Kind::kSine);
  BOOST_TEST(std::abs(sine.evaluate(1.0).value - (1 + 2 * std::sin(kPi / 2 + 0.5))) < 1e-15);
  const TimeFunction poly = scale("{type: polynomial, coefficients: [1, 2, 3]}");
  BOOST_TEST(poly.kind == TimeFunction::Kind::kPolynomial);
  BOOST_TEST(poly.evaluate(2.0).value == 1 + 2 * 2 + 3 * 4);
}

BOOST_AUTO_TEST_CASE(values_units_and_defaults_2d) {
  const LoadedInput in = load(R"(name: planar
dimension: 2
gravity: [0, -9.81]
bodies:
  - {name: a, mass: 1, inertia: 0.5, position: [1, 2], angle_deg: 90, velocity: [3, 4],
     angular_velocity: 5, com: [0.1, 0]}
  - {name: b, mass: 1, inertia: 0, orientation: {angle: 0.25}}
  - {name: c, mass: 1, inertia: 0.1}
markers:
  - {name: a/m, body: a, position: [0.5, 0], angle: 0.1}
  - {name: b/m, body: b, orientation: {angle_deg: -90}}
  - {name: c/m, body: c}
  - {name: g/m, body: ground}
joints:
  - {name: pin, type: revolute, marker1: a/m, marker2: g/m}
  - {name: rod, type: distance, marker1: b/m, marker2: a/m, length: 2}
  - {name: guide, type: lock, mask: [0, 1, 1], marker1: c/m, marker2: g/m}
  - {name: motor, type: driven_revolute, marker1: c/m, marker2: b/m,
     motion: {angle: {type: ramp, slope: 1}, translation: [0, {type: constant, value: 0}]}}
forces:
  - {name: push, type: load, marker: c/m, force: [1, 2], torque: 3}
  - {name: coil, type: rotational_spring, marker1: a/m, marker2: g/m, stiffness: 1,
     rest_angle_deg: 45}
)");
  const Model& m = in.model;
  BOOST_TEST(m.name == "planar");
  BOOST_TEST(m.dimension == 2);
  BOOST_TEST(m.nq_body == 3);
  test::checkClose(m.gravity, Vec3(0, -9.81, 0), 0.0, "gravity");
  BOOST_TEST(m.bodies.size() == 3u);
  BOOST_TEST(m.joints.size() == 4u);
  BOOST_TEST(m.nc == 2 + 1 + 2 + 3);

  const Body& a = body(m, "a");
  BOOST_TEST(a.inertia(2, 2) == 0.5);
  test::checkClose(a.position, Vec3(1, 2, 0), 0.0, "2D position");
  test::checkClose(a.velocity, Vec3(3, 4, 0), 0.0, "2D velocity");
  test::checkClose(a.angular_velocity, Vec3(0, 0, 5), 0.0, "2D angular velocity");
  test::checkClose(a.com, Vec3(0.1, 0, 0), 0.0, "2D com");
  checkRotation(a.orientation, Quat(Eigen::AngleAxisd(kPi / 2, Vec3::UnitZ())), "angle_deg 90");
  test::checkClose(a.orientation * Vec3::UnitX(), Vec3::UnitY(), 1e-15, "quarter turn");
  checkRotation(body(m, "b").orientation, Quat(Eigen::AngleAxisd(0.25, Vec3::UnitZ())),
                "orientation.angle");
  BOOST_TEST(body(m, "b").isPointMass());
  checkRotation(marker(m, "a/m").orientation, Quat(Eigen::AngleAxisd(0.1, Vec3::UnitZ())),
                "marker angle");
  checkRotation(marker(m, "b/m").orientation, Quat(Eigen::AngleAxisd(-kPi / 2, Vec3::UnitZ())),
                "marker orientation.angle_deg");

  BOOST_TEST(joint(m, "rod").type == JointType::kDistance);
  BOOST_TEST(joint(m, "rod").length.a == 2.0);
  BOOST_TEST(joint(m, "guide").mask == 0b110);
  BOOST_TEST(joint(m, "motor").motion.angle.kind == TimeFunction::Kind::kRamp);
  test::checkClose(m.loads[0].force, Vec3(1, 2, 0), 0.0, "2D force");
  test::checkClose(m.loads[0].torque, Vec3(0, 0, 3), 0.0, "2D torque");
  BOOST_TEST(std::abs(m.rotational_springs[0].rest_angle - kPi / 4) < 1e-15);
}

BOOST_AUTO_TEST_CASE(generators) {
  const LoadedInput chain = load(R"(gravity: [0, 0, -9.81]
generator: {type: catenary_chain, links: 8, end_b: [4, 0, 0], sag_point: [2, 0, -1]}
forces:
  - {name: pull, type: load, marker: link_7/end, force: [0, 0, -1]}
)");
  BOOST_TEST(chain.model.bodies.size() == 8u);
  BOOST_TEST(chain.model.joints.size() == 9u);
  BOOST_TEST(chain.model.loads.size() == 1u);
  test::checkClose(chain.model.gravity, Vec3(0, 0, -9.81), 0.0, "gravity");

  const std::string lattice = R"(dimension: 2
generator:
  type: four_bar_lattice
  levels: 1
  cells: 2
  merged_couplers: MERGED
  crank_angle_deg: 60
)";
  auto with = [&](const char* merged) {
    std::string text = lattice;
    text.replace(text.find("MERGED"), 6, merged);
    return load(text).model;
  };
  const Model unmerged = with("false");
  BOOST_TEST(unmerged.bodies.size() == 5u);
  BOOST_TEST(unmerged.joints.size() == 7u);
  checkRotation(body(unmerged, "crank_0_0").orientation,
                Quat(Eigen::AngleAxisd(kPi / 3, Vec3::UnitZ())), "crank_angle_deg");
  const Model merged = with("true");
  BOOST_TEST(merged.bodies.size() == 4u);
  BOOST_TEST(merged.joints.size() == 6u);

  // Per-level angles: level 1 stands on level 0's coupler, at its own angle.
  const Model levels = load(R"(dimension: 2
generator: {type: four_bar_lattice, levels: 2, cells: 2, merged_couplers: true,
            level_angles_deg: [0, 90], level_rates: [1, -2]}
)")
                           .model;
  checkRotation(body(levels, "crank_0_0").orientation, Quat::Identity(), "level 0 angle");
  checkRotation(body(levels, "crank_1_0").orientation,
                Quat(Eigen::AngleAxisd(kPi / 2, Vec3::UnitZ())), "level 1 angle");
  test::checkClose(body(levels, "crank_1_0").position, Vec3(1.0, 0.5, 0.0), 1e-15,
                   "level 1 crank centre");
  BOOST_TEST(body(levels, "crank_1_0").angular_velocity.z() == -2.0);
  checkError(
      "dimension: 2\ngenerator: {type: four_bar_lattice, levels: 2, level_angles: [0, 1, 2]}\n", 2,
      "level_angles");
}

BOOST_AUTO_TEST_CASE(name_defaults_to_the_file_stem) {
  BOOST_TEST(loadMechanismString("bodies: []", "some/dir/my_mech.yaml").model.name == "my_mech");
  BOOST_TEST(loadMechanismString("name: given", "some/dir/my_mech.yaml").model.name == "given");
  BOOST_TEST(loadMechanismString("bodies:", "<string>").model.name == "<string>");
}

BOOST_AUTO_TEST_CASE(non_unit_quaternion_is_normalized_with_a_warning) {
  const LoadedInput in = load(R"(bodies:
  - name: bob
    mass: 1
    inertia: [1, 1, 1]
    orientation: {quaternion: [0, 0, 0, 2]}
)");
  checkRotation(in.model.bodies[0].orientation, Quat(0, 0, 0, 1), "normalized");
  BOOST_REQUIRE(in.warnings.size() == 1u);
  BOOST_CHECK_MESSAGE(contains(in.warnings[0], "test.yaml:2:5: warning: "), in.warnings[0]);
  BOOST_CHECK_MESSAGE(contains(in.warnings[0], "normalized"), in.warnings[0]);
}

BOOST_AUTO_TEST_CASE(every_input_file_loads) {
  const fs::path folder = kRepo / "inputs";
  std::vector<fs::path> files;
  if (fs::is_directory(folder))
    for (const auto& entry : fs::directory_iterator(folder))
      if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  const fs::path seeds = kRepo / "tests" / "fuzz" / "seeds";
  for (const auto& entry : fs::directory_iterator(seeds))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  BOOST_TEST_MESSAGE(files.size() << " input files");
  for (const fs::path& file : files) {
    try {
      const LoadedInput in = loadMechanismFile(file.string());
      for (const std::string& w : in.warnings) BOOST_TEST_MESSAGE(w);
    } catch (const Error& e) {
      BOOST_ERROR(file.string() << ": " << e.what());
    }
  }
}

BOOST_AUTO_TEST_CASE(missing_file) {
  BOOST_CHECK_THROW(loadMechanismFile("/nonexistent/dir/file.yaml"), InputError);
}

// ---------------------------------------------------------------------------------------------
// Errors: each names the file and the line of the offending node, and says what is wrong.

BOOST_AUTO_TEST_CASE(yaml_syntax_errors) {
  checkError("bodies:\n  - name: a\n    mass: [1, 2\n", 4, "YAML syntax error");  // at the end
  checkError("name: a\n  bad indent: 1\n", 2, "YAML syntax error");
  checkError("name: a\ngravity: [1, 2]]\n", 2, "YAML syntax error: illegal flow end");
  checkError("bodies:\n  - name: a\n\tmass: 1\n", 3, "YAML syntax error: illegal tab");
  checkError("a:\n  - 1\n  b: 2\n", 3, "YAML syntax error: end of map not found");
  // yaml-cpp 0.7's LoadAll loops forever on these (found by the fuzzer).
  checkError(", 0\n", 1, "YAML syntax error: unexpected token");
  checkError("name: a\n...\n, 0\n", 3, "YAML syntax error: unexpected token");
  std::string nested = "a: ";
  nested.append(600, '[').append(600, ']') += "\n";
  checkError(nested, 1, "the YAML text nests more than");
}

BOOST_AUTO_TEST_CASE(empty_file_and_top_level_that_is_not_a_mapping) {
  checkError("", 1, "the file is empty");
  checkError("# only a comment\n", 1, "the file is empty");
  checkError("~\n", 1, "the file is empty");
  checkError("- bodies\n", 1, "the top level must be a mapping");
  checkError("just text\n", 1, "the top level must be a mapping");
  checkError("name: a\n---\nname: b\n", 2, "holds one YAML document; a second one starts here");
  BOOST_TEST(load("name: a\n---\n").model.name == "a");  // an empty second document is harmless
}

BOOST_AUTO_TEST_CASE(unknown_keys_at_every_level) {
  checkError("name: a\nbodys: []\n", 2, "unknown key 'bodys'; allowed keys: name, dimension");
  checkError(withBody("    mass: 1\n    inertia: [1, 1, 1]\n    mas: 2\n"), 5,
             "body 'bob': unknown key 'mas'; allowed keys: name, mass, inertia");
  checkError(withBody("    mass: 1\n    inertia: [1, 1, 1]\n    orientation: {axes: [1, 0, 0]}\n"),
             5, "unknown key 'axes' in orientation; allowed keys: angle, angle_deg, quaternion");
  checkError("markers:\n  - {name: m, body: ground, pos: [0, 0, 0]}\n", 2,
             "marker 'm': unknown key 'pos'");
  checkError(std::string(kTwoBodies) +
                 "joints:\n  - {name: j, type: fix, marker1: a/m, marker2: b/m, axis: 1}\n",
             9, "joint 'j': unknown key 'axis'");
  checkError(std::string(kTwoBodies) +
                 "joints:\n  - name: j\n    type: fix\n    marker1: a/m\n    marker2: b/m\n"
                 "    motion: {angle: 1, speed: 2}\n",
             13,
             "unknown key 'speed' in motion; allowed keys: angle, angle_deg, translation, axis");
  checkError(std::string(kTwoBodies) +
                 "forces:\n  - {name: f, type: load, marker: a/m,\n"
                 "     scale: {type: ramp, slope: 1, begin: 2}}\n",
             10, "unknown key 'begin' in scale; allowed keys: type, initial, slope, start");
  checkError(std::string(kTwoBodies) +
                 "forces:\n  - {name: s, type: spring, marker1: a/m, marker2: b/m, k: 1}\n",
             9, "spring 's': unknown key 'k'");
  checkError("generator:\n  type: catenary_chain\n  link: 4\n", 3,
             "generator: unknown key 'link'; allowed keys: type, links");
  checkError("analysis:\n  type: check\n  steps: 10\n", 3,
             "analysis: unknown key 'steps'; allowed keys: type");
}

BOOST_AUTO_TEST_CASE(duplicate_keys) {
  checkError("name: a\ndimension: 3\nname: b\n", 3, "duplicate key 'name'");
  checkError(withBody("    mass: 1\n    inertia: [1, 1, 1]\n    mass: 2\n"), 5,
             "body 'bob': duplicate key 'mass'");
  checkError(
      withBody("    mass: 1\n    inertia: [1, 1, 1]\n    orientation: {angle: 1, angle: 2}\n"), 5,
      "duplicate key 'angle'");
}

BOOST_AUTO_TEST_CASE(wrong_node_types) {
  checkError(withBody("    mass: [1, 2]\n    inertia: [1, 1, 1]\n"), 3,
             "body 'bob': mass must be a number, got a sequence of 2 entries");
  checkError(withBody("    mass: 1\n    inertia: [1, 1, 1]\n    position: {x: 1}\n"), 5,
             "position must be a sequence of 3 numbers, got a mapping");
  checkError("bodies: {name: a}\n", 1, "bodies must be a sequence");
  checkError("bodies:\n  - just a name\n", 2, "body #1 must be a mapping");
  checkError("gravity: 9.81\n", 1, "gravity must be a sequence of 3 numbers");
  checkError(withBody("    mass:\n    inertia: [1, 1, 1]\n"), 3,  // at the key, not the next line
             "mass must be a number, got nothing");
  checkError("generator: {type: four_bar_lattice, merged_couplers: yes}\ndimension: 2\n", 1,
             "merged_couplers must be true or false");
  checkError("generator: {type: catenary_chain, links: 2.5}\n", 1, "links must be an integer");
  checkError("name: [a]\n", 1, "name must be a string");
  checkError("{[a]: 1}\n", 1, "keys must be plain names");
}

BOOST_AUTO_TEST_CASE(wrong_vector_lengths) {
  checkError(withBody("    mass: 1\n    inertia: [1, 1, 1]\n    position: [1, 2]\n"), 5,
             "position must have 3 numbers, got 2");
  checkError("dimension: 2\ngravity: [0, -9.81, 0]\n", 2, "gravity must have 2 numbers, got 3");
  checkError(withBody("    mass: 1\n    inertia: [1, 1, 1, 0]\n"), 4,
             "inertia must be [Ixx, Iyy, Izz], [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] or a 3x3 matrix");
  checkError(withBody("    mass: 1\n    inertia: [[1, 0, 0], [0, 1], [0, 0, 1]]\n"), 4,
             "inertia[1] must have 3 numbers");
  checkError(withBody("    mass: 1\n    inertia: [1, 1, 1]\n"
                      "    orientation: {quaternion: [1, 0, 0]}\n"),
             5, "orientation.quaternion must have 4 numbers, got 3");
  checkError(
      std::string(kTwoBodies) +
          "joints:\n  - {name: j, type: lock, mask: [1, 1, 1], marker1: a/m, marker2: b/m}\n",
      9, "mask must be a sequence of 6 entries 0 or 1");
  checkError(std::string(kTwoBodies) +
                 "joints:\n  - {name: j, type: fix, marker1: a/m, marker2: b/m,\n"
                 "     motion: {translation: [0, 0]}}\n",
             10, "motion.translation must be a sequence of 3 time functions");
  checkError(std::string(kTwoBodies) +
                 "forces:\n  - {name: f, type: load, marker: a/m,\n"
                 "     scale: {type: polynomial, coefficients: [1, 2, 3, 4, 5, 6, 7, 8, 9]}}\n",
             10, "coefficients must be a sequence of 1 to 8 numbers");
}

BOOST_AUTO_TEST_CASE(non_numeric_strings) {
  checkError(withBody("    mass: heavy\n    inertia: [1, 1, 1]\n"), 3,
             "body 'bob': mass must be a number, got 'heavy'");
  checkError(withBody("    mass: \"15\"\n    inertia: [1, 1, 1]\n"), 3,
             "mass must be a number, got '15'");
  checkError(withBody("    mass: 1\n    inertia: [1, 1, 1]\n    position: [0, 1x, 0]\n"), 5,
             "position[1] must be a number, got '1x'");
  checkError(withBody("    mass: 1e999\n    inertia: [1, 1, 1]\n"), 3, "out of the range");
  checkError(std::string(kTwoBodies) +
                 "joints:\n  - {name: j, type: lock, mask: [1, 1, 2, 0, 0, 0], marker1: a/m, "
                 "marker2: b/m}\n",
             9, "mask[2] must be between 0 and 1, got '2'");
}

BOOST_AUTO_TEST_CASE(nan_and_inf) {
  checkError(withBody("    mass: .nan\n    inertia: [1, 1, 1]\n"), 3,
             "mass must be a finite number, got '.nan'");
  checkError(withBody("    mass: 1\n    inertia: [1, 1, 1]\n    velocity: [0, -.inf, 0]\n"), 5,
             "velocity[1] must be a finite number, got '-.inf'");
  checkError(withBody("    mass: 1\n    inertia: [1, .Inf, 1]\n"), 4, "must be a finite number");
  checkError(withBody("    mass: nan\n    inertia: [1, 1, 1]\n"), 3, "must be a finite number");
  checkError("gravity: [0, 0, +.INF]\n", 1, "gravity[2] must be a finite number");
}

BOOST_AUTO_TEST_CASE(unknown_joint_force_generator_and_analysis_types) {
  checkError(
      std::string(kTwoBodies) + "joints:\n  - {name: j, type: hinge, marker1: a/m, marker2: b/m}\n",
      9, "joint 'j': unknown joint type 'hinge' in 3D; valid types: fix, revolute, spherical");
  checkError(R"(dimension: 2
bodies:
  - {name: a, mass: 1, inertia: 1}
markers:
  - {name: a/m, body: a}
  - {name: g, body: ground}
joints:
  - name: j
    type: spherical
    marker1: a/m
    marker2: g
)",
             9, "unknown joint type 'spherical' in 2D; valid types: fix, revolute, prismatic");
  checkError(std::string(kTwoBodies) + "forces:\n  - {name: f, type: gravity, marker: a/m}\n", 9,
             "force 'f': unknown force type 'gravity'; valid types: load, spring");
  checkError(
      "generator:\n  type: tree\n", 2,
      "unknown generator type 'tree'; valid types: catenary_chain, node_chain, four_bar_lattice");
  checkError("analysis: {type: dynamics}\n", 1,
             "unknown analysis type 'dynamics'; valid types: check, statics, modal, simulate");
  checkError(std::string(kTwoBodies) +
                 "forces:\n  - {name: f, type: load, marker: a/m, scale: {type: step}}\n",
             9, "unknown time function type 'step' in scale");
}

BOOST_AUTO_TEST_CASE(missing_required_keys) {
  checkError("bodies:\n  - mass: 1\n    inertia: [1, 1, 1]\n", 2,
             "body #1: missing required key 'name'");
  checkError(withBody("    inertia: [1, 1, 1]\n"), 2, "body 'bob': missing required key 'mass'");
  checkError(withBody("    mass: 1\n"), 2, "body 'bob': missing required key 'inertia'");
  checkError("markers:\n  - name: m\n", 2, "marker 'm': missing required key 'body'");
  checkError(std::string(kTwoBodies) + "joints:\n  - {name: j, marker1: a/m, marker2: b/m}\n", 9,
             "joint 'j': missing required key 'type'");
  checkError(std::string(kTwoBodies) + "joints:\n  - {name: j, type: fix, marker2: b/m}\n", 9,
             "joint 'j': missing required key 'marker1'");
  checkError(std::string(kTwoBodies) +
                 "joints:\n  - {name: j, type: lock, marker1: a/m, "
                 "marker2: b/m}\n",
             9, "a lock joint needs a mask");
  checkError(std::string(kTwoBodies) +
                 "forces:\n  - {name: s, type: spring, marker1: a/m, "
                 "marker2: b/m}\n",
             9, "spring 's': missing required key 'stiffness'");
  checkError("generator: {links: 4}\n", 1, "generator: missing required key 'type'");
  checkError(withBody("    mass: 1\n    inertia: [1, 1, 1]\n"
                      "    orientation:\n      axis: [0, 0, 1]\n"),
             6, "orientation.axis needs orientation.angle");
}

BOOST_AUTO_TEST_CASE(references_to_missing_bodies_and_markers) {
  checkError("markers:\n  - name: m\n    body: nobody\n", 3,
             "marker 'm': body 'nobody' does not exist");
  checkError(std::string(kTwoBodies) +
                 "joints:\n  - name: hinge\n    type: revolute\n    marker1: a/m\n"
                 "    marker2: x\n",
             12, "joint 'hinge': marker2 'x' does not exist");
  checkError(std::string(kTwoBodies) + "forces:\n  - {name: f, type: load, marker: nowhere}\n", 9,
             "load 'f': marker 'nowhere' does not exist");
}

BOOST_AUTO_TEST_CASE(builder_errors_point_at_the_element) {
  // Duplicate names, bad masses and inertias, self-connections, motions on free rows: the
  // ModelBuilder's sentences at the line of the element.
  checkError(
      "bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1]}\n"
      "  - {name: a, mass: 1, inertia: [1, 1, 1]}\n",
      3, "duplicate body name 'a'");
  checkError(withBody("    mass: -1\n    inertia: [1, 1, 1]\n"), 2,
             "body 'bob': mass must be positive and finite, got -1 kg");
  checkError(withBody("    mass: 0\n    inertia: [1, 1, 1]\n"), 2, "mass must be positive");
  checkError(withBody("    mass: 1\n    inertia: [1, -1, 1]\n"), 2, "positive definite");
  checkError(withBody("    mass: 1\n    inertia: [1, 1, 5]\n"), 2, "triangle inequality");
  checkError(withBody("    mass: 1\n    inertia: [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]\n"), 2,
             "must be symmetric");
  checkError(std::string(kTwoBodies) +
                 "  - {name: a/n, body: a}\n"
                 "joints:\n  - {name: j, type: fix, marker1: a/m, marker2: a/n}\n",
             10, "joint 'j' connects body 'a' to itself");
  checkError(std::string(kTwoBodies) +
                 "joints:\n  - {name: j, type: spherical, marker1: a/m, marker2: b/m,\n"
                 "     motion: {angle: 1}}\n",
             9, "the motion prescribes a rotation but the joint leaves all rotations free");
  checkError("dimension: 2\nbodies:\n  - {name: a, mass: 1, inertia: -1}\n", 3,
             "inertia Izz must be >= 0");
  checkError("bodies:\n  - {name: ground, mass: 1, inertia: [1, 1, 1]}\n", 2,
             "'ground' is reserved");
}

BOOST_AUTO_TEST_CASE(dimension_must_be_2_or_3) {
  checkError("name: a\ndimension: 4\n", 2, "dimension must be 2 (planar) or 3 (spatial), got 4");
  checkError("dimension: 2.5\n", 1, "dimension must be an integer");
  checkError("dimension: 99999999999999999999999\n", 1,
             "dimension is out of the range of an integer");
}

BOOST_AUTO_TEST_CASE(keys_of_the_other_dimension) {
  checkError(withBody("    mass: 1\n    inertia: [1, 1, 1]\n    angle: 0.5\n"), 5,
             "key 'angle' is only valid in 2D models");
  checkError(
      "dimension: 2\nbodies:\n  - {name: a, mass: 1, inertia: 1,\n"
      "     orientation: {quaternion: [1, 0, 0, 0]}}\n",
      4, "key 'quaternion' in orientation is only valid in 3D models");
  checkError("dimension: 2\nbodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1]}\n", 3,
             "inertia must be a number");
  checkError(std::string(kTwoBodies) +
                 "joints:\n  - {name: j, type: fix, marker1: a/m, marker2: b/m, length: 1}\n",
             9, "key 'length' is only valid in 2D models");
  checkError(R"(dimension: 2
bodies:
  - {name: a, mass: 1, inertia: 1}
markers:
  - {name: a/m, body: a}
  - {name: g, body: ground}
joints:
  - name: j
    type: fix
    marker1: a/m
    marker2: g
    motion: {angle: 1, axis: [0, 0, 1]}
)",
             12, "key 'axis' in motion is only valid in 3D models");
  checkError("dimension: 2\ngenerator: {type: node_chain}\n", 2,
             "node_chain builds a spatial model; it needs dimension: 3");
  checkError("dimension: 2\ngenerator: {type: catenary_chain}\n", 2,
             "catenary_chain builds a spatial model; it needs dimension: 3");
}

BOOST_AUTO_TEST_CASE(generator_size_limits) {
  LoaderLimits small;
  small.max_generated_bodies = 100;
  checkError("generator:\n  type: catenary_chain\n  links: 102\n", 3,
             "102 links exceed the loader's limit of 100 generated bodies", small);
  checkError("dimension: 2\ngenerator:\n  type: four_bar_lattice\n  levels: 10\n  cells: 10\n", 5,
             "10 levels of 21 bodies each exceed the loader's limit of 100", small);
  // Products that would overflow an int (or a long long) are refused before multiplying.
  checkError(
      "dimension: 2\ngenerator:\n  type: four_bar_lattice\n  levels: 2147483647\n"
      "  cells: 2147483647\n",
      5, "2147483647 levels of 4294967295 bodies each exceed the loader's limit");
  checkError("generator: {type: catenary_chain, links: 2147483648}\n", 1,
             "links must be between 1 and 2147483647");
  checkError("generator: {type: catenary_chain, links: -4}\n", 1, "links must be between 1");
  // The generator's own checks come at the generator's line.
  checkError("generator:\n  type: catenary_chain\n  links: 5\n", 2, "even number of links");
  BOOST_TEST(load("generator: {type: catenary_chain, links: 100}\n", small).model.bodies.size() ==
             100u);
}

BOOST_AUTO_TEST_CASE(fixed_coordinates) {
  const LoadedInput in = load(
      "bodies:\n"
      "  - {name: a, mass: 1, inertia: [1, 1, 1], fixed: [z, rx]}\n"
      "  - {name: b, mass: 1, inertia: [1, 1, 1]}\n");
  BOOST_TEST(in.model.bodies[0].fixed == 0b001100);
  BOOST_TEST(in.model.bodies[1].fixed == 0);
  const LoadedInput planar = load(
      "dimension: 2\n"
      "bodies:\n"
      "  - {name: a, mass: 1, inertia: 1, fixed: [theta]}\n");
  BOOST_TEST(planar.model.bodies[0].fixed == 0b100);
  checkError("bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1], fixed: [theta]}\n", 2,
             "unknown coordinate 'theta'");
}

// ---------------------------------------------------------------------------------------------
// Element by element (io/element_loader.hpp, what catena.Builder calls): the loader's readers

BOOST_AUTO_TEST_CASE(element_loader_builds_the_file_model) {
  const LoadedInput file = load(std::string("gravity: [0, 0, -9.81]\n") + kTwoBodies +
                                "joints:\n  - {name: hinge, type: revolute, marker1: a/m, "
                                "marker2: g/m}\n");
  ElementLoader loader(3, "test");
  loader.add("gravity", "g", "[0, 0, -9.81]");
  loader.add("body", "a", R"({"name": "a", "mass": 1, "inertia": [1, 1, 1]})");
  loader.add("body", "b", "{name: b, mass: 1, inertia: [1, 1, 1]}");  // YAML flow works too
  loader.add("marker", "m", "{name: a/m, body: a}");
  loader.add("marker", "m", "{name: b/m, body: b}");
  loader.add("marker", "m", "{name: g/m, body: ground}");
  loader.add("joint", "j", "{name: hinge, type: revolute, marker1: a/m, marker2: g/m}");
  const LoadedInput built = loader.finalize();
  BOOST_TEST(built.model.nq == file.model.nq);
  BOOST_TEST(built.model.nc == file.model.nc);
  BOOST_TEST(built.model.gravity == file.model.gravity);
  BOOST_TEST(built.model.rowName(4) == file.model.rowName(4));
}

BOOST_AUTO_TEST_CASE(element_loader_messages_name_the_caller) {
  ElementLoader loader(3, "test");
  const auto message = [&](const std::string& kind, const std::string& text) -> std::string {
    try {
      loader.add(kind, "Builder.add_x('q')", text);
    } catch (const InputError& e) {
      BOOST_TEST(e.line() == 0);
      BOOST_TEST(e.file() == "Builder.add_x('q')");
      return e.what();
    }
    BOOST_ERROR("no error for " << text);
    return "";
  };
  // The sentence is the file's, after "Builder.add_x('q'): error: " in place of FILE:LINE:COL.
  BOOST_TEST(message("body", "{name: a, mass: -1, inertia: [1, 1, 1]}") ==
             "Builder.add_x('q'): error: body 'a': mass must be positive and finite, got -1 kg");
  BOOST_TEST(contains(message("joint", "{name: j, type: revolute, marker1: x, marker2: y}"),
                      "Builder.add_x('q'): error: joint 'j': marker1 'x' does not exist"));
  BOOST_TEST(contains(message("body", "[1, 2]"), "error: body #1"));  // unnamed: its number
  BOOST_TEST(contains(message("generator", "{type: catenary_chain, links: 3}"), "even"));
  try {
    ElementLoader bad(4, "test", "Builder");
    BOOST_ERROR("dimension 4 accepted");
  } catch (const InputError& e) {
    BOOST_TEST(std::string(e.what()) ==
               "Builder: error: top level: dimension must be 2 (planar) or 3 (spatial), got 4");
  }
}

BOOST_AUTO_TEST_CASE(element_loader_is_spent_after_finalize_or_a_partial_failure) {
  ElementLoader done(3, "test");
  done.add("body", "a", "{name: a, mass: 1, inertia: [1, 1, 1]}");
  BOOST_TEST(done.finalize().model.bodies.size() == 1u);
  BOOST_CHECK_THROW(done.add("body", "b", "{name: b, mass: 1, inertia: [1, 1, 1]}"), Error);
  BOOST_CHECK_THROW(done.finalize(), Error);
  // A generator that meets a taken name after adding links can not take them back.
  ElementLoader partial(3, "test");
  partial.add("body", "a", "{name: link_3, mass: 1, inertia: [1, 1, 1]}");
  BOOST_CHECK_THROW(partial.add("generator", "chain", "{type: catenary_chain, links: 8}"),
                    InputError);
  try {
    partial.finalize("build");
    BOOST_ERROR("a partly built generator was accepted");
  } catch (const InputError&) {
    BOOST_ERROR("spent is not an input error");
  } catch (const Error& e) {
    BOOST_TEST(contains(e.what(), "an earlier call, chain, failed after adding part"));
  }
  // A check that fails before anything is added leaves the loader usable.
  ElementLoader fresh(3, "test");
  BOOST_CHECK_THROW(fresh.add("generator", "chain", "{type: catenary_chain, links: 7}"),
                    InputError);
  fresh.add("generator", "chain", "{type: catenary_chain, links: 8}");
  BOOST_TEST(fresh.finalize().model.bodies.size() == 8u);
}
