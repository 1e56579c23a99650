// bench_singular_passage: the double four-bar of inputs/ (planar, and the 3D model with full
// revolutes and 6 redundant rows) run for --t-end s through its horizontal (singular)
// configurations by every integrator at every tolerance (issue 28, item 2; docs/
// dynamics-redundant.md). For each run: whether it reached t_end, the largest position error of
// the five bars' centres against the parallelogram motion in closed form (the 1-DOF energy
// equation 3 theta'' = -3.5 g cos(theta), integrated by ARKODE Fehlberg 7(8) at rtol 1e-12:
// independent of catena's equations) over the outputs it produced, the time it left the
// parallelogram branch (the bars more than 1 cm from the parallelogram configuration at the first
// crank's own angle, so that a phase error is not counted; "-" if never), steps and wall time.
// Tolerances: generalized-alpha --tolerance tol; IDA and MCS rtol = tol, atol = tol / 100; the
// fixed-step generalized-alpha runs at the step sqrt(tol) (1e-2 .. 1e-5 s). Prints a Markdown
// table. With --lattices K,K: merged K x K four-bar lattices (one coupler per level) spinning
// without gravity, cranks vertical at -1 rad/s, which turn every crank uniformly for ever
// (theta = pi/2 - t: the kinetic energy depends on the levels' angles only through their
// differences), through a crossing of every cell at once every pi s; error: the largest
// |theta - (pi/2 - t)| over all cranks; tolerances 1e-6 .. 1e-10; MCS up to 2000 coordinates
// (beyond, the passages are bridged by generalized-alpha).
//
//   bench_singular_passage --t-end 10
//   bench_singular_passage --t-end 10 --lattices 4,10 --lattice-t-end 5

#include <cmath>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "assembly/plan.hpp"
#include "integrators/generalized_alpha.hpp"
#include "integrators/ida_dynamics.hpp"
#include "integrators/initial_state.hpp"
#include "integrators/mcs_dynamics.hpp"
#include "integrators/mcs_passages.hpp"
#include "integrators/rk_dynamics.hpp"
#include "io/yaml_loader.hpp"
#include "model/four_bar_lattice.hpp"
#include "parallel/petsc_session.hpp"
#include "reference_odes.hpp"
#include "support/options.hpp"
#include "support/stamp.hpp"
#include "support/timing.hpp"

using namespace catena;

namespace {

constexpr double kG = 9.81, kInterval = 0.01, kBranchError = 1e-2;
constexpr double kFirstCrossing = 0.714;  ///< s, the double four-bar's (closed form)

/// Centres of the bars on the parallelogram branch at crank angle theta (from +x): cranks j
/// hinged at (j, 0), couplers k between the tops of cranks k and k + 1 (1 m bars).
std::vector<Vec3> parallelogramCentres(double theta) {
  const double c = std::cos(theta), s = std::sin(theta);
  std::vector<Vec3> p;
  for (int j = 0; j < 3; ++j) p.emplace_back(j + 0.5 * c, 0.5 * s, 0.0);
  for (int k = 0; k < 2; ++k) p.emplace_back(k + 0.5 + c, s, 0.0);
  return p;
}

/// A double four-bar of inputs/ and the bodies whose centres are compared (the three cranks, the
/// two couplers).
struct FourBar {
  std::string file;
  Model model;
  AssemblyPlan plan;
  std::vector<Index> bars;
};

FourBar loadFourBar(const std::string& file) {
  FourBar f{file,
            loadMechanismFile(std::string(CATENA_SOURCE_DIR) + "/inputs/" + file + ".yaml").model,
            {},
            {}};
  f.plan = buildAssemblyPlan(f.model);
  for (const char* b : {"crank_0_0", "crank_0_1", "crank_0_2", "coupler_0_0", "coupler_0_1"})
    f.bars.push_back(f.model.findBody(b));
  return f;
}

/// The bars' centres at s (planar models: z = 0).
std::vector<Vec3> barCentres(const FourBar& f, const State& s) {
  const Model& m = f.model;
  std::vector<Vec3> p;
  for (Index b : f.bars)
    p.push_back(m.dimension == 2 ? Vec3(s.q(m.qOffset(b)), s.q(m.qOffset(b) + 1), 0.0)
                                 : Vec3(s.q.segment<3>(m.qOffset(b))));
  return p;
}

struct Row {
  std::string model, integrator;
  double tol = 0.0;
  bool reached = false;
  double t_stop = 0.0, error = 0.0, off_branch = 0.0, left_branch = -1.0, wall_ms = 0.0;
  long steps = 0;
  Index redundant = 0;
  std::size_t passages = 0;
  std::string why;
};

/// One run of `integrator` ("gen-alpha", "gen-alpha fixed", "IDA index 1|2|3", "MCS", "RK") at
/// tolerance tol: generalized-alpha --tolerance tol (fixed: the step sqrt(tol)); IDA, MCS and
/// Runge-Kutta (Verner 6(5)) rtol = tol, atol = tol / 100; outputs every kInterval s.
DynamicsResult integrate(const Model& m, const AssemblyPlan& plan, const State& start,
                         const std::string& name, double tol, double t_end,
                         const TrajectoryObserver& observe) {
  if (name.rfind("gen-alpha", 0) == 0) {
    GeneralizedAlphaOptions o;
    o.t_end = t_end;
    o.output_interval = kInterval;
    if (name == "gen-alpha fixed") {
      o.step = std::sqrt(tol);
      o.error_tolerance = 0.0;
    } else {
      o.error_tolerance = tol;
    }
    return integrateGeneralizedAlpha(m, plan, start, o, observe);
  }
  if (name == "MCS") {
    McsOptions o;
    o.t_end = t_end;
    o.output_interval = kInterval;
    o.rtol = tol;
    o.atol = tol / 100;
    return integrateMcsWithPassages(m, plan, start, o,
                                    [&](const State& s, const McsSample&) { return observe(s); })
        .dynamics;
  }
  if (name == "RK") {
    RkOptions o;
    o.t_end = t_end;
    o.output_interval = kInterval;
    o.rtol = tol;
    o.atol = tol / 100;
    return integrateRungeKutta(m, plan, start, o, observe);
  }
  IdaOptions o;
  o.formulation = name == "IDA index 1"   ? IdaFormulation::kIndex1
                  : name == "IDA index 3" ? IdaFormulation::kIndex3
                                          : IdaFormulation::kIndex2;
  o.t_end = t_end;
  o.output_interval = kInterval;
  o.rtol = tol;
  o.atol = tol / 100;
  return integrateIda(m, plan, start, o, observe);
}

std::string shortened(const std::string& s) {
  const std::string first = s.substr(0, s.find('\n'));
  return first.size() > 110 ? first.substr(0, 110) + "..." : first;
}

/// Times run() and fills the row's outcome columns; one line on stderr.
void finish(Row& row, const std::function<DynamicsResult()>& run) {
  const auto start = bench::Clock::now();
  const DynamicsResult d = run();
  row.wall_ms = bench::millisecondsSince(start);
  row.reached = d.status.ok();
  row.t_stop = d.state.t;
  row.steps = d.stats.steps;
  row.redundant = static_cast<Index>(d.redundant_rows.size());
  row.passages = d.passages.size();
  if (!row.reached) row.why = shortened(d.status.message);
  std::cerr << row.model << " " << row.integrator << " " << row.tol << ": "
            << (row.reached ? "reached" : "FAILED " + row.why) << "\n";
}

/// The table rows of `rows` (Markdown).
void printRows(const std::vector<Row>& rows) {
  for (const Row& w : rows) {
    std::ostringstream err, off, left;
    err << std::scientific << std::setprecision(2) << w.error;
    off << std::scientific << std::setprecision(2) << w.off_branch;
    if (w.left_branch >= 0.0)
      left << std::fixed << std::setprecision(2) << w.left_branch;
    else
      left << "-";
    std::cout << "| " << w.model << " | " << w.integrator << " | " << w.tol << " | "
              << (w.reached ? "yes" : "no (t = " + std::to_string(w.t_stop) + " s)") << " | "
              << err.str() << " | " << off.str() << " | " << left.str() << " | " << w.redundant
              << " | " << w.passages << " | " << w.steps << " | " << std::fixed
              << std::setprecision(0) << w.wall_ms << std::defaultfloat << std::setprecision(6)
              << " | " << w.why << " |\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  double t_end = 10.0;
  std::vector<int> lattices;
  double lattice_t_end = 5.0;
  bool four_bars = true;
  bench::OptionReader r(argc, argv,
                        "usage: bench_singular_passage [--t-end S] [--lattices K,K] "
                        "[--lattice-t-end S] [--skip-four-bars]\n");
  r.readAll({bench::option("--t-end", t_end), bench::option("--lattices", lattices),
             bench::option("--lattice-t-end", lattice_t_end),
             bench::flag("--skip-four-bars", four_bars, false)});
  PetscSession session(nullptr, nullptr);

  std::vector<double> times;
  for (int k = 0; k * kInterval <= t_end + 1e-12; ++k) times.push_back(k * kInterval);
  reference::OdeOptions ref_options;
  const Eigen::MatrixXd ref = reference::integrateOde(
      [](double, const Eigen::VectorXd& y) {
        Eigen::VectorXd d(2);
        d << y(1), -3.5 * kG * std::cos(y(0)) / 3.0;
        return d;
      },
      0.0, Eigen::Vector2d(M_PI / 2, -1.0), times, ref_options);

  std::vector<FourBar> four_bar_models;
  if (four_bars)
    for (const char* file : {"double_four_bar", "double_four_bar_3d"})
      four_bar_models.push_back(loadFourBar(file));
  std::vector<Row> rows;
  for (const FourBar& fb : four_bar_models) {
    const Model& m = fb.model;
    for (const char* integrator : {"gen-alpha", "gen-alpha fixed", "IDA index 2", "IDA index 1",
                                   "IDA index 3", "MCS", "RK"}) {
      for (double tol : {1e-4, 1e-6, 1e-8, 1e-10}) {
        Row row;
        row.model = fb.file;
        row.integrator = integrator;
        row.tol = tol;
        std::size_t k = 0;
        auto observe = [&](const State& s) {
          if (k >= times.size() || std::abs(s.t - times[k]) > 1e-9) return true;
          const std::vector<Vec3> p = barCentres(fb, s);
          // Error against the reference; distance from the parallelogram configuration with
          // the first crank's own angle (a phase error moves along the branch, not off it).
          const std::vector<Vec3> exact = parallelogramCentres(ref(0, k));
          const std::vector<Vec3> own = parallelogramCentres(std::atan2(p[0].y(), p[0].x()));
          double e = 0.0, off = 0.0;
          for (std::size_t i = 0; i < p.size(); ++i) {
            e = std::max(e, (p[i] - exact[i]).norm());
            off = std::max(off, (p[i] - own[i]).norm());
          }
          row.error = std::max(row.error, e);
          row.off_branch = std::max(row.off_branch, off);
          if (off > kBranchError && row.left_branch < 0.0) row.left_branch = s.t;
          ++k;
          return true;
        };
        finish(row, [&] {
          return integrate(m, fb.plan, initialState(m), integrator, tol, t_end, observe);
        });
        rows.push_back(row);
      }
    }
  }

  // Round-off: each tight run again from starts whose velocity is scaled by 1 + k eps
  // (k = 1..4 ulps; exactly consistent for this 1-DOF mechanism, whose exact motions then differ by
  // ~1e-14 m over 10 s): how far the runs end from the unperturbed one is what the formulation
  // makes of round-off.
  struct Spread {
    std::string model, integrator;
    double tol = 0.0, error_min = 1e300, error_max = 0.0, apart = 0.0, apart_before = 0.0;
    bool reached = true;
  };
  std::vector<Spread> spreads;
  for (const FourBar& fb : four_bar_models) {
    const Model& m = fb.model;
    for (const char* integrator : {"gen-alpha", "IDA index 2", "IDA index 1", "MCS", "RK"}) {
      Spread sp;
      sp.model = fb.file;
      sp.integrator = integrator;
      sp.tol = 1e-10;
      std::vector<std::vector<Vec3>> unperturbed;
      for (int k = 0; k <= 4; ++k) {
        State start = initialState(m);
        start.v *= 1.0 + k * std::numeric_limits<double>::epsilon();
        double error = 0.0;
        std::size_t i = 0;
        auto observe = [&](const State& s) {
          if (i >= times.size() || std::abs(s.t - times[i]) > 1e-9) return true;
          const std::vector<Vec3> p = barCentres(fb, s);
          const std::vector<Vec3> exact = parallelogramCentres(ref(0, i));
          for (std::size_t j = 0; j < p.size(); ++j) {
            error = std::max(error, (p[j] - exact[j]).norm());
            if (k > 0 && i < unperturbed.size()) {
              const double d = (p[j] - unperturbed[i][j]).norm();
              sp.apart = std::max(sp.apart, d);
              if (s.t < kFirstCrossing) sp.apart_before = std::max(sp.apart_before, d);
            }
          }
          if (k == 0) unperturbed.push_back(p);
          ++i;
          return true;
        };
        const DynamicsResult d = integrate(m, fb.plan, start, integrator, sp.tol, t_end, observe);
        sp.reached = sp.reached && d.status.ok();
        sp.error_min = std::min(sp.error_min, error);
        sp.error_max = std::max(sp.error_max, error);
      }
      std::cerr << sp.model << " " << sp.integrator << " round-off: " << sp.apart << " m\n";
      spreads.push_back(sp);
    }
  }

  std::cout << "Double four-bar through its singular configurations, t = 0.." << t_end
            << " s, outputs every " << kInterval << " s (" << bench::cpuModel() << ")\n\n";
  std::cout << "| model | integrator | tol | reached t_end | max centre error [m] | max off "
               "branch [m] | left the branch at [s] | rows left out | passages | steps | wall [ms] "
               "| failure |\n";
  std::cout << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  printRows(rows);

  if (!spreads.empty()) {
    std::cout
        << "\nThe same at tolerance 1e-10, five runs each from starts whose velocity is scaled "
           "by 1 + k eps, k = 0..4 (the exact motions differ by less than 1e-13 m)\n\n";
    std::cout
        << "| model | integrator | tol | all reached t_end | max centre error [m], five runs "
           "| largest distance from the k = 0 run before the first crossing [m] | and over the "
           "whole run [m] |\n";
    std::cout << "|---|---|---|---|---|---|---|\n";
    for (const Spread& sp : spreads) {
      std::ostringstream lo, hi, before, apart;
      before << std::scientific << std::setprecision(2) << sp.apart_before;
      lo << std::scientific << std::setprecision(2) << sp.error_min;
      hi << std::scientific << std::setprecision(2) << sp.error_max;
      apart << std::scientific << std::setprecision(2) << sp.apart;
      std::cout << "| " << sp.model << " | " << sp.integrator << " | " << sp.tol << " | "
                << (sp.reached ? "yes" : "no") << " | " << lo.str() << " .. " << hi.str() << " | "
                << before.str() << " | " << apart.str() << " |\n";
    }
  }

  // Merged K x K lattices spinning through their crossings.
  std::vector<Row> lattice_rows;
  for (const int K : lattices) {
    FourBarLatticeOptions o;
    o.levels = o.cells = K;
    o.merged_couplers = true;
    o.crank_angle = M_PI / 2;
    o.crank_rate = -1.0;
    Model m = buildFourBarLattice(o);
    m.gravity.setZero();
    const AssemblyPlan plan = buildAssemblyPlan(m);
    const InitialStateResult assembled = assembleInitialState(m, plan, initialState(m));
    std::vector<Index> cranks;
    for (Index b = 0; b < static_cast<Index>(m.bodies.size()); ++b)
      if (m.bodies[b].name.rfind("crank", 0) == 0) cranks.push_back(b);
    std::vector<std::string> integrators = {"gen-alpha",   "gen-alpha fixed", "IDA index 2",
                                            "IDA index 1", "IDA index 3",     "RK"};
    if (m.nv <= 2000) integrators.push_back("MCS");
    for (const std::string& integrator : integrators) {
      for (double tol : {1e-6, 1e-8, 1e-10}) {
        Row row;
        row.model = std::to_string(K) + "x" + std::to_string(K) + " merged";
        row.integrator = integrator;
        row.tol = tol;
        auto observe = [&](const State& s) {
          double lo = 1e300, hi = -1e300;
          for (Index b : cranks) {
            const double theta = s.q(m.qOffset(b) + 2);
            row.error =
                std::max(row.error, std::abs(std::remainder(theta - (M_PI / 2 - s.t), 2 * M_PI)));
            const double own = std::remainder(theta - s.q(m.qOffset(cranks[0]) + 2), 2 * M_PI);
            lo = std::min(lo, own);
            hi = std::max(hi, own);
          }
          // Cells folded (cranks no longer parallel): off the branch.
          row.off_branch = std::max(row.off_branch, hi - lo);
          if (hi - lo > kBranchError && row.left_branch < 0.0) row.left_branch = s.t;
          return true;
        };
        finish(row, [&] {
          return integrate(m, plan, assembled.state, integrator, tol, lattice_t_end, observe);
        });
        lattice_rows.push_back(row);
      }
    }
  }
  if (!lattice_rows.empty()) {
    std::cout << "\nMerged lattices spinning without gravity through their singular configurations"
                 " (every pi s from t = pi/2), t = 0.."
              << lattice_t_end << " s, outputs every " << kInterval << " s\n\n";
    std::cout << "| model | integrator | tol | reached t_end | max crank angle error [rad] | max "
                 "crank spread [rad] | left the branch at [s] | rows left out | passages | steps | "
                 "wall [ms] | failure |\n";
    std::cout << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    printRows(lattice_rows);
  }
  return 0;
}
