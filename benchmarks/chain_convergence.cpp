/// @file chain_convergence.cpp
/// Convergence study: the catenary chain of N slender rigid links (buildCatenaryChain: the
/// geometry of the tangent-stiffness paper's anchor chain, A(0,0,0), sag point C(5,0,-6),
/// B(10,0,0), 1 kg/m, gravity 9.81 m/s^2 along -z) against the continuous catenary of the same
/// span and length, and its four lowest modes, as N grows.
///
/// What is computed, per N (--sizes):
///   1. Reference: the catenary of span S = |AB| = 10 m between two points at the same height
///      and of length L = |AC| + |CB| = 2 sqrt(61) m, z(x) = a cosh((x - 5)/a) - a cosh(5/a),
///      with a from L = 2 a sinh(S / 2a) (bisection, then Newton, to 1e-14 relative). Analytic
///      horizontal tension H = a w (w = 9.81 N/m, the weight per metre), analytic mid-span sag
///      a - a cosh(5/a).
///   2. The exact equilibrium of the *discrete* chain (closed form up to one scalar): a uniform
///      rigid link is parallel to the force it transmits at its mid-point, so with horizontal
///      tension H the link k (k = 0..N-1) has tan(theta_k) = c (k + 1/2 - N/2), c = w l / H,
///      l = L / N; c solves sum_k l cos(theta_k) = S (bisection). Joint points are partial
///      sums of l (cos theta_k, 0, sin theta_k). This separates the solver's error (catena vs
///      the discrete closed form) from the discretization error (discrete chain vs catenary).
///   3. solveStatics from the generator's 'V' (Newton with K_c, PETSc/MUMPS; PETSc options with
///      the prefix statics_ pass through). Joint points: link_k/start (k = 0..N-1) and
///      link_{N-1}/end. For each point: the distance to the catenary in the x-z plane (the
///      foot of the normal, Newton on (x - x_p) + (z(x) - z_p) z'(x) = 0, combined with |y|)
///      and the z-difference at the point's x; the maximum over points of each. Mid-span sag:
///      z of link_{N/2}/start (x = 5 by symmetry). H: minus the x-component of the force of
///      end_a on link_0 (computeJointReactions); its spread along the chain is reported too.
///   4. solveModal (SLEPc shift-and-invert, prefix modal_) at the equilibrium: the --modes
///      lowest modes, with the library's classification (Mode::direction; Mode::nodes = 0 is
///      "swinging", > 0 "bending"). The links keep the radius --radius (default 0.02 m, the
///      generator's) at every N; it only enters the inertia, so the frequencies converge to
///      those of a continuous chain that keeps a rotary inertia r^2/4 per unit mass and length.
///   5. Observed orders between consecutive sizes, p = log(e_prev / e) / log(N / N_prev), for
///      the errors against the catenary; for the frequencies (no closed form) from three
///      consecutive sizes, p = log(|f_2 - f_1| / |f_3 - f_2|) / log(N_3 / N_2) (sizes doubling),
///      and a Richardson extrapolate f_R = f_N + (f_N - f_prev) / ((N / N_prev)^2 - 1), i.e.
///      with the expected order 2.
///
/// Output: markdown tables on stdout, progress on stderr (on a terminal), optional CSV (--csv) for
/// the plot (benchmarks/plot_chain_convergence.py). Exit status 0, or 1 if a statics or modal
/// analysis failed (the tables still show the sizes that worked).
///
/// Sample runs:
///   bench_chain_convergence                                # N = 10, 20, 40, 80, 160, 320
///   bench_chain_convergence --sizes 10,20,40 --modes 6 --csv out.csv
///   bench_chain_convergence --radius 1e-4                   # nearly no rotary inertia
///   bench_chain_convergence --sizes 320 -statics_ksp_view   # PETSc options pass through
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "analysis/reactions.hpp"
#include "modal/modal.hpp"
#include "model/generators.hpp"
#include "parallel/petsc_session.hpp"
#include "statics/statics.hpp"
#include "support/markdown_table.hpp"
#include "support/options.hpp"
#include "support/references.hpp"
#include "support/timing.hpp"

using namespace catena;
using namespace catena::bench;

namespace {

constexpr double kGravity = 9.81;  // m/s^2, buildCatenaryChain's

struct Options {
  std::vector<int> sizes = {10, 20, 40, 80, 160, 320};
  int modes = 4;
  double radius = CatenaryChainOptions{}.radius;  ///< m, link section (inertia only)
  bool modal = true;
  std::string csv;
  PetscArgs petsc;  ///< program name plus every argument that is not ours
};

constexpr const char* kUsage = R"(usage: bench_chain_convergence [options] [PETSc/SLEPc options]
  --sizes N1,N2,...  chain links (even, >= 2, increasing)  default 10,20,40,80,160,320
  --modes K          modes per size                        default 4
  --radius R         link radius in m (inertia only)       default 0.02
  --no-modal         statics only
  --csv PATH         write one row per size as CSV
  --help
PETSc/SLEPc options: -statics_* (Newton's linear solver), -modal_* (eigensolver).
)";

Options parseOptions(int argc, char** argv) {
  Options o;
  OptionReader r(argc, argv, kUsage, OptionReader::kPetscOptions);
  r.readAll({option("--sizes", o.sizes), option("--modes", o.modes), option("--radius", o.radius),
             flag("--no-modal", o.modal, false), option("--csv", o.csv)});
  o.petsc = r.petsc();
  if (o.sizes.empty() || o.modes < 1 || !(o.radius > 0.0))
    r.fail("invalid options: sizes, modes >= 1, radius > 0");
  for (std::size_t k = 0; k < o.sizes.size(); ++k)
    if (o.sizes[k] < 2 || o.sizes[k] % 2 || (k > 0 && o.sizes[k] <= o.sizes[k - 1])) {
      r.fail("sizes must be even, >= 2 and increasing");
    }
  return o;
}

/// The continuous catenary through (0, 0) and (span, 0) of length `length`.
struct Catenary {
  double span, length, a;
  double z(double x) const {
    return a * (std::cosh((x - 0.5 * span) / a) - std::cosh(0.5 * span / a));
  }
  double slope(double x) const { return std::sinh((x - 0.5 * span) / a); }
  double sag() const { return z(0.5 * span); }
  /// Distance in the x-z plane from (x_p, z_p) to the curve: Newton on the foot of the normal.
  double distance(double xp, double zp) const {
    double x = xp;
    for (int it = 0; it < 50; ++it) {
      const double d = z(x) - zp, s = slope(x);
      const double g = (x - xp) + d * s, dg = 1.0 + s * s + d * std::cosh((x - 0.5 * span) / a) / a;
      const double step = g / dg;
      x -= step;
      if (std::abs(step) <= 1e-15 * (1.0 + std::abs(x))) break;
    }
    return std::hypot(x - xp, z(x) - zp);
  }
};

/// a from length = 2 a sinh(span / 2a): the left side decreases from infinity to span as a
/// grows, so bracket, bisect, and polish with Newton.
Catenary solveCatenary(double span, double length) {
  auto f = [&](double a) { return 2.0 * a * std::sinh(0.5 * span / a) - length; };
  double lo = 1e-3 * span, hi = span;
  while (f(hi) > 0.0) hi *= 2.0;
  while (f(lo) < 0.0) lo *= 0.5;  // f(lo) overflows to +inf long before lo is tiny
  for (int it = 0; it < 200 && hi - lo > 1e-15 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (f(mid) > 0.0 ? lo : hi) = mid;
  }
  double a = 0.5 * (lo + hi);
  for (int it = 0; it < 3; ++it) {
    const double u = 0.5 * span / a;
    const double df = 2.0 * std::sinh(u) - 2.0 * u * std::cosh(u);
    a -= f(a) / df;
  }
  return {span, length, a};
}

Vec3 markerPoint(const Model& m, const VecX& q, const std::string& name) {
  const Marker& k = m.markers[m.findMarker(name)];
  const Index o = m.qOffset(k.body);
  const Quat r = Quat(q(o + 3), q(o + 4), q(o + 5), q(o + 6)).normalized();
  return q.segment<3>(o) + r * k.position;
}

struct SizeResult {
  int links = 0;
  bool statics_ok = false, modal_ok = false;
  std::string message;
  int newton_iterations = 0;
  double min_step = 1.0;
  double statics_seconds = 0.0, modal_seconds = 0.0;
  double max_distance = 0.0;  ///< m, joint point to the catenary (normal distance)
  double worst_x = 0.0;       ///< m, x of the joint point of max_distance
  double max_dz = 0.0;        ///< m, |z_p - z(x_p)|
  double max_discrete = 0.0;  ///< m, catena vs the discrete closed form
  double sag = 0.0;           ///< m (negative: below A-B)
  double H = 0.0;             ///< N
  double H_spread = 0.0;      ///< max |H_j - H| / H along the chain
  double H_discrete = 0.0;    ///< N, closed form of the discrete chain
  std::vector<Mode> modes;
};

SizeResult runSize(int N, const Catenary& cat, const Options& o) {
  SizeResult r;
  r.links = N;
  CatenaryChainOptions co;
  co.links = N;
  co.radius = o.radius;
  const Model m = buildCatenaryChain(co);
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const double w = kGravity * co.mass_per_length;

  auto t0 = Clock::now();
  const StaticsResult eq = solveStatics(m, plan, initialState(m));
  r.statics_seconds = secondsSince(t0);
  r.newton_iterations = static_cast<int>(eq.history.size()) - 1;
  for (std::size_t k = 1; k < eq.history.size(); ++k)
    r.min_step = std::min(r.min_step, eq.history[k].step);
  if (!eq.status.ok()) {
    r.message = eq.status.message;
    return r;
  }
  r.statics_ok = true;

  const DiscreteChain d = solveDiscreteChain(N, cat.span, cat.length);
  for (int k = 0; k <= N; ++k) {
    const Vec3 p = k < N ? markerPoint(m, eq.state.q, "link_" + std::to_string(k) + "/start")
                         : markerPoint(m, eq.state.q, "link_" + std::to_string(N - 1) + "/end");
    const double e = std::hypot(cat.distance(p.x(), p.z()), p.y());
    if (e > r.max_distance) {
      r.max_distance = e;
      r.worst_x = p.x();
    }
    r.max_dz = std::max(r.max_dz, std::abs(p.z() - cat.z(p.x())));
    r.max_discrete = std::max(r.max_discrete, (p - Vec3(d.x[k], 0.0, d.z[k])).norm());
    if (k == N / 2) r.sag = p.z();
  }
  const auto R = computeJointReactions(m, plan, eq.state.q, eq.state.t, eq.state.lambda);
  r.H = -R.front().force_world.x();  // end_a pulls link_0 towards -x
  for (std::size_t j = 0; j < R.size(); ++j) {
    const double hj = j + 1 < R.size() ? -R[j].force_world.x() : R[j].force_world.x();
    r.H_spread = std::max(r.H_spread, std::abs(hj - r.H) / r.H);
  }
  r.H_discrete = d.h_over_w * w;

  if (o.modal) {
    ModalOptions mo;
    mo.modes = o.modes;
    t0 = Clock::now();
    const ModalResult mr = solveModal(m, plan, eq.state, mo);
    r.modal_seconds = secondsSince(t0);
    r.modal_ok = mr.status.ok() && static_cast<int>(mr.modes.size()) == o.modes;
    if (!r.modal_ok)
      r.message = mr.status.ok() ? "modal: fewer modes than asked" : mr.status.message;
    r.modes = mr.modes;
  }
  return r;
}

/// Observed order from two errors at sizes n0 < n1 ("-" if undefined).
std::string order(double e0, double e1, int n0, int n1) {
  if (!(e0 > 0.0 && e1 > 0.0)) return "-";
  return formatNumber("%.2f", std::log(e0 / e1) / std::log(static_cast<double>(n1) / n0));
}

std::string classOf(const Mode& m) {
  return m.direction + (m.nodes == 0 ? " swinging" : " bending") + " (" + std::to_string(m.nodes) +
         ")";
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parseOptions(argc, argv);
  PetscSession session(o.petsc.argc(), o.petsc.argv());

  // 1. The continuous reference.
  const CatenaryChainOptions defaults;
  const double span = (defaults.end_b - defaults.end_a).norm();
  const double length =
      (defaults.sag_point - defaults.end_a).norm() + (defaults.end_b - defaults.sag_point).norm();
  const Catenary cat = solveCatenary(span, length);
  const double w = kGravity * defaults.mass_per_length;
  const double H_exact = cat.a * w;

  // 2.-4. Every size.
  std::vector<SizeResult> rs;
  bool all_ok = true;
  const bool progress = session.rank() == 0 && isatty(STDERR_FILENO);
  for (int N : o.sizes) {
    if (progress) std::cerr << "N = " << N << " ..." << std::flush;
    rs.push_back(runSize(N, cat, o));
    const SizeResult& r = rs.back();
    all_ok = all_ok && r.statics_ok && (!o.modal || r.modal_ok);
    if (!progress) continue;
    std::cerr << (r.statics_ok ? " statics ok" : " statics FAILED") << " (" << r.newton_iterations
              << " Newton iterations, " << formatNumber("%.2f", r.statics_seconds) << " s)";
    if (o.modal) std::cerr << (r.modal_ok ? ", modal ok" : ", modal FAILED");
    std::cerr << (r.message.empty() ? "" : ": " + r.message) << "\n";
  }

  // 5. Tables.
  std::cout << "# Catenary chain: convergence to the continuous catenary\n\n"
            << "Span S = " << formatNumber("%.1f", span)
            << " m, length L = 2 sqrt(61) = " << formatNumber("%.12f", length)
            << " m, 1 kg/m, g = 9.81 m/s^2, link radius " << o.radius << " m.\n"
            << "Catenary parameter a = " << formatNumber("%.14f", cat.a)
            << " m (L = 2 a sinh(S/2a), residual "
            << formatNumber("%.1e", 2 * cat.a * std::sinh(0.5 * span / cat.a) - length)
            << " m); H = a w = " << formatNumber("%.10f", H_exact)
            << " N; mid-span sag a - a cosh(S/2a) = " << formatNumber("%.12f", cat.sag())
            << " m.\n\n";

  std::cout << "## Statics from the 'V' (Newton with K_c)\n\n"
            << "| N | converged | Newton iterations | smallest damped Newton step | statics s | "
               "max joint-point distance, catena vs discrete closed form (m) | H, catena vs "
               "closed form (relative) | max relative spread of H along the chain |\n"
            << "|---:|:---|---:|---:|---:|---:|---:|---:|\n";
  for (const SizeResult& r : rs)
    std::cout << "| " << r.links << " | " << (r.statics_ok ? "yes" : "NO: " + r.message) << " | "
              << r.newton_iterations << " | " << formatNumber("%.3g", r.min_step) << " | "
              << formatNumber("%.3f", r.statics_seconds) << " | "
              << (r.statics_ok ? formatNumber("%.2e", r.max_discrete) : "-") << " | "
              << (r.statics_ok ? formatNumber("%+.1e", (r.H - r.H_discrete) / r.H_discrete) : "-")
              << " | " << (r.statics_ok ? formatNumber("%.1e", r.H_spread) : "-") << " |\n";

  std::cout << "\n## Joint points vs the analytic catenary\n\n"
            << "e_n: max over the N + 1 joint points of the distance to the curve (foot of the "
               "normal, x-z plane, with |y|), attained at x_max; e_z: max |z_p - z(x_p)|; sag "
               "error: z of the "
               "mid-span joint minus the analytic sag; H error: (H - a w) / (a w). p: observed "
               "order against the previous size.\n\n"
            << "| N | e_n (m) | p | x_max (m) | e_z (m) | p | mid-span z (m) | sag error (m) | p | "
               "H (N) | "
               "H error | p |\n"
            << "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  const SizeResult* prev = nullptr;
  for (const SizeResult& r : rs) {
    if (!r.statics_ok) continue;
    const double se = r.sag - cat.sag(), he = (r.H - H_exact) / H_exact;
    auto p = [&](double e_prev, double e) {
      return prev ? order(std::abs(e_prev), std::abs(e), prev->links, r.links) : "-";
    };
    std::cout << "| " << r.links << " | " << formatNumber("%.3e", r.max_distance) << " | "
              << p(prev ? prev->max_distance : 0, r.max_distance) << " | "
              << formatNumber("%.6f", r.worst_x) << " | " << formatNumber("%.3e", r.max_dz) << " | "
              << p(prev ? prev->max_dz : 0, r.max_dz) << " | " << formatNumber("%.9f", r.sag)
              << " | " << formatNumber("%+.3e", se) << " | "
              << p(prev ? prev->sag - cat.sag() : 0, se) << " | " << formatNumber("%.8f", r.H)
              << " | " << formatNumber("%+.3e", he) << " | "
              << p(prev ? (prev->H - H_exact) / H_exact : 0, he) << " |\n";
    prev = &r;
  }

  if (o.modal) {
    std::cout << "\n## Modes\n\nClassification from catena's Mode: direction (energy of the "
                 "body translations out of / in the chain's plane) and nodes (sign changes of "
                 "the dominant component along the links; 0 = swinging, > 0 = bending).\n\n"
              << "| N |";
    for (int k = 0; k < o.modes; ++k)
      std::cout << " f" << k + 1 << " (Hz) | mode " << k + 1 << " |";
    std::cout << " modal s |\n|---:|";
    for (int k = 0; k < o.modes; ++k) std::cout << "---:|:---|";
    std::cout << "---:|\n";
    for (const SizeResult& r : rs) {
      if (!r.modal_ok) continue;
      std::cout << "| " << r.links << " |";
      for (const Mode& md : r.modes)
        std::cout << " " << formatNumber("%.9f", md.frequency_hz) << " | " << classOf(md) << " |";
      std::cout << " " << formatNumber("%.3f", r.modal_seconds) << " |\n";
    }
    std::cout << "\n## Frequency convergence\n\nd: f(N) - f(previous N); p: observed order "
                 "log(|d_prev| / |d|) / log(N / N_prev); f_R: Richardson extrapolate with "
                 "order 2, f + d / ((N / N_prev)^2 - 1). A mode whose classification differs "
                 "from the previous size is marked (!): its difference compares different "
                 "modes.\n\n";
    for (int k = 0; k < o.modes; ++k) {
      std::cout << "Mode " << k + 1 << ":\n\n| N | f (Hz) | d (Hz) | p | f_R (Hz) |\n"
                << "|---:|---:|---:|---:|---:|\n";
      const SizeResult *p1 = nullptr, *p2 = nullptr;  // previous and the one before
      for (const SizeResult& r : rs) {
        if (!r.modal_ok) continue;
        const double f = r.modes[k].frequency_hz;
        std::cout << "| " << r.links << " | " << formatNumber("%.9f", f) << " | ";
        if (p1) {
          const bool same = classOf(p1->modes[k]) == classOf(r.modes[k]);
          const double d = f - p1->modes[k].frequency_hz;
          const double ratio = static_cast<double>(r.links) / p1->links;
          std::cout << formatNumber("%+.3e", d) << (same ? "" : " (!)") << " | "
                    << (p2 ? order(std::abs(p1->modes[k].frequency_hz - p2->modes[k].frequency_hz),
                                   std::abs(d), p1->links, r.links)
                           : "-")
                    << " | " << formatNumber("%.9f", f + d / (ratio * ratio - 1.0)) << " |\n";
        } else {
          std::cout << "- | - | - |\n";
        }
        p2 = p1;
        p1 = &r;
      }
      std::cout << "\n";
    }
  }

  if (!o.csv.empty()) {
    std::ofstream csv(o.csv);
    csv << "links,statics_ok,newton_iterations,max_distance,max_dz,sag_error,H_rel_error,"
           "max_discrete";
    for (int k = 0; k < o.modes; ++k) csv << ",f" << k + 1;
    csv << "\n";
    csv.precision(17);
    for (const SizeResult& r : rs) {
      csv << r.links << "," << r.statics_ok << "," << r.newton_iterations << "," << r.max_distance
          << "," << r.max_dz << "," << r.sag - cat.sag() << "," << (r.H - H_exact) / H_exact << ","
          << r.max_discrete;
      for (int k = 0; k < o.modes; ++k)
        csv << "," << (r.modal_ok ? r.modes[k].frequency_hz : std::nan(""));
      csv << "\n";
    }
  }
  return all_ok ? 0 : 1;
}
