#include "model/four_bar_lattice.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <unordered_map>

#include <Eigen/Eigenvalues>

#include "core/check.hpp"
#include "model/generator_support.hpp"

namespace catena {
namespace {

/// 3D: the bars' radius, relative to their length (their inertia about their own axis).
constexpr double kRodRadius = 0.01;

using generator_support::joint;
using generator_support::marker;

void checkOptions(const FourBarLatticeOptions& o) {
  CATENA_CHECK(o.levels >= 1 && o.cells >= 1,
               "a four-bar lattice needs at least 1 level and 1 cell, got L = "
                   << o.levels << ", K = " << o.cells);
  CATENA_CHECK(o.cell_width > 0.0 && o.crank_length > 0.0 && o.mass_per_length > 0.0,
               "a four-bar lattice needs positive cell width, crank length and mass per length");
  CATENA_CHECK(o.level_angles.empty() || o.level_angles.size() == std::size_t(o.levels),
               "a four-bar lattice of " << o.levels << " levels needs as many level angles, got "
                                        << o.level_angles.size());
  CATENA_CHECK(o.level_rates.empty() || o.level_rates.size() == std::size_t(o.levels),
               "a four-bar lattice of " << o.levels << " levels needs as many level rates, got "
                                        << o.level_rates.size());
}

/// Where level l starts: its cranks' angle and rate, the bottom of its first crank and the
/// velocity of the couplers below (translation only). Level l + 1 starts at the top of level
/// l's first crank.
struct Level {
  double angle = 0.0, rate = 0.0;
  Vec2 u, Eu;  ///< crank direction and its normal
  Vec2 origin = Vec2::Zero(), base_velocity = Vec2::Zero();
  Vec2 topLeft(double h) const { return origin + h * u; }
  Vec2 topVelocity(double h) const { return base_velocity + h * rate * Eu; }
};

std::vector<Level> levels(const FourBarLatticeOptions& o) {
  std::vector<Level> out(o.levels);
  const double h = o.crank_length;
  for (int l = 0; l < o.levels; ++l) {
    Level& v = out[l];
    v.angle = o.level_angles.empty() ? o.crank_angle : o.level_angles[l];
    v.rate = o.level_rates.empty() ? o.crank_rate : o.level_rates[l];
    v.u = Vec2(std::cos(v.angle), std::sin(v.angle));
    v.Eu = Vec2(-v.u.y(), v.u.x());
    if (l > 0) {
      v.origin = out[l - 1].topLeft(h);
      v.base_velocity = out[l - 1].topVelocity(h);
    }
  }
  return out;
}

/// A natural body index split into its level and its place in the level: crank j (0..K) or
/// coupler k (0..K-1; 0 if merged).
struct Place {
  int level = 0;
  bool crank = true;
  int index = 0;
};

int bodiesPerLevel(const FourBarLatticeOptions& o) {
  return o.cells + 1 + (o.merged_couplers ? 1 : o.cells);
}

Place place(const FourBarLatticeOptions& o, Index b) {
  const int per = bodiesPerLevel(o);
  const int in = static_cast<int>(b % per);
  return {static_cast<int>(b / per), in <= o.cells, in <= o.cells ? in : in - o.cells - 1};
}

Index crankIndex(const FourBarLatticeOptions& o, int l, int j) {
  return static_cast<Index>(l) * bodiesPerLevel(o) + j;
}
Index couplerIndex(const FourBarLatticeOptions& o, int l, int k) {
  return static_cast<Index>(l) * bodiesPerLevel(o) + o.cells + 1 + k;
}

std::string crankName(int l, int j) {
  return "crank_" + std::to_string(l) + "_" + std::to_string(j);
}
std::string couplerName(const FourBarLatticeOptions& o, int l, int k) {
  std::string name = "coupler_" + std::to_string(l);
  if (!o.merged_couplers) (name += '_') += std::to_string(k);
  return name;
}

/// Natural body b with its initial state, computed from its index alone.
Body latticeBody(const FourBarLatticeOptions& o, const std::vector<Level>& lv, Index b) {
  const Place p = place(o, b);
  const Level& v = lv[p.level];
  const double w = o.cell_width, h = o.crank_length;
  double length = 0.0, angle = 0.0, rate = 0.0;
  Vec2 centre, velocity;
  Body body;
  if (p.crank) {
    body.name = crankName(p.level, p.index);
    const Vec2 bottom = v.origin + Vec2(p.index * w, 0.0);
    length = h;
    angle = v.angle;
    rate = v.rate;
    centre = bottom + 0.5 * h * v.u;
    velocity = v.base_velocity + 0.5 * h * v.rate * v.Eu;
  } else {
    body.name = couplerName(o, p.level, p.index);
    length = o.merged_couplers ? o.cells * w : w;
    centre = v.topLeft(h) + Vec2(o.merged_couplers ? 0.5 * o.cells * w : (p.index + 0.5) * w, 0.0);
    velocity = v.topVelocity(h);
  }
  body.mass = o.mass_per_length * length;
  body.inertia(2, 2) = body.mass * length * length / 12.0;
  // 3D: a thin rod along its frame's x (radius kRodRadius of its length) about the other axes;
  // planar motions do not feel the out-of-plane values.
  body.inertia(1, 1) = body.inertia(2, 2);
  body.inertia(0, 0) = 0.5 * body.mass * std::pow(kRodRadius * length, 2);
  body.position = Vec3(centre.x(), centre.y(), 0.0);
  body.orientation = Quat(Eigen::AngleAxisd(angle, Vec3::UnitZ()));
  body.velocity = Vec3(velocity.x(), velocity.y(), 0.0);
  body.angular_velocity = Vec3(0.0, 0.0, rate);
  return body;
}

/// The coupler (level l, place k) and its marker at crank foot/top j, as a name suffix and the
/// coupler-frame x: unmerged couplers have "/left" (x = -w/2) and "/right" (x = +w/2), merged
/// ones "/j" (x = (j - K/2) w). Crank j of level l + 1 stands on marker j of level l's row.
struct CouplerPoint {
  int k = 0;
  std::string suffix;
  double x = 0.0;
};
CouplerPoint couplerPoint(const FourBarLatticeOptions& o, int j, bool left_of_j) {
  const double w = o.cell_width;
  const int K = o.cells;
  if (o.merged_couplers) return {0, std::string("/") += std::to_string(j), (j - 0.5 * K) * w};
  // left_of_j: the coupler on j's left (k = j - 1, its right end); else on its right (k = j).
  if (left_of_j) return {j - 1, "/right", 0.5 * w};
  return {j, "/left", -0.5 * w};
}
/// The coupler point that level l + 1's crank j stands on (unmerged: the left end of coupler
/// j, or the right end of coupler K - 1 for j = K).
CouplerPoint supportPoint(const FourBarLatticeOptions& o, int j) {
  if (o.merged_couplers) return couplerPoint(o, j, false);
  return j < o.cells ? couplerPoint(o, j, false) : couplerPoint(o, j, true);
}

}  // namespace

void addFourBarLattice(ModelBuilder& b, const FourBarLatticeOptions& o) {
  checkOptions(o);
  const int K = o.cells;
  const double w = o.cell_width, h = o.crank_length;
  const std::vector<Level> lv = levels(o);
  // 3D: the hinges' axis (a revolute turns about its markers' x) along the world z, normal to
  // the lattice's plane: every marker's x is its body's z.
  const Quat hinge_axis = b.dimension() == 3
                              ? Quat(Eigen::AngleAxisd(-0.5 * std::numbers::pi, Vec3::UnitY()))
                              : Quat::Identity();
  auto placed = [&](Marker k) {
    k.orientation = hinge_axis;
    return b.addMarker(std::move(k));
  };
  auto mark = [&](const std::string& name, Index body, double x) {
    return placed(marker(name, body, Vec3(x, 0.0, 0.0)));
  };

  // Markers where level l-1's couplers receive the bottoms of level l's cranks (j = 0..K).
  std::vector<Index> below(K + 1);
  for (int j = 0; j <= K; ++j)
    below[j] = placed(marker("ground/" + std::to_string(j), kGround, Vec3(j * w, 0.0, 0.0)));
  for (int l = 0; l < o.levels; ++l) {
    const std::string L = std::to_string(l);
    std::vector<Index> crank_top(K + 1);
    for (int j = 0; j <= K; ++j) {
      const std::string name = crankName(l, j);
      const Index c = b.addBody(latticeBody(o, lv, crankIndex(o, l, j)));
      const Index foot = mark(name + "/bottom", c, -0.5 * h);
      crank_top[j] = mark(name + "/top", c, 0.5 * h);
      b.addJoint(joint("hinge_" + name + "_bottom", JointType::kRevolute, foot, below[j]));
    }
    std::vector<Index> next(K + 1);
    if (o.merged_couplers) {
      const std::string name = couplerName(o, l, 0);
      const Index c = b.addBody(latticeBody(o, lv, couplerIndex(o, l, 0)));
      for (int j = 0; j <= K; ++j) {
        const CouplerPoint p = couplerPoint(o, j, false);
        next[j] = mark(name + p.suffix, c, p.x);
        b.addJoint(joint("hinge_crank_" + L + "_" + std::to_string(j) + "_top",
                         JointType::kRevolute, crank_top[j], next[j]));
      }
    } else {
      std::vector<Index> left(K), right(K);
      for (int k = 0; k < K; ++k) {
        const std::string name = couplerName(o, l, k);
        const Index c = b.addBody(latticeBody(o, lv, couplerIndex(o, l, k)));
        left[k] = mark(name + "/left", c, -0.5 * w);
        right[k] = mark(name + "/right", c, 0.5 * w);
      }
      for (int j = 0; j <= K; ++j) {
        const std::string crank = crankName(l, j);
        if (j > 0)
          b.addJoint(joint("hinge_" + crank + "_top_left", JointType::kRevolute, crank_top[j],
                           right[j - 1]));
        if (j < K)
          b.addJoint(
              joint("hinge_" + crank + "_top_right", JointType::kRevolute, crank_top[j], left[j]));
        next[j] = j < K ? left[j] : right[K - 1];
      }
    }
    below = next;
  }
}

FourBarLatticeOptions leaningFourBarLattice(int levels, int cells, double lean) {
  FourBarLatticeOptions o;
  o.levels = levels;
  o.cells = cells;
  for (int l = 0; l < levels; ++l)
    o.level_angles.push_back(-0.5 * std::numbers::pi + lean * std::sin(1.0 + l));
  return o;
}

std::vector<double> fourBarLatticeInitialAngles(const FourBarLatticeOptions& o) {
  std::vector<double> theta;
  for (int l = 0; l < o.levels; ++l)
    theta.push_back((o.level_angles.empty() ? o.crank_angle : o.level_angles[l]) +
                    0.5 * std::numbers::pi);
  return theta;
}

std::vector<double> fourBarLatticeLevelAngles(const Model& m, const VecX& q, Index owned_bodies,
                                              int levels) {
  // One pass over the bodies (a name lookup per level would be O(levels x bodies)).
  std::vector<double> theta(levels, 0.0);
  for (Index b = 0; b < owned_bodies; ++b) {
    const std::string& name = m.bodies[b].name;
    if (!name.starts_with("crank_") || !name.ends_with("_0")) continue;
    const int l = std::stoi(name.substr(6));
    if (l < levels && name == crankName(l, 0))
      theta[l] = q(m.qOffset(b) + 2) + 0.5 * std::numbers::pi;  // 2D q: x, y, angle
  }
  return theta;
}

Model buildFourBarLattice(const FourBarLatticeOptions& options) {
  ModelBuilder b(2, "four_bar_lattice");
  b.setGravity(Vec3(0.0, -9.81, 0.0));
  addFourBarLattice(b, options);
  return b.finalize();
}

Index fourBarLatticeBodies(const FourBarLatticeOptions& o) {
  return static_cast<Index>(o.levels) * bodiesPerLevel(o);
}

Index fourBarLatticeJoints(const FourBarLatticeOptions& o) {
  const Index per = (o.cells + 1) + (o.merged_couplers ? o.cells + 1 : 2 * o.cells);
  return static_cast<Index>(o.levels) * per;
}

int fourBarLatticeHeldJoints(const FourBarLatticeOptions& o, Index b) {
  const Place p = place(o, b);
  if (!p.crank) return 0;
  if (o.merged_couplers) return 2;
  return 1 + (p.index > 0) + (p.index < o.cells);
}

std::vector<Index> fourBarLatticeNeighbours(const FourBarLatticeOptions& o, Index b) {
  CATENA_CHECK(!o.merged_couplers, "lattice neighbours: unmerged couplers only");
  const Place p = place(o, b);
  const int K = o.cells, l = p.level;
  std::vector<Index> out;
  if (p.crank) {
    const int j = p.index;
    if (l > 0) out.push_back(couplerIndex(o, l - 1, supportPoint(o, j).k));
    if (j > 0) out.push_back(couplerIndex(o, l, j - 1));
    if (j < K) out.push_back(couplerIndex(o, l, j));
  } else {
    const int k = p.index;
    out.push_back(crankIndex(o, l, k));
    out.push_back(crankIndex(o, l, k + 1));
    if (l + 1 < o.levels) {
      out.push_back(crankIndex(o, l + 1, k));
      if (k == K - 1) out.push_back(crankIndex(o, l + 1, K));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Index> fourBarLatticeGhosts(const FourBarLatticeOptions& o,
                                        const std::vector<Index>& owned) {
  std::vector<Index> sorted = owned;
  std::sort(sorted.begin(), sorted.end());
  std::vector<Index> ghosts;
  for (Index b : sorted)
    if (place(o, b).crank)
      for (Index n : fourBarLatticeNeighbours(o, b))
        if (!std::binary_search(sorted.begin(), sorted.end(), n)) ghosts.push_back(n);
  std::sort(ghosts.begin(), ghosts.end());
  ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
  return ghosts;
}

ModelPart buildFourBarLatticePart(const FourBarLatticeOptions& o, const LatticePartLayout& layout) {
  checkOptions(o);
  CATENA_CHECK(!o.merged_couplers,
               "a distributed four-bar lattice needs unmerged couplers (merged couplers make "
               "redundant constraints: statics and modes would be singular)");
  CATENA_CHECK(!layout.owned.empty(), "a part of a four-bar lattice needs an owned body");
  CATENA_CHECK(layout.ghost_natural.size() == layout.ghost_global.size(),
               "a lattice part layout needs a global index for every ghost");
  const std::vector<Level> lv = levels(o);
  const double w = o.cell_width, h = o.crank_length;
  ModelBuilder b(2, "four_bar_lattice");
  b.setGravity(Vec3(0.0, -9.81, 0.0));

  // Bodies: owned, then ghosts, each with its two markers ("/bottom", "/top" on cranks;
  // "/left", "/right" on couplers).
  std::unordered_map<Index, Index> local;  // natural -> local body
  auto add = [&](Index natural) {
    const Index at = b.addBody(latticeBody(o, lv, natural));
    local.emplace(natural, at);
    const Place p = place(o, natural);
    const std::string name = b.peek().bodies[at].name;
    const double half = 0.5 * (p.crank ? h : w);
    b.addMarker(marker(name + (p.crank ? "/bottom" : "/left"), at, Vec3(-half, 0.0, 0.0)));
    b.addMarker(marker(name + (p.crank ? "/top" : "/right"), at, Vec3(half, 0.0, 0.0)));
  };
  for (Index n : layout.owned) add(n);
  for (Index n : layout.ghost_natural) add(n);
  auto point = [&](int l, const CouplerPoint& p) {
    const std::string name = couplerName(o, l, p.k) + p.suffix;
    const Index at = b.findMarker(name);
    CATENA_CHECK(at >= 0, "a lattice part lacks the ghost coupler of marker '" << name << "'");
    return at;
  };

  // Joints held by the owned cranks, body by body.
  for (Index n : layout.owned) {
    const Place p = place(o, n);
    if (!p.crank) continue;
    const int l = p.level, j = p.index;
    const std::string crank = crankName(l, j);
    const Index foot = b.findMarker(crank + "/bottom"), top = b.findMarker(crank + "/top");
    const Index support =
        l == 0 ? b.addMarker(marker("ground/" + std::to_string(j), kGround, Vec3(j * w, 0, 0)))
               : point(l - 1, supportPoint(o, j));
    b.addJoint(joint("hinge_" + crank + "_bottom", JointType::kRevolute, foot, support));
    if (j > 0)
      b.addJoint(joint("hinge_" + crank + "_top_left", JointType::kRevolute, top,
                       point(l, couplerPoint(o, j, true))));
    if (j < o.cells)
      b.addJoint(joint("hinge_" + crank + "_top_right", JointType::kRevolute, top,
                       point(l, couplerPoint(o, j, false))));
  }

  ModelPart part;
  part.model = b.finalize();
  part.owned_bodies = static_cast<Index>(layout.owned.size());
  part.first_body = layout.first_body;
  part.ghost_bodies = layout.ghost_global;
  part.first_joint = layout.first_joint;
  part.global_bodies = fourBarLatticeBodies(o);
  part.global_joints = fourBarLatticeJoints(o);
  return part;
}

namespace {

/// The hanging lattice's kinetic and potential energies to second order in the levels' angles
/// theta (rad from straight down): T = theta'^T A theta' / 2, V = theta^T B theta / 2.
struct HangingLatticeQuadratics {
  Eigen::MatrixXd A, B;
};

HangingLatticeQuadratics hangingQuadratics(const FourBarLatticeOptions& o, double g) {
  // Level l's cranks turn by theta_l (small) from straight down; its couplers translate with
  // the tops of its cranks. Horizontal velocities: crank centres sum_{i<l} h theta_i' +
  // h/2 theta_l', couplers sum_{i<=l} h theta_i'; heights lower by h (1 - cos theta) per level.
  const int L = o.levels;
  const double h = o.crank_length, cranks = o.cells + 1;
  const double mc = o.mass_per_length * h, M = o.mass_per_length * o.cells * o.cell_width;
  HangingLatticeQuadratics q{Eigen::MatrixXd::Zero(L, L), Eigen::MatrixXd::Zero(L, L)};
  for (int l = 0; l < L; ++l) {
    Eigen::VectorXd a = Eigen::VectorXd::Zero(L), c = Eigen::VectorXd::Zero(L);
    a.head(l).setConstant(h);
    a(l) = 0.5 * h;
    c.head(l + 1).setConstant(h);
    q.A += cranks * mc * a * a.transpose() + M * c * c.transpose();
    q.A(l, l) += cranks * mc * h * h / 12.0;
    q.B(l, l) = g * h * (cranks * mc * (0.5 + (L - 1 - l)) + M * (L - l));
  }
  return q;
}

}  // namespace

std::vector<double> hangingFourBarLatticeFrequencies(const FourBarLatticeOptions& o, double g,
                                                     int count) {
  CATENA_CHECK(!o.merged_couplers && count >= 1 && count <= o.levels,
               "hanging lattice frequencies: unmerged couplers and 1 <= count <= L");
  const HangingLatticeQuadratics q = hangingQuadratics(o, g);
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(q.B, q.A, Eigen::EigenvaluesOnly);
  std::vector<double> f;
  for (int i = 0; i < count; ++i)
    f.push_back(std::sqrt(es.eigenvalues()(i)) / (2.0 * std::numbers::pi));
  return f;
}

std::vector<double> hangingFourBarLatticeLowestMode(const FourBarLatticeOptions& o, double g) {
  CATENA_CHECK(!o.merged_couplers, "hanging lattice mode: unmerged couplers");
  const HangingLatticeQuadratics q = hangingQuadratics(o, g);
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(q.B, q.A);
  Eigen::VectorXd shape = es.eigenvectors().col(0);
  const Eigen::Index top = o.levels - 1;
  shape /= shape.cwiseAbs().maxCoeff() * (shape(top) < 0.0 ? -1.0 : 1.0);
  return {shape.data(), shape.data() + shape.size()};
}

std::vector<double> hangingFourBarLatticeSmallMotion(const FourBarLatticeOptions& o, double g,
                                                     const std::vector<double>& theta0, double t) {
  CATENA_CHECK(!o.merged_couplers && static_cast<int>(theta0.size()) == o.levels,
               "hanging lattice motion: unmerged couplers and one initial angle per level ("
                   << o.levels << "), got " << theta0.size());
  // Modes Phi with Phi^T A Phi = I, Phi^T B Phi = diag(omega^2): from rest at theta0,
  // theta(t) = Phi cos(omega t) Phi^T A theta0.
  const HangingLatticeQuadratics q = hangingQuadratics(o, g);
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(q.B, q.A);
  const Eigen::MatrixXd& Phi = es.eigenvectors();
  const Eigen::VectorXd x0 = Eigen::Map<const Eigen::VectorXd>(theta0.data(), o.levels);
  Eigen::VectorXd modal = Phi.transpose() * (q.A * x0);
  for (int i = 0; i < o.levels; ++i) modal(i) *= std::cos(std::sqrt(es.eigenvalues()(i)) * t);
  const Eigen::VectorXd theta = Phi * modal;
  return {theta.data(), theta.data() + theta.size()};
}

}  // namespace catena
