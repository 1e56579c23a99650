#include "formulations/natural/natural_yaml.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "formulations/natural/natural_mechanism.hpp"

namespace catena::natural {

namespace {

/// Errors name the file and the node's line and column (1-based).
struct Reader {
  std::string file;

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message) const {
    throw InputError(file, mark.line + 1, mark.column + 1, message);
  }

  void requireMap(const YAML::Node& n, const std::string& what) const {
    if (!n.IsMap()) fail(n.Mark(), what + " must be a map");
  }

  void allowKeys(const YAML::Node& n, const std::string& what,
                 std::initializer_list<const char*> keys) const {
    requireMap(n, what);
    for (const auto& kv : n) {
      const std::string key = kv.first.as<std::string>();
      bool ok = false;
      for (const char* k : keys) ok = ok || key == k;
      if (!ok) {
        std::string list;
        for (const char* k : keys) list += std::string(list.empty() ? "" : ", ") + k;
        fail(kv.first.Mark(), what + ": unknown key '" + key + "' (expected one of: " + list + ")");
      }
    }
  }

  std::string string(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) fail(n.Mark(), what + " must be a name");
    return n.Scalar();
  }

  double number(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) fail(n.Mark(), what + " must be a number");
    double x = 0.0;
    if (!YAML::convert<double>::decode(n, x) || !std::isfinite(x))
      fail(n.Mark(), what + " must be a finite number, got '" + n.Scalar() + "'");
    return x;
  }

  bool isNumber(const YAML::Node& n) const {
    double x = 0.0;
    return n.IsScalar() && YAML::convert<double>::decode(n, x);
  }

  /// A list of at most `dim` numbers, padded with zeros (the paper's padding convention).
  Vec3 vector(const YAML::Node& n, int dim, const std::string& what) const {
    if (!n.IsSequence() || n.size() < 1 || static_cast<int>(n.size()) > dim)
      fail(n.Mark(), what + " must be a list of 1 to " + std::to_string(dim) + " numbers");
    Vec3 v = Vec3::Zero();
    for (std::size_t i = 0; i < n.size(); ++i) v(static_cast<Index>(i)) = number(n[i], what);
    return v;
  }
};

PvKind kindOf(const Reader& r, const YAML::Node& n, const std::string& what) {
  const std::string s = r.string(n, what);
  if (s == "point") return PvKind::kPoint;
  if (s == "vector") return PvKind::kVector;
  r.fail(n.Mark(), what + " must be 'point' or 'vector', got '" + s + "'");
}

/// A map with exactly one of the keys point/vector: returns the kind and the value node.
std::pair<PvKind, YAML::Node> kindKey(const Reader& r, const YAML::Node& n, const std::string& what,
                                      std::initializer_list<const char*> other_keys) {
  r.requireMap(n, what);
  const bool p = static_cast<bool>(n["point"]), v = static_cast<bool>(n["vector"]);
  if (p == v) r.fail(n.Mark(), what + ": give exactly one of 'point' or 'vector'");
  std::vector<const char*> keys(other_keys);
  keys.push_back(p ? "point" : "vector");
  for (const auto& kv : n) {
    const std::string key = kv.first.as<std::string>();
    bool ok = false;
    for (const char* k : keys) ok = ok || key == k;
    if (!ok) r.fail(kv.first.Mark(), what + ": unknown key '" + key + "'");
  }
  return {p ? PvKind::kPoint : PvKind::kVector, n[p ? "point" : "vector"]};
}

/// Runs a builder call; its catena::Error becomes an InputError at `mark`.
template <class F>
auto build(const Reader& r, const YAML::Mark& mark, F&& f) {
  try {
    return f();
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    r.fail(mark, e.what());
  }
}

}  // namespace

NaturalInput readNaturalInput(std::istream& in, const std::string& file) {
  const Reader r{file};
  YAML::Node root;
  try {
    root = YAML::Load(in);
  } catch (const YAML::Exception& e) {
    throw InputError(file, e.mark.line + 1, e.mark.column + 1, e.msg);
  }
  if (!root.IsMap()) r.fail(root.Mark(), "the input must be a map");
  r.allowKeys(
      root, "top level",
      {"formulation", "title", "dimension", "gravity", "fixed", "moving", "scalars", "bodies",
       "dependent", "assign", "angles", "springs", "particles", "constraints", "problem"});
  if (!root["formulation"] || r.string(root["formulation"], "formulation") != "natural")
    r.fail(root.Mark(), "expected 'formulation: natural'");
  if (!root["dimension"]) r.fail(root.Mark(), "missing 'dimension' (2 or 3)");
  const double dnum = r.number(root["dimension"], "dimension");
  if (dnum != 2.0 && dnum != 3.0) r.fail(root["dimension"].Mark(), "dimension must be 2 or 3");
  const int dim = static_cast<int>(dnum);
  const std::string title = root["title"] ? r.string(root["title"], "title") : "";
  NaturalModelBuilder b(dim, title);
  if (root["gravity"]) {
    const Vec3 g = r.vector(root["gravity"], dim, "gravity");
    build(r, root["gravity"].Mark(), [&] {
      b.setGravity(g);
      return 0;
    });
  }
  // Names already defined (PVs and scalars), for the error "unknown name".
  std::set<std::string> pv_names, scalar_names;
  auto section = [&](const char* key) {
    const YAML::Node n = root[key];
    if (n) r.requireMap(n, key);
    return n;
  };
  if (const YAML::Node fixed = section("fixed"))
    for (const auto& kv : fixed) {
      const std::string name = kv.first.as<std::string>(), what = "fixed '" + name + "'";
      const auto [kind, value] = kindKey(r, kv.second, what, {});
      const Vec3 x = r.vector(value, dim, what);
      build(r, kv.first.Mark(), [&] { return b.addFixed(name, kind, x); });
      pv_names.insert(name);
    }
  if (const YAML::Node moving = section("moving"))
    for (const auto& kv : moving) {
      const std::string name = kv.first.as<std::string>();
      const PvKind kind = kindOf(r, kv.second, "moving '" + name + "'");
      build(r, kv.first.Mark(), [&] { return b.addMoving(name, kind); });
      pv_names.insert(name);
    }
  if (const YAML::Node scalars = root["scalars"]) {
    if (!scalars.IsSequence()) r.fail(scalars.Mark(), "scalars must be a list of names");
    for (const auto& s : scalars) {
      const std::string name = r.string(s, "scalar");
      build(r, s.Mark(), [&] { return b.addScalar(name); });
      scalar_names.insert(name);
    }
  }

  // Bodies, dependent and assigned PVs may refer to each other in any order: add whatever is
  // ready, sweep until nothing changes; what is left names something undefined (or a cycle).
  struct Pending {
    YAML::Node key, value;
    int section;  // 0 body, 1 dependent, 2 assign
  };
  std::vector<Pending> pending;
  const char* sections[] = {"bodies", "dependent", "assign"};
  for (int s = 0; s < 3; ++s)
    if (const YAML::Node n = section(sections[s]))
      for (const auto& kv : n) pending.push_back({kv.first, kv.second, s});
  std::set<std::string> body_names;
  const auto& model_pvs = pv_names;
  // Returns the first undefined name a pending item needs, or "" when it can be added.
  auto missing = [&](const Pending& p) -> std::pair<std::string, YAML::Mark> {
    const std::string name = p.key.as<std::string>();
    if (p.section == 0) {
      r.allowKeys(p.value, "body '" + name + "'",
                  {"basis", "geometry", "mass", "centroid", "inertia"});
      const YAML::Node basis = p.value["basis"];
      if (!basis || !basis.IsSequence() || static_cast<int>(basis.size()) != dim)
        r.fail(basis ? basis.Mark() : p.value.Mark(),
               "body '" + name + "': basis must list " + std::to_string(dim) +
                   " basic points/vectors [O, A" + (dim == 3 ? ", B]" : "]"));
      for (const auto& x : basis) {
        const std::string s = r.string(x, "basis entry");
        if (!model_pvs.count(s)) return {s, x.Mark()};
      }
    } else if (p.section == 1) {
      const auto [kind, value] = kindKey(r, p.value, "dependent '" + name + "'", {"body"});
      if (!p.value["body"]) r.fail(p.value.Mark(), "dependent '" + name + "': missing 'body'");
      const std::string body = r.string(p.value["body"], "body");
      if (!body_names.count(body)) return {body, p.value["body"].Mark()};
    } else {
      const auto [kind, terms] = kindKey(r, p.value, "assign '" + name + "'", {});
      if (!terms.IsSequence() || terms.size() == 0)
        r.fail(terms.Mark(), "assign '" + name + "': a list of terms [c, X] or [c, s, X]");
      for (const auto& t : terms) {
        if (!t.IsSequence() || t.size() < 2 || t.size() > 3)
          r.fail(t.Mark(), "assign '" + name + "': a term is [c, X] or [c, s, X]");
        const std::string x = r.string(t[t.size() - 1], "term");
        if (!model_pvs.count(x)) return {x, t[t.size() - 1].Mark()};
      }
    }
    return {"", YAML::Mark()};
  };
  auto add = [&](const Pending& p) {
    const std::string name = p.key.as<std::string>();
    const YAML::Mark mark = p.key.Mark();
    if (p.section == 0) {
      const std::string what = "body '" + name + "'";
      NaturalBody body;
      body.name = name;
      const YAML::Node basis = p.value["basis"];
      for (int k = 0; k < dim; ++k)
        body.basis[static_cast<std::size_t>(k)] =
            build(r, mark, [&] { return b.draft().findPv(basis[k].as<std::string>()); });
      const YAML::Node geom = p.value["geometry"];
      if (!geom || !geom.IsSequence() || static_cast<int>(geom.size()) != dim - 1)
        r.fail(geom ? geom.Mark() : p.value.Mark(),
               what + ": geometry must list the local coordinates of " +
                   (dim == 3 ? "A and B, [[r11], [r12, r22]]" : "A, [[r11]]"));
      body.a_local = r.vector(geom[0], dim, what + " geometry");
      if (dim == 3) body.b_local = r.vector(geom[1], dim, what + " geometry");
      if (p.value["mass"]) body.mass = r.number(p.value["mass"], what + " mass");
      if (p.value["centroid"])
        body.centroid = r.vector(p.value["centroid"], dim, what + " centroid");
      if (const YAML::Node in = p.value["inertia"]) {
        if (dim == 2) {
          body.inertia(2, 2) = r.number(in, what + " inertia (a number in 2D)");
        } else if (in.IsSequence() && in.size() == 3 && in[0].IsSequence()) {
          for (int i = 0; i < 3; ++i)
            body.inertia.row(i) = r.vector(in[i], 3, what + " inertia row").transpose();
        } else {
          body.inertia.diagonal() = r.vector(in, 3, what + " inertia (principal moments)");
        }
      }
      build(r, mark, [&] { return b.addBody(body); });
      body_names.insert(name);
    } else if (p.section == 1) {
      const auto [kind, value] = kindKey(r, p.value, "dependent '" + name + "'", {"body"});
      const Vec3 local = r.vector(value, dim, "dependent '" + name + "'");
      const std::string body = p.value["body"].as<std::string>();
      build(r, mark, [&] {
        const Index bi = b.draft().findBody(body);
        return b.addDependent(name, kind, bi, local);
      });
      pv_names.insert(name);
    } else {
      const auto [kind, terms] = kindKey(r, p.value, "assign '" + name + "'", {});
      std::vector<std::tuple<double, std::string, std::string>> parsed;
      for (const auto& t : terms) {
        double c = 1.0;
        std::string s;
        for (std::size_t i = 0; i + 1 < t.size(); ++i) {
          if (r.isNumber(t[i])) {
            c *= r.number(t[i], "coefficient");
          } else {
            const std::string sn = r.string(t[i], "scalar");
            if (!scalar_names.count(sn) || !s.empty())
              r.fail(t[i].Mark(), "assign '" + name + "': '" + sn +
                                      "' is not a number or a scalar coordinate (at most one)");
            s = sn;
          }
        }
        parsed.emplace_back(c, s, t[t.size() - 1].as<std::string>());
      }
      build(r, mark, [&] {
        const NaturalModel& m = b.draft();
        std::vector<AssignTerm> ts;
        for (const auto& [c, s, x] : parsed)
          ts.push_back({c, s.empty() ? -1 : m.findScalar(s), m.findPv(x)});
        return b.addAssigned(name, kind, ts);
      });
      pv_names.insert(name);
    }
  };
  while (!pending.empty()) {
    std::vector<Pending> left;
    for (const Pending& p : pending)
      if (missing(p).first.empty())
        add(p);
      else
        left.push_back(p);
    if (left.size() == pending.size()) {
      const auto [name, mark] = missing(left.front());
      r.fail(mark, "'" + name + "' is not defined (or is part of a cycle of definitions)");
    }
    pending = std::move(left);
  }

  // Explicit angles (eq. 33): scalar coordinates after the `scalars`, in q order.
  if (const YAML::Node angles = section("angles"))
    for (const auto& kv : angles) {
      const std::string name = kv.first.as<std::string>(), what = "angle '" + name + "'";
      r.allowKeys(kv.second, what, {"body", "reference", "torque"});
      if (!kv.second["body"]) r.fail(kv.second.Mark(), what + ": missing 'body'");
      auto bodyIndex = [&](const YAML::Node& n) {
        const std::string s = r.string(n, what + " body");
        const Index bi = b.draft().findBody(s);
        if (bi < 0) r.fail(n.Mark(), what + ": '" + s + "' is not a body");
        return bi;
      };
      const Index body = bodyIndex(kv.second["body"]);
      const Index ref = kv.second["reference"] ? bodyIndex(kv.second["reference"]) : -1;
      const double torque = kv.second["torque"] ? r.number(kv.second["torque"], what) : 0.0;
      build(r, kv.first.Mark(), [&] { return b.addAngle(name, body, ref, torque); });
      scalar_names.insert(name);
    }

  auto pvIndex = [&](const YAML::Node& n, const std::string& what) {
    const std::string s = r.string(n, what);
    if (!pv_names.count(s)) r.fail(n.Mark(), what + ": '" + s + "' is not defined");
    return b.draft().findPv(s);
  };
  if (const YAML::Node springs = section("springs"))
    for (const auto& kv : springs) {
      const std::string name = kv.first.as<std::string>(), what = "spring '" + name + "'";
      r.allowKeys(kv.second, what, {"ends", "stiffness", "length", "mass"});
      const YAML::Node ends = kv.second["ends"];
      if (!ends || !ends.IsSequence() || ends.size() != 2)
        r.fail(kv.second.Mark(), what + ": ends must be [A, B]");
      NaturalSpring s;
      s.name = name;
      s.a = pvIndex(ends[0], what);
      s.b = pvIndex(ends[1], what);
      if (kv.second["stiffness"]) s.stiffness = r.number(kv.second["stiffness"], what);
      if (kv.second["length"]) s.length = r.number(kv.second["length"], what);
      if (kv.second["mass"]) s.mass = r.number(kv.second["mass"], what);
      build(r, kv.first.Mark(), [&] {
        b.addSpring(s);
        return 0;
      });
    }
  if (const YAML::Node particles = section("particles"))
    for (const auto& kv : particles) {
      const Index pv = pvIndex(kv.first, "particle");
      const double mass = r.number(kv.second, "particle mass");
      build(r, kv.first.Mark(), [&] {
        b.addParticle(pv, mass);
        return 0;
      });
    }
  if (const YAML::Node cons = root["constraints"]) {
    if (!cons.IsSequence()) r.fail(cons.Mark(), "constraints must be a list");
    for (const auto& c : cons) {
      r.allowKeys(c, "constraint", {"dot", "value"});
      const YAML::Node dot = c["dot"];
      if (!dot || !dot.IsSequence() || dot.size() != 2)
        r.fail(c.Mark(), "constraint: dot must be [[X0, X1], [Y0, Y1]] (X1, Y1 optional)");
      DotConstraint dc;
      Index* slots[2][2] = {{&dc.a0, &dc.a1}, {&dc.b0, &dc.b1}};
      for (int side = 0; side < 2; ++side) {
        const YAML::Node s = dot[side];
        if (!s.IsSequence() || s.size() < 1 || s.size() > 2)
          r.fail(s.Mark(), "constraint: each side is [X] or [X0, X1] (X0 - X1)");
        *slots[side][0] = pvIndex(s[0], "constraint");
        if (s.size() == 2) *slots[side][1] = pvIndex(s[1], "constraint");
      }
      if (c["value"]) dc.value = r.number(c["value"], "constraint value");
      build(r, c.Mark(), [&] {
        b.addDotConstraint(dc);
        return 0;
      });
    }
  }
  NaturalInput out;
  out.model = build(r, root.Mark(), [&] { return b.finalize(); });
  const NaturalModel& m = out.model;

  NaturalProblem& pb = out.problem;
  pb.q0 = VecX::Zero(m.nq);
  pb.v0 = VecX::Zero(m.nq);
  pb.fixed.assign(static_cast<std::size_t>(m.nq), false);
  const YAML::Node prob = root["problem"];
  if (!prob) r.fail(root.Mark(), "missing 'problem' (initial positions)");
  r.allowKeys(prob, "problem", {"t0", "t_end", "positions", "velocities", "fixed"});
  if (prob["t0"]) pb.t0 = r.number(prob["t0"], "t0");
  if (prob["t_end"]) pb.t_end = r.number(prob["t_end"], "t_end");
  if (pb.t_end <= pb.t0) r.fail(prob.Mark(), "problem: t_end must be after t0");
  // Values of a coordinate PV (a list) or a scalar (a number) into x; returns flags set.
  auto readValues = [&](const YAML::Node& section_node, const std::string& what, VecX& x,
                        std::vector<bool>* seen) {
    r.requireMap(section_node, what);
    for (const auto& kv : section_node) {
      const std::string name = kv.first.as<std::string>();
      const Index pv = m.findPv(name), s = m.findScalar(name);
      if (s >= 0) {
        x(m.scalars[static_cast<std::size_t>(s)].offset) = r.number(kv.second, what);
        if (seen)
          (*seen)[static_cast<std::size_t>(m.scalars[static_cast<std::size_t>(s)].offset)] = true;
      } else if (pv >= 0 && m.pvs[static_cast<std::size_t>(pv)].source == PvSource::kCoordinate) {
        const Index off = m.pvs[static_cast<std::size_t>(pv)].offset;
        const Vec3 v = r.vector(kv.second, dim, what + " '" + name + "'");
        if (static_cast<int>(kv.second.size()) != dim)
          r.fail(kv.second.Mark(),
                 what + " '" + name + "': give all " + std::to_string(dim) + " coordinates");
        x.segment(off, dim) = v.head(dim);
        if (seen)
          for (int c = 0; c < dim; ++c) (*seen)[static_cast<std::size_t>(off + c)] = true;
      } else {
        r.fail(kv.first.Mark(),
               what + ": '" + name + "' is not a moving point/vector or a scalar coordinate");
      }
    }
  };
  std::vector<bool> given(static_cast<std::size_t>(m.nq), false);
  if (!prob["positions"]) r.fail(prob.Mark(), "problem: missing 'positions'");
  readValues(prob["positions"], "positions", pb.q0, &given);
  // An angle not given is measured from the given positions (atan2, in (-pi, pi]).
  for (const NaturalAngle& a : m.angles) {
    const Index off = m.scalars[static_cast<std::size_t>(a.scalar)].offset;
    if (given[static_cast<std::size_t>(off)]) continue;
    // (If another coordinate is missing, the error below names it; this value is not used.)
    NaturalKinematics<double> k;
    computeNaturalKinematics<double>(m, pb.q0, pb.v0, k);
    const Vec3 x = k.frames[static_cast<std::size_t>(a.body)].x;
    Vec3 xr = Vec3::UnitX(), yr = Vec3::UnitY();
    if (a.reference >= 0) {
      xr = k.frames[static_cast<std::size_t>(a.reference)].x;
      yr = k.frames[static_cast<std::size_t>(a.reference)].y;
    }
    pb.q0(off) = std::atan2(x.dot(yr), x.dot(xr));
    given[static_cast<std::size_t>(off)] = true;
  }
  for (Index i = 0; i < m.nq; ++i)
    if (!given[static_cast<std::size_t>(i)])
      r.fail(prob["positions"].Mark(), "positions: no initial value for coordinate " +
                                           m.coordinate_names[static_cast<std::size_t>(i)]);
  if (prob["velocities"]) readValues(prob["velocities"], "velocities", pb.v0, nullptr);
  if (const YAML::Node fixed = prob["fixed"]) {
    if (!fixed.IsSequence()) r.fail(fixed.Mark(), "fixed must be a list like [A.x, B]");
    for (const auto& f : fixed) {
      const std::string name = r.string(f, "fixed");
      const Index c = m.findCoordinate(name), pv = m.findPv(name);
      if (c >= 0) {
        pb.fixed[static_cast<std::size_t>(c)] = true;
      } else if (pv >= 0 && m.pvs[static_cast<std::size_t>(pv)].source == PvSource::kCoordinate) {
        for (int k = 0; k < dim; ++k)
          pb.fixed[static_cast<std::size_t>(m.pvs[static_cast<std::size_t>(pv)].offset + k)] = true;
      } else {
        r.fail(f.Mark(), "fixed: '" + name + "' is not a coordinate (e.g. A.x) or a moving PV");
      }
    }
  }
  return out;
}

NaturalInput loadNaturalInput(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, 0, "cannot open the file");
  return readNaturalInput(in, path);
}

bool declaresNaturalFormulation(const std::string& path) {
  try {
    const YAML::Node root = YAML::LoadFile(path);
    return root.IsMap() && root["formulation"] && root["formulation"].IsScalar() &&
           root["formulation"].Scalar() == "natural";
  } catch (const YAML::Exception&) {
    return false;  // the mixed-basis reader reports what is wrong with the file
  }
}

}  // namespace catena::natural
