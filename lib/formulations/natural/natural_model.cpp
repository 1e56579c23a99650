#include "formulations/natural/natural_model.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <utility>

#include "core/check.hpp"

namespace catena::natural {

namespace {

template <class T>
Index findByName(const std::vector<T>& items, const std::string& name) {
  for (std::size_t i = 0; i < items.size(); ++i)
    if (items[i].name == name) return static_cast<Index>(i);
  return -1;
}

bool finite(const Vec3& x) {
  return x.allFinite();
}

}  // namespace

Index NaturalModel::findPv(const std::string& name) const {
  return findByName(pvs, name);
}
Index NaturalModel::findScalar(const std::string& name) const {
  return findByName(scalars, name);
}
Index NaturalModel::findBody(const std::string& name) const {
  return findByName(bodies, name);
}
Index NaturalModel::findCoordinate(const std::string& name) const {
  for (std::size_t i = 0; i < coordinate_names.size(); ++i)
    if (coordinate_names[i] == name) return static_cast<Index>(i);
  return -1;
}

std::string NaturalModel::constraintName(Index row) const {
  const Index nd = static_cast<Index>(constraints.size());
  if (row >= 0 && row < nd) {
    const std::string& o = constraints[static_cast<std::size_t>(row)].origin;
    return o == "user" ? "user constraint " + std::to_string(row - n_rigidity + 1) : o;
  }
  const Index k = (row - nd) / 2;
  if (row < nd || k >= static_cast<Index>(angles.size())) return "row " + std::to_string(row);
  return "angle " + angles[static_cast<std::size_t>(k)].name + ((row - nd) % 2 ? " (y)" : " (x)");
}

Eigen::Matrix<double, 3, 2> computeFrameMatrix(int dimension, PvKind a_kind, PvKind b_kind,
                                               const Vec3& a_local, const Vec3& b_local) {
  const double alpha = a_kind == PvKind::kPoint ? 1.0 : 0.0;
  const double beta = b_kind == PvKind::kPoint ? 1.0 : 0.0;
  const double r11 = a_local(0);
  CATENA_CHECK(std::isfinite(r11) && r11 != 0.0 && a_local(1) == 0.0 && a_local(2) == 0.0,
               "the second basic point/vector must lie on the local x axis, (r11, 0, 0) with "
               "r11 != 0, got ("
                   << a_local.transpose() << ")");
  Eigen::Matrix<double, 3, 2> U = Eigen::Matrix<double, 3, 2>::Zero();
  if (dimension == 2) {
    U(0, 0) = -alpha / r11;
    U(1, 0) = 1.0 / r11;
    return U;
  }
  const double r12 = b_local(0), r22 = b_local(1);
  CATENA_CHECK(std::isfinite(r12) && std::isfinite(r22) && r22 != 0.0 && b_local(2) == 0.0,
               "the third basic point/vector must lie in the local xy plane off the x axis, "
               "(r12, r22, 0) with r22 != 0, got ("
                   << b_local.transpose() << ")");
  Eigen::Matrix<double, 3, 2> S;
  S << -alpha, -beta, 1.0, 0.0, 0.0, 1.0;
  Mat2 R;
  R << r11, r12, 0.0, r22;
  U = S * R.inverse();
  return U;
}

namespace {

/// Appends a point or vector with the given source, value (fixed: WF value; dependent: local
/// coordinates) and body (dependent only); returns its index.
Index appendPv(std::vector<Pv>& pvs, const std::string& name, PvKind kind, PvSource source,
               const Vec3& value, Index body) {
  Pv pv;
  pv.name = name;
  pv.kind = kind;
  pv.source = source;
  pv.value = value;
  pv.body = body;
  pvs.push_back(std::move(pv));
  return static_cast<Index>(pvs.size() - 1);
}

}  // namespace

NaturalModelBuilder::NaturalModelBuilder(int dimension, std::string title) {
  CATENA_CHECK(dimension == 2 || dimension == 3, "dimension must be 2 or 3, got " << dimension);
  m_.dimension = dimension;
  m_.title = std::move(title);
}

void NaturalModelBuilder::setGravity(const Vec3& g) {
  CATENA_CHECK(finite(g) && (m_.dimension == 3 || g(2) == 0.0),
               "gravity must be finite (and planar in 2D)");
  m_.gravity = g;
}

void NaturalModelBuilder::checkNewName(const std::string& name) const {
  CATENA_CHECK(!name.empty(), "empty name");
  CATENA_CHECK(m_.findPv(name) < 0 && m_.findScalar(name) < 0,
               "the name '" << name << "' is already used");
}

Index NaturalModelBuilder::addFixed(const std::string& name, PvKind kind, const Vec3& value) {
  checkNewName(name);
  CATENA_CHECK(finite(value) && (m_.dimension == 3 || value(2) == 0.0),
               "fixed '" << name << "': coordinates must be finite");
  return appendPv(m_.pvs, name, kind, PvSource::kFixed, value, -1);
}

Index NaturalModelBuilder::addMoving(const std::string& name, PvKind kind) {
  checkNewName(name);
  return appendPv(m_.pvs, name, kind, PvSource::kCoordinate, Vec3::Zero(), -1);
}

Index NaturalModelBuilder::addScalar(const std::string& name) {
  checkNewName(name);
  m_.scalars.push_back({name, -1});
  return static_cast<Index>(m_.scalars.size() - 1);
}

Index NaturalModelBuilder::addBody(NaturalBody body) {
  CATENA_CHECK(m_.findBody(body.name) < 0, "body '" << body.name << "' is defined twice");
  const int nb = m_.dimension == 3 ? 3 : 2;
  for (int k = 0; k < nb; ++k)
    CATENA_CHECK(body.basis[k] >= 0 && body.basis[k] < static_cast<Index>(m_.pvs.size()),
                 "body '" << body.name << "': basic point/vector " << k << " is undefined");
  CATENA_CHECK(m_.pvs[body.basis[0]].kind == PvKind::kPoint,
               "body '" << body.name << "': the first basic PV (the origin) must be a point, '"
                        << m_.pvs[body.basis[0]].name << "' is a vector");
  if (nb == 2) body.basis[2] = -1;
  CATENA_CHECK(std::isfinite(body.mass) && body.mass >= 0.0,
               "body '" << body.name << "': mass must be >= 0, got " << body.mass);
  CATENA_CHECK(finite(body.centroid) && body.inertia.allFinite() &&
                   (body.inertia - body.inertia.transpose()).norm() <= 1e-12 * body.inertia.norm(),
               "body '" << body.name << "': centroid and a symmetric inertia must be finite");
  try {
    body.U = computeFrameMatrix(m_.dimension, m_.pvs[body.basis[1]].kind,
                                nb == 3 ? m_.pvs[body.basis[2]].kind : PvKind::kVector,
                                body.a_local, body.b_local);
  } catch (const Error& e) {
    CATENA_CHECK(false, "body '" << body.name << "': " << e.what());
  }
  m_.bodies.push_back(body);
  return static_cast<Index>(m_.bodies.size() - 1);
}

Index NaturalModelBuilder::addDependent(const std::string& name, PvKind kind, Index body,
                                        const Vec3& local) {
  checkNewName(name);
  CATENA_CHECK(body >= 0 && body < static_cast<Index>(m_.bodies.size()),
               "dependent '" << name << "': unknown body");
  CATENA_CHECK(finite(local) && (m_.dimension == 3 || local(2) == 0.0),
               "dependent '" << name << "': local coordinates must be finite");
  return appendPv(m_.pvs, name, kind, PvSource::kDependent, local, body);
}

Index NaturalModelBuilder::addAssigned(const std::string& name, PvKind kind,
                                       std::vector<AssignTerm> terms) {
  checkNewName(name);
  CATENA_CHECK(!terms.empty(), "assignment '" << name << "' has no terms");
  int points = 0;
  for (const AssignTerm& t : terms) {
    CATENA_CHECK(t.pv >= 0 && t.pv < static_cast<Index>(m_.pvs.size()),
                 "assignment '" << name << "': unknown point/vector");
    CATENA_CHECK(t.scalar < static_cast<Index>(m_.scalars.size()),
                 "assignment '" << name << "': unknown scalar");
    CATENA_CHECK(std::isfinite(t.coefficient), "assignment '" << name << "': bad coefficient");
    if (m_.pvs[t.pv].kind == PvKind::kPoint) ++points;
  }
  // An affine combination of points is a point only if the point terms' coefficients sum to 1;
  // the simpler check here: a point has an odd number of point terms (C + B - A), a vector an
  // even number (0 or 2 as in B - A).
  CATENA_CHECK((kind == PvKind::kPoint) == (points % 2 == 1),
               "assignment '" << name << "': a " << (kind == PvKind::kPoint ? "point" : "vector")
                              << " cannot be built from " << points << " point terms");
  Pv pv;
  pv.name = name;
  pv.kind = kind;
  pv.source = PvSource::kAssigned;
  pv.terms = std::move(terms);
  m_.pvs.push_back(pv);
  return static_cast<Index>(m_.pvs.size() - 1);
}

Index NaturalModelBuilder::addAngle(const std::string& name, Index body, Index reference,
                                    double torque) {
  CATENA_CHECK(m_.dimension == 2, "angle '" << name
                                            << "': explicit angles are planar (2D) only, as the "
                                               "paper's eq. (33)");
  const Index nb = static_cast<Index>(m_.bodies.size());
  CATENA_CHECK(body >= 0 && body < nb, "angle '" << name << "': unknown body");
  CATENA_CHECK(reference >= -1 && reference < nb && reference != body,
               "angle '" << name << "': the reference must be another body or the WF");
  for (const NaturalAngle& a : m_.angles)
    CATENA_CHECK(a.body != body, "angle '" << name << "': body '" << m_.bodies[body].name
                                           << "' already has the angle '" << a.name << "'");
  CATENA_CHECK(std::isfinite(torque), "angle '" << name << "': the torque must be finite");
  const Index s = addScalar(name);
  m_.angles.push_back({name, s, body, reference, torque});
  return static_cast<Index>(m_.angles.size() - 1);
}

void NaturalModelBuilder::addSpring(NaturalSpring s) {
  const Index n = static_cast<Index>(m_.pvs.size());
  CATENA_CHECK(s.a >= 0 && s.a < n && s.b >= 0 && s.b < n && s.a != s.b &&
                   m_.pvs[s.a].kind == PvKind::kPoint && m_.pvs[s.b].kind == PvKind::kPoint,
               "spring '" << s.name << "': needs two different points");
  CATENA_CHECK(std::isfinite(s.stiffness) && s.stiffness >= 0.0 && std::isfinite(s.length) &&
                   s.length >= 0.0 && std::isfinite(s.mass) && s.mass >= 0.0,
               "spring '" << s.name << "': stiffness, length and mass must be >= 0");
  m_.springs.push_back(s);
}

void NaturalModelBuilder::addParticle(Index pv, double mass) {
  CATENA_CHECK(
      pv >= 0 && pv < static_cast<Index>(m_.pvs.size()) && m_.pvs[pv].kind == PvKind::kPoint,
      "a particle must sit on a point");
  CATENA_CHECK(std::isfinite(mass) && mass > 0.0,
               "particle '" << m_.pvs[pv].name << "': mass must be > 0");
  m_.particles.push_back({pv, mass});
}

void NaturalModelBuilder::addDotConstraint(DotConstraint c) {
  const Index n = static_cast<Index>(m_.pvs.size());
  auto ok = [n](Index i, bool optional) { return (optional && i == -1) || (i >= 0 && i < n); };
  CATENA_CHECK(ok(c.a0, false) && ok(c.a1, true) && ok(c.b0, false) && ok(c.b1, true) &&
                   std::isfinite(c.value),
               "dot constraint: unknown point/vector or bad value");
  if (c.origin.empty()) c.origin = "user";
  user_constraints_.push_back(c);
}

NaturalModel NaturalModelBuilder::finalize() {
  NaturalModel m = m_;
  const int d = m.dimension;
  static const char* axes[] = {".x", ".y", ".z"};
  Index nq = 0;
  for (Pv& pv : m.pvs) {
    if (pv.source != PvSource::kCoordinate) continue;
    pv.offset = nq;
    for (int k = 0; k < d; ++k) m.coordinate_names.push_back(pv.name + axes[k]);
    nq += d;
  }
  for (ScalarCoordinate& s : m.scalars) {
    s.offset = nq++;
    m.coordinate_names.push_back(s.name);
  }
  m.nq = nq;

  // Evaluation order: repeated sweeps until nothing changes (models are small).
  std::vector<char> pv_ready(m.pvs.size(), 0), body_ready(m.bodies.size(), 0);
  for (std::size_t i = 0; i < m.pvs.size(); ++i)
    pv_ready[i] = m.pvs[i].source == PvSource::kFixed || m.pvs[i].source == PvSource::kCoordinate;
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t b = 0; b < m.bodies.size(); ++b) {
      if (body_ready[b]) continue;
      bool ok = true;
      for (Index k : m.bodies[b].basis)
        if (k >= 0 && !pv_ready[static_cast<std::size_t>(k)]) ok = false;
      if (ok) {
        body_ready[b] = 1;
        m.order.push_back({true, static_cast<Index>(b)});
        changed = true;
      }
    }
    for (std::size_t i = 0; i < m.pvs.size(); ++i) {
      if (pv_ready[i]) continue;
      const Pv& pv = m.pvs[i];
      bool ok = true;
      if (pv.source == PvSource::kDependent) ok = body_ready[static_cast<std::size_t>(pv.body)];
      for (const AssignTerm& t : pv.terms)
        if (!pv_ready[static_cast<std::size_t>(t.pv)]) ok = false;
      if (ok) {
        pv_ready[i] = 1;
        m.order.push_back({false, static_cast<Index>(i)});
        changed = true;
      }
    }
  }
  for (std::size_t i = 0; i < m.pvs.size(); ++i)
    CATENA_CHECK(pv_ready[i], "'" << m.pvs[i].name
                                  << "' depends on itself (a cycle of dependent/assigned "
                                     "points and vectors)");
  for (std::size_t b = 0; b < m.bodies.size(); ++b)
    CATENA_CHECK(body_ready[b], "body '" << m.bodies[b].name << "' depends on itself");

  // Rigidity equations among each body's basic PVs (a = A - alpha O, b = B - beta O):
  // a.a = |A_loc|^2, b.b = |B_loc|^2, a.b = A_loc.B_loc, each only if one of its PVs is a moving
  // basic one (others are constants or implied by other bodies' equations) and only once.
  std::set<std::tuple<Index, Index, Index, Index>> seen;
  auto moving = [&m](Index i) {
    return i >= 0 && m.pvs[static_cast<std::size_t>(i)].source == PvSource::kCoordinate;
  };
  std::vector<char> has_angle(m.bodies.size(), 0);
  for (const NaturalAngle& a : m.angles) has_angle[static_cast<std::size_t>(a.body)] = 1;
  for (std::size_t bi = 0; bi < m.bodies.size(); ++bi) {
    const NaturalBody& body = m.bodies[bi];
    const Index O = body.basis[0];
    struct Diff {
      Index x0, x1;
      Vec3 local;
    };
    std::vector<Diff> diffs;
    for (int k = 1; k < (d == 3 ? 3 : 2); ++k) {
      const Index X = body.basis[k];
      const bool point = m.pvs[static_cast<std::size_t>(X)].kind == PvKind::kPoint;
      diffs.push_back({X, point ? O : -1, k == 1 ? body.a_local : body.b_local});
    }
    // Order a.a, b.b, a.b (the paper's free top: u.u - 1, v.v - 1, u.v).
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (std::size_t i = 0; i < diffs.size(); ++i) pairs.emplace_back(i, i);
    if (diffs.size() == 2) pairs.emplace_back(0, 1);
    for (const auto& [i, j] : pairs) {
      const Diff &a = diffs[i], &b = diffs[j];
      if (!(moving(a.x0) || moving(a.x1) || moving(b.x0) || moving(b.x1))) continue;
      // The angle's two equations fix x = (A - alpha O) / r11 to a unit vector: a.a is implied.
      if (has_angle[bi]) continue;
      auto key = i == j ? std::make_tuple(std::min(a.x0, a.x1), std::max(a.x0, a.x1),
                                          std::min(a.x0, a.x1), std::max(a.x0, a.x1))
                        : std::make_tuple(a.x0, a.x1, b.x0, b.x1);
      if (!seen.insert(key).second) continue;
      m.constraints.push_back(
          {a.x0, a.x1, b.x0, b.x1, a.local.dot(b.local), "rigidity of " + body.name});
    }
  }
  m.n_rigidity = static_cast<Index>(m.constraints.size());
  for (const DotConstraint& c : user_constraints_) m.constraints.push_back(c);
  for (const NaturalAngle& a : m.angles) {
    const NaturalBody& body = m.bodies[static_cast<std::size_t>(a.body)];
    CATENA_CHECK(moving(body.basis[0]) || moving(body.basis[1]),
                 "angle '" << a.name << "': body '" << body.name
                           << "' has no moving basic point/vector, so its angle is a constant");
  }
  m.nc = static_cast<Index>(m.constraints.size() + 2 * m.angles.size());
  CATENA_CHECK(m.nq >= 1, "the mechanism has no coordinates (no moving points/vectors)");
  CATENA_CHECK(m.nc <= m.nq, "more constraints (" << m.nc << ") than coordinates (" << m.nq
                                                  << "): the mechanism is overconstrained");
  return m;
}

}  // namespace catena::natural
