#include "model/model_builder.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>

#include "core/check.hpp"

namespace catena {
namespace {

bool finite(const Vec3& v) {
  return v.allFinite();
}

std::string vec(const Vec3& v) {
  std::ostringstream os;
  os << "[" << v.x() << ", " << v.y() << ", " << v.z() << "]";
  return os.str();
}

void checkFiniteQuat(const std::string& what, const Quat& q) {
  CATENA_CHECK(q.coeffs().allFinite(), what << " has a non-finite orientation");
  CATENA_CHECK(q.norm() > 1e-12, what << " has a zero quaternion as orientation");
}

/// Returns the normalized quaternion; warns when it was not unit.
Quat normalized(ModelBuilder& b, const std::string& what, const Quat& q) {
  checkFiniteQuat(what, q);
  const double n = q.norm();
  if (std::abs(n - 1.0) > 1e-12) {
    std::ostringstream os;
    os << what << ": quaternion of norm " << n << " was normalized";
    b.warn(os.str());
  }
  return q.normalized();
}

}  // namespace

ModelBuilder::ModelBuilder(int dimension, std::string name) {
  CATENA_CHECK(dimension == 2 || dimension == 3,
               "dimension must be 2 (planar) or 3 (spatial), got " << dimension);
  model_.dimension = dimension;
  model_.name = std::move(name);
  model_.nq_body = dimension == 3 ? 7 : 3;
  model_.nv_body = dimension == 3 ? 6 : 3;
  model_.rows_per_joint = dimension == 3 ? 6 : 3;
}

Index ModelBuilder::findBody(const std::string& name) const {
  if (name == "ground") return kGround;
  auto it = body_names_.find(name);
  return it == body_names_.end() ? -2 : it->second;
}

Index ModelBuilder::findMarker(const std::string& name) const {
  auto it = marker_names_.find(name);
  return it == marker_names_.end() ? -2 : it->second;
}

void ModelBuilder::setGravity(const Vec3& g) {
  CATENA_CHECK(finite(g), "gravity must be finite, got " << vec(g));
  CATENA_CHECK(model_.dimension == 3 || g.z() == 0.0,
               "a planar model has gravity in its x-y plane; got z component " << g.z());
  model_.gravity = g;
}

void ModelBuilder::claimName(NameMap& names, const std::string& kind, const std::string& name,
                             Index index) {
  CATENA_CHECK(!name.empty(), "a " << kind << " needs a non-empty name");
  CATENA_CHECK(kind != "body" || name != "ground",
               "'ground' is reserved for the fixed world frame; choose another body name");
  const auto [it, inserted] = names.emplace(name, index);
  CATENA_CHECK(inserted, "duplicate " << kind << " name '" << name << "' (" << kind << " "
                                      << it->second << " already has it)");
}

void ModelBuilder::checkMarkers(const std::string& what, Index marker1, Index marker2) const {
  checkMarker(what + " (marker1)", marker1);
  checkMarker(what + " (marker2)", marker2);
}

template <typename T>
Index ModelBuilder::append(NameMap& names, const std::string& kind, std::vector<T>& items, T item) {
  const Index index = static_cast<Index>(items.size());
  claimName(names, kind, item.name, index);
  items.push_back(std::move(item));
  return index;
}

Index ModelBuilder::addBody(Body b) {
  const std::string what = "body '" + b.name + "'";
  CATENA_CHECK(std::isfinite(b.mass) && b.mass > 0.0,
               what << ": mass must be positive and finite, got " << b.mass << " kg");
  CATENA_CHECK(b.mass >= kSmallestMass && b.mass <= kLargestMass,
               what << ": mass " << b.mass << " kg is outside [" << kSmallestMass << ", "
                    << kLargestMass
                    << "] kg, where the products of masses, lengths and accelerations in SI "
                       "lose their precision; choose units that bring it inside");
  CATENA_CHECK(finite(b.com), what << ": centre of mass must be finite, got " << vec(b.com));
  CATENA_CHECK(b.inertia.allFinite(), what << ": inertia must be finite");
  CATENA_CHECK(finite(b.position) && finite(b.velocity) && finite(b.angular_velocity),
               what << ": initial position and velocities must be finite");
  if (model_.dimension == 2) {
    CATENA_CHECK(b.com.z() == 0.0 && b.position.z() == 0.0 && b.velocity.z() == 0.0,
                 what << ": a planar body has no z coordinate");
    const double izz = b.inertia(2, 2);
    CATENA_CHECK(izz >= 0.0,
                 what << ": inertia Izz must be >= 0 (0: point mass), got " << izz << " kg m^2");
  } else if (!b.isPointMass()) {
    const double asym = (b.inertia - b.inertia.transpose()).cwiseAbs().maxCoeff();
    CATENA_CHECK(asym <= 1e-12 * b.inertia.cwiseAbs().maxCoeff(),
                 what << ": inertia tensor must be symmetric (largest asymmetry " << asym << ")");
    Eigen::SelfAdjointEigenSolver<Mat3> es(b.inertia);
    const Vec3 p = es.eigenvalues();  // ascending principal moments
    CATENA_CHECK(p(0) > 0.0, what << ": inertia tensor must be positive definite (principal "
                                     "moments "
                                  << vec(p) << " kg m^2); use all zeros for a point mass");
    CATENA_CHECK(p(0) + p(1) >= p(2) * (1.0 - 1e-12),
                 what << ": principal moments " << vec(p)
                      << " kg m^2 violate the triangle inequality (no rigid body has them)");
  }
  b.orientation = normalized(*this, what, b.orientation);
  if (model_.dimension == 2) {
    const Vec3 axis = b.orientation.vec();
    CATENA_CHECK(std::abs(axis.x()) < 1e-12 && std::abs(axis.y()) < 1e-12,
                 what << ": a planar body can only rotate about z");
  }
  return append(body_names_, "body", model_.bodies, std::move(b));
}

void ModelBuilder::checkMarker(const std::string& what, Index marker) const {
  CATENA_CHECK(marker >= 0 && marker < static_cast<Index>(model_.markers.size()),
               what << " refers to marker index " << marker << ", which does not exist");
}

Index ModelBuilder::addMarker(Marker m) {
  const std::string what = "marker '" + m.name + "'";
  CATENA_CHECK(m.body == kGround || (m.body >= 0 && m.body < Index(model_.bodies.size())),
               what << " is on body index " << m.body << ", which does not exist");
  CATENA_CHECK(finite(m.position), what << ": position must be finite");
  CATENA_CHECK(model_.dimension == 3 || m.position.z() == 0.0,
               what << ": a planar marker has no z coordinate");
  m.orientation = normalized(*this, what, m.orientation);
  if (model_.dimension == 2) {
    CATENA_CHECK(std::abs(m.orientation.x()) < 1e-12 && std::abs(m.orientation.y()) < 1e-12,
                 what << ": a planar marker can only rotate about z");
  }
  return append(marker_names_, "marker", model_.markers, std::move(m));
}

Index ModelBuilder::addJoint(Joint j) {
  const std::string what = "joint '" + j.name + "'";
  checkMarkers(what, j.marker1, j.marker2);
  const Index b1 = model_.markers[j.marker1].body, b2 = model_.markers[j.marker2].body;
  CATENA_CHECK(b1 != b2, what << " connects body '"
                              << (b1 == kGround ? "ground" : model_.bodies[b1].name)
                              << "' to itself (marker1 and marker2 are on the same body)");
  const int dim = model_.dimension;
  if (j.type != JointType::kLock) {
    const auto mask = defaultMask(j.type, dim);
    CATENA_CHECK(mask.has_value(), what << ": type '" << jointTypeName(j.type)
                                        << "' does not exist in " << dim
                                        << "D; valid types: " << jointTypeNames(dim));
    j.mask = *mask;
  }
  const int rows = model_.rows_per_joint;
  CATENA_CHECK(j.mask != 0 && j.mask < (1u << rows),
               what << ": the row mask must select at least one of the " << rows << " rows");
  const JointMotion& mo = j.motion;
  if (mo.active) {
    CATENA_CHECK(j.type != JointType::kDistance,
                 what << ": a distance joint takes a length(t), not a motion");
    CATENA_CHECK(mo.axis.allFinite() && std::abs(mo.axis.norm() - 1.0) < 1e-9,
                 what << ": the motion axis must be a unit vector, got " << vec(mo.axis));
    const RowMask trans = dim == 3 ? 0b000111 : 0b011, rot = dim == 3 ? 0b111000 : 0b100;
    bool moves_t = false;
    for (int k = 0; k < (dim == 3 ? 3 : 2); ++k)
      moves_t |= !(mo.translation[k].isConstant() && mo.translation[k].a == 0.0);
    const bool moves_r = !(mo.angle.isConstant() && mo.angle.a == 0.0);
    CATENA_CHECK(!moves_t || (j.mask & trans),
                 what << ": the motion prescribes a translation but the joint leaves all "
                         "translations free");
    CATENA_CHECK(!moves_r || (j.mask & rot),
                 what << ": the motion prescribes a rotation but the joint leaves all rotations "
                         "free");
  }
  if ((j.type == JointType::kDrivenRevolute || j.type == JointType::kDrivenPrismatic) &&
      !j.motion.active)
    warn(what + ": " + std::string(jointTypeName(j.type)) +
         " without a motion acts as a fix joint (F1 held on F2)");
  if (j.type == JointType::kDistance) {
    const double l0 = j.length.evaluate(0.0).value;
    CATENA_CHECK(std::isfinite(l0) && l0 > 0.0,
                 what << ": a distance joint needs a positive length, got " << l0 << " m");
  }
  return append(joint_names_, "joint", model_.joints, std::move(j));
}

Index ModelBuilder::addLoad(MarkerLoad l) {
  const std::string what = "load '" + l.name + "'";
  checkMarker(what, l.marker);
  CATENA_CHECK(finite(l.force) && finite(l.torque), what << ": force and torque must be finite");
  CATENA_CHECK(model_.markers[l.marker].body != kGround,
               what << " acts on a ground marker; it would have no effect");
  return append(force_names_, "force", model_.loads, std::move(l));
}

Index ModelBuilder::addSpring(SpringDamper s) {
  const std::string what = "spring '" + s.name + "'";
  checkMarkers(what, s.marker1, s.marker2);
  CATENA_CHECK(std::isfinite(s.stiffness) && std::isfinite(s.damping) &&
                   std::isfinite(s.rest_length) && std::isfinite(s.preload),
               what << ": stiffness, damping, rest length and preload must be finite");
  CATENA_CHECK(s.stiffness >= 0.0 && s.damping >= 0.0 && s.rest_length >= 0.0,
               what << ": stiffness, damping and rest length must be >= 0");
  return append(force_names_, "force", model_.springs, std::move(s));
}

Index ModelBuilder::addRotationalSpring(RotationalSpringDamper s) {
  const std::string what = "rotational spring '" + s.name + "'";
  checkMarkers(what, s.marker1, s.marker2);
  CATENA_CHECK(
      std::isfinite(s.stiffness) && std::isfinite(s.damping) && std::isfinite(s.rest_angle),
      what << ": stiffness, damping and rest angle must be finite");
  CATENA_CHECK(s.stiffness >= 0.0 && s.damping >= 0.0,
               what << ": stiffness and damping must be >= 0");
  return append(force_names_, "force", model_.rotational_springs, std::move(s));
}

Model ModelBuilder::finalize() {
  Model m = std::move(model_);
  const Index nb = static_cast<Index>(m.bodies.size());
  m.nq = nb * m.nq_body;
  m.nv = nb * m.nv_body;
  m.countRows();
  model_ = Model{};
  body_names_.clear();
  marker_names_.clear();
  joint_names_.clear();
  force_names_.clear();
  return m;
}

}  // namespace catena
