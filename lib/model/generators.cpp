#include "model/generators.hpp"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/check.hpp"
#include "model/generator_support.hpp"

namespace catena {
namespace {

using generator_support::joint;
using generator_support::marker;

}  // namespace

void addCatenaryChain(ModelBuilder& b, const CatenaryChainOptions& o) {
  addCatenaryChainPart(b, o, 0, o.links);
}

void addCatenaryChainPart(ModelBuilder& b, const CatenaryChainOptions& o, int first, int last,
                          bool halo) {
  CATENA_CHECK(b.dimension() == 3, "the catenary chain is a spatial (3D) model");
  CATENA_CHECK(o.links >= 2 && o.links % 2 == 0,
               "a catenary chain needs an even number of links >= 2 (N/2 per leg of the 'V'), got "
                   << o.links);
  CATENA_CHECK(o.mass_per_length > 0.0 && o.radius > 0.0,
               "a catenary chain needs positive mass per length and radius");
  CATENA_CHECK(0 <= first && first < last && last <= o.links,
               "a part of a catenary chain of "
                   << o.links << " links needs 0 <= first < last <= " << o.links << ", got ["
                   << first << ", " << last << ")");
  const int half = o.links / 2;
  const Vec3 legs[2][2] = {{o.end_a, o.sag_point}, {o.sag_point, o.end_b}};
  for (const auto& leg : legs)
    CATENA_CHECK((leg[1] - leg[0]).norm() > 0.0, "the sag point coincides with an end point");

  // Every link's frame: x along the link, y along the normal of the plane of the 'V', so that
  // the relative rotation of two neighbours is a pure swing about y, without twist, in any
  // plane. (Each link's minimal rotation from x, used before, has that property only when the
  // plane holds the x axis: a chain hung in the y-z plane started twisted, and its frequencies
  // differed from the x-z plane's by up to 26 %.) A straight chain (no plane): minimal rotation.
  const Vec3 normal = (o.end_b - o.end_a).cross(o.sag_point - o.end_a);
  auto linkFrame = [&](const Vec3& span) {
    const Vec3 x = span.normalized();
    const Vec3 y = normal - normal.dot(x) * x;
    if (!(y.norm() > 1e-12 * normal.norm()) || normal.norm() == 0.0)
      return Quat::FromTwoVectors(Vec3::UnitX(), span);
    Mat3 R;
    R.col(0) = x;
    R.col(1) = y.normalized();
    R.col(2) = x.cross(R.col(1));
    return Quat(R);
  };
  // Ground marker at A aligned with the first link, so the twist lock starts satisfied.
  Index ground_a = -1, ground_b = -1;
  if (first == 0) {
    Marker at_a = marker("ground/a", kGround, o.end_a);
    at_a.orientation = linkFrame(o.sag_point - o.end_a);
    ground_a = b.addMarker(std::move(at_a));
  }
  if (last == o.links) ground_b = b.addMarker(marker("ground/b", kGround, o.end_b));
  // Link k with its markers "start" and "end"; returns the two marker indices.
  auto addLink = [&](int k) {
    const auto& leg = legs[k < half ? 0 : 1];
    const int i = k % half;
    const Vec3 span = (leg[1] - leg[0]) / half;
    const double length = span.norm();
    const double m = o.mass_per_length * length, r = o.radius;
    Body link;
    link.name = "link_" + std::to_string(k);
    link.mass = m;
    link.inertia = Vec3(0.5 * m * r * r, m * (3 * r * r + length * length) / 12.0,
                        m * (3 * r * r + length * length) / 12.0)
                       .asDiagonal();
    link.position = leg[0] + (i + 0.5) * span;
    link.orientation = linkFrame(span);
    const Index body = b.addBody(std::move(link));
    const Index start = b.addMarker(
        marker("link_" + std::to_string(k) + "/start", body, Vec3(-0.5 * length, 0, 0)));
    const Index end =
        b.addMarker(marker("link_" + std::to_string(k) + "/end", body, Vec3(0.5 * length, 0, 0)));
    return std::pair<Index, Index>(start, end);
  };
  // Owned links first, then the ghost link first - 1 (whose end joint `first` holds), so a
  // part's local body order is the one of parallel/distributed_model.hpp.
  std::vector<std::pair<Index, Index>> link_markers;
  for (int k = first; k < last; ++k) link_markers.push_back(addLink(k));
  const Index ghost_end = first > 0 ? addLink(first - 1).second : -1;
  // The halo's other ghost, link `last`, holds joint `last` on the last owned link.
  const Index ghost_start = halo && last < o.links ? addLink(last).first : -1;
  for (int k = first; k < last; ++k) {
    const Index start = link_markers[k - first].first;
    if (k == 0)
      b.addJoint(joint("end_a", JointType::kUniversal, start, ground_a));
    else
      b.addJoint(joint("joint_" + std::to_string(k), JointType::kUniversal, start,
                       k == first ? ghost_end : link_markers[k - first - 1].second));
  }
  if (last == o.links)
    b.addJoint(joint("end_b", JointType::kSpherical, link_markers.back().second, ground_b));
  else if (halo)
    b.addJoint(joint("joint_" + std::to_string(last), JointType::kUniversal, ghost_start,
                     link_markers.back().second));
}

ModelPart buildCatenaryChainPart(const CatenaryChainOptions& options, int rank, int size,
                                 bool halo) {
  CATENA_CHECK(size >= 1 && rank >= 0 && rank < size,
               "a model part needs 0 <= rank < size, got rank " << rank << " of " << size);
  CATENA_CHECK(options.links >= size, "a catenary chain of " << options.links
                                                             << " links cannot give a link to "
                                                                "each of "
                                                             << size << " ranks");
  const auto [first, last] = contiguousRange(options.links, rank, size);
  ModelBuilder b(3, "catenary_chain");
  b.setGravity(Vec3(0.0, 0.0, -9.81));
  addCatenaryChainPart(b, options, static_cast<int>(first), static_cast<int>(last));
  ModelPart part;
  part.model = b.finalize();
  part.owned_bodies = last - first;
  part.first_body = first;
  if (first > 0) part.ghost_bodies.push_back(first - 1);
  part.first_joint = first;  // joint k (k < N) is held by link k; end_b (joint N) by link N - 1
  part.global_bodies = options.links;
  part.global_joints = options.links + 1;
  if (halo) {
    ModelBuilder h(3, "catenary_chain");
    h.setGravity(Vec3(0.0, 0.0, -9.81));
    addCatenaryChainPart(h, options, static_cast<int>(first), static_cast<int>(last), true);
    part.halo.model = h.finalize();
    part.halo.ghost_bodies = part.ghost_bodies;
    for (Index j = first; j < last; ++j) part.halo.joints.push_back(j);
    if (last == options.links) part.halo.joints.push_back(options.links);  // end_b, owned
    if (last < options.links) {
      part.halo.ghost_bodies.push_back(last);
      part.halo.joints.push_back(last);  // held by the ghost link `last`
    }
  }
  return part;
}

void addNodeChain(ModelBuilder& b, const NodeChainOptions& o) {
  CATENA_CHECK(b.dimension() == 3, "the node chain is a spatial (3D) model");
  CATENA_CHECK(o.nodes_per_leg >= 1, "a node chain needs at least 1 node per leg");
  CATENA_CHECK(o.node_mass > 0.0 && o.node_inertia > 0.0,
               "a node chain needs positive node mass and inertia");
  const Vec3 ac = o.sag_point - o.end_a, cb = o.end_b - o.sag_point;
  CATENA_CHECK(ac.norm() > 0.0 && cb.norm() > 0.0, "the sag point coincides with an end point");
  const int K = o.nodes_per_leg, count = 2 * K + 3;
  std::vector<Vec3> at(count);
  std::vector<Quat> frame(count);
  for (int k = 0; k <= K + 1; ++k) {
    at[k] = o.end_a + (static_cast<double>(k) / (K + 1)) * ac;
    frame[k] = Quat::FromTwoVectors(Vec3::UnitX(), ac);
  }
  for (int k = 1; k <= K + 1; ++k) {
    at[K + 1 + k] = o.sag_point + (static_cast<double>(k) / (K + 1)) * cb;
    frame[K + 1 + k] = Quat::FromTwoVectors(Vec3::UnitX(), cb);
  }
  // The demo turns the end nodes by +-45 degrees about y and leaves the middle node unturned.
  frame[0] = Quat(Eigen::AngleAxisd(M_PI / 4, Vec3::UnitY()));
  frame[K + 1] = Quat::Identity();
  frame[count - 1] = Quat(Eigen::AngleAxisd(-M_PI / 4, Vec3::UnitY()));
  std::vector<Index> body(count);
  for (int k = 0; k < count; ++k) {
    Body n;
    n.name = "node_" + std::to_string(k);
    n.mass = o.node_mass;
    n.inertia = o.node_inertia * Mat3::Identity();
    n.position = at[k];
    n.orientation = frame[k];
    body[k] = b.addBody(std::move(n));
  }
  // Hinges about the world y axis: marker x axes along y, the same orientation in the world.
  const Quat x_to_y = Quat::FromTwoVectors(Vec3::UnitX(), Vec3::UnitY());
  auto hinge = [&](const std::string& name, int k, const Vec3& point) {
    Marker on_node = marker(name + "/node", body[k], Vec3::Zero());
    on_node.orientation = frame[k].conjugate() * x_to_y;
    Marker on_ground = marker(name + "/ground", kGround, point);
    on_ground.orientation = x_to_y;
    b.addJoint(joint(name, JointType::kRevolute, b.addMarker(std::move(on_node)),
                     b.addMarker(std::move(on_ground))));
  };
  hinge("end_a", 0, o.end_a);
  // As in the authors' demo, the joint points sit at +-h along the bodies' own x axes, with h
  // half the distance between the two nodes; for the end and middle nodes, whose x axes are not
  // along a segment, the initial 'V' is therefore not assembled (statics assembles it).
  for (int k = 1; k < count; ++k) {
    const double h = 0.5 * (at[k] - at[k - 1]).norm();
    const std::string name = "joint_" + std::to_string(k);
    const Index m1 = b.addMarker(marker(name + "/next", body[k], Vec3(-h, 0, 0)));
    const Index m2 = b.addMarker(marker(name + "/prev", body[k - 1], Vec3(h, 0, 0)));
    b.addJoint(joint(name, JointType::kUniversal, m1, m2));
  }
  hinge("end_b", count - 1, o.end_b);
}

Model buildCatenaryChain(const CatenaryChainOptions& options) {
  ModelBuilder b(3, "catenary_chain");
  b.setGravity(Vec3(0.0, 0.0, -9.81));
  addCatenaryChain(b, options);
  return b.finalize();
}

}  // namespace catena
