// bench_mcs_continuation: the per-step cost of the tangent continuation (Omega, E(Omega h),
// Procrustes; mobility/tangent_continuation.hpp) against the traditional QR projection (a fresh
// factorization's basis every step) in the MCS integrator (integrators/mcs_dynamics.hpp), on the
// examples of the projection-continuation and QRCP papers (issue 5, item 7).
//
// For each example and mode (traditional, continuation with the exponential map, with the
// Cayley transform):
//   - fixed steps h (the papers' h where they give one): the same steps in every mode, so the
//     per-step costs compare directly: process CPU time per step (median of --repeats runs;
//     the wall time is in the CSV), RHS evaluations per step, and the time per step in the
//     QRCP, in the continuation itself and in the position correction (steady_clock around
//     each part, summed by the integrator);
//   - adaptive steps at rtol 1e-8: steps, RHS evaluations and wall time to the same end time.
// Writes a CSV (--csv PATH) and prints a Markdown table (benchmarks/run.sh mcs_continuation).
//
//   bench_mcs_continuation --repeats 3 --csv benchmarks/results/mcs_continuation.csv

#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "integrators/mcs_dynamics.hpp"
#include "io/yaml_loader.hpp"
#include "model/state.hpp"
#include "support/stamp.hpp"
#include "support/timing.hpp"

using namespace catena;

namespace {

struct Example {
  std::string name, source;
  Model model;
  double t_end, h;
};

/// The QRCP paper's planar pendulum (sec. 3.1) as catena writes it: a point mass at distance
/// 1 m from the origin, its rotation locked, the distance constraint given twice (m = n = 3,
/// rank 2); released horizontally.
constexpr const char* kPlanarPendulumDuplicated = R"(
name: planar_pendulum_duplicated
dimension: 2
gravity: [0, -9.81]
bodies:
  - {name: bob, mass: 1.0, inertia: 0, position: [1.0, 0]}
markers:
  - {name: bob/o, body: bob}
  - {name: ground/o, body: ground}
joints:
  - {name: no_spin, type: lock, mask: [0, 0, 1], marker1: bob/o, marker2: ground/o}
  - {name: rod_0, type: distance, length: 1.0, marker1: bob/o, marker2: ground/o}
  - {name: rod_1, type: distance, length: 1.0, marker1: bob/o, marker2: ground/o}
)";

struct Mode {
  const char* name;
  bool continuation;
  ContinuationMap map;
};

struct Measure {
  McsResult result;
  double wall = 0.0;  ///< s, median over the repeats
  double cpu = 0.0;   ///< s of process CPU time, median (less disturbed by other load)
};

Measure measure(const Example& e, const Mode& mode, double h, double rtol, int repeats) {
  const AssemblyPlan plan = buildAssemblyPlan(e.model);
  McsOptions o;
  o.t_end = e.t_end;
  o.output_interval = e.t_end;  // no output inside the run: its cost is the stepping
  o.fixed_step = h;
  o.rtol = rtol;
  o.atol = 1e-2 * rtol;
  o.continuation = mode.continuation;
  o.map = mode.map;
  Measure m;
  std::vector<double> walls, cpus;
  integrateMcs(e.model, plan, initialState(e.model), o, nullptr);  // warm-up, not timed
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = bench::Clock::now();
    const double c0 = bench::cpuSeconds();
    m.result = integrateMcs(e.model, plan, initialState(e.model), o, nullptr);
    cpus.push_back(bench::cpuSeconds() - c0);
    walls.push_back(bench::secondsSince(t0));
    if (!m.result.dynamics.status.ok()) {
      std::cerr << e.name << " (" << mode.name << "): " << m.result.dynamics.status.message << "\n";
      break;
    }
  }
  m.wall = bench::median(walls);
  m.cpu = bench::median(cpus);
  return m;
}

/// "+12 %" of a cost difference against the traditional step ("-" for the traditional row).
std::string percent(bool show, double part, double whole) {
  if (!show || !(whole > 0.0)) return "-";
  std::ostringstream os;
  os << std::showpos << std::lround(100.0 * part / whole) << " %";
  return os.str();
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 5;
  std::string csv_path = "mcs_continuation.csv";
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "--repeats" && i + 1 < argc) {
      repeats = std::stoi(argv[++i]);
    } else if (s == "--csv" && i + 1 < argc) {
      csv_path = argv[++i];
    } else {
      std::cerr << "usage: bench_mcs_continuation [--repeats N] [--csv PATH]\n";
      return 2;
    }
  }
  const std::string inputs = CATENA_SOURCE_DIR "/inputs/";
  auto load = [&](const char* stem) { return loadMechanismFile(inputs + stem + ".yaml").model; };
  // The papers' h: spatial pendulum 1e-3, slider-crank 1e-5, spin top 1e-4 (projection paper
  // sec. 3.2-3.4); the four-bars (ode45 in the QRCP paper) and pendulums at 1e-3.
  const std::vector<Example> examples = {
      {"planar pendulum, duplicated constraint", "QRCP 3.1",
       loadMechanismString(kPlanarPendulumDuplicated, "planar_pendulum_duplicated").model, 2.0,
       1e-3},
      {"pendulum (3D revolute)", "inputs/pendulum.yaml", load("pendulum"), 2.0, 1e-3},
      {"spatial pendulum", "projection 3.3", load("spatial_pendulum"), 1.0, 1e-3},
      {"spatial slider-crank", "projection 3.2", load("spatial_slider_crank"), 0.2, 1e-5},
      {"spin top", "projection 3.4", load("spin_top"), 1.0, 1e-4},
      {"double four-bar", "QRCP 3.2", load("double_four_bar"), 1.7, 1e-3},
      {"modified double four-bar", "QRCP 3.3", load("modified_double_four_bar"), 1.7, 1e-3},
      {"modified triple four-bar", "QRCP 3.4", load("modified_triple_four_bar"), 1.7, 1e-3},
      {"modified 2x2 four-bar", "QRCP 3.5", load("modified_2x2_four_bar"), 1.7, 1e-3},
  };
  const std::vector<Mode> modes = {{"traditional", false, ContinuationMap::kExponential},
                                   {"exponential", true, ContinuationMap::kExponential},
                                   {"cayley", true, ContinuationMap::kCayley},
                                   {"projection only", true, ContinuationMap::kProjection}};

  std::ofstream csv(csv_path);
  csv << "example,n,m,rank,f,mode,h_s,t_end_s,steps,rhs_per_step,wall_us_per_step,cpu_us_per_step,"
         "rhs_us_per_step,qr_us_per_step,continuation_us_per_step,correction_us_per_step,"
         "flips,singular_events,adaptive_steps,adaptive_rhs,adaptive_cpu_ms\n";
  std::cout << "CPU: " << bench::cpuModel() << "; median of " << repeats << " runs\n\n";
  std::cout << "| example | n | m | rank | f | h (s) | mode | steps | RHS/step | CPU us/step | "
               "QR us/step | continuation us/step | correction us/step | continuation / "
               "traditional step | CPU vs traditional | flips | adaptive (rtol 1e-8): steps, "
               "RHS, CPU ms |\n";
  std::cout << "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | "
               "--- | --- | --- | --- |\n";
  std::cout << std::fixed;
  for (const Example& e : examples) {
    double traditional_cpu = 0.0;
    for (const Mode& mode : modes) {
      const Measure fixed = measure(e, mode, e.h, 1e-8, repeats);
      const Measure adaptive = measure(e, mode, 0.0, 1e-8, repeats);
      const McsResult& r = fixed.result;
      const double steps = static_cast<double>(std::max(1L, r.dynamics.stats.steps));
      const double per = 1e6 / steps;
      const double wall_us = fixed.wall * per, cpu_us = fixed.cpu * per;
      if (!mode.continuation) traditional_cpu = cpu_us;
      const McsStats& s = r.mcs;
      csv << '"' << e.name << "\"," << e.model.nv << "," << e.model.nc << "," << r.rank << ","
          << r.dof << "," << mode.name << "," << e.h << "," << e.t_end << ","
          << r.dynamics.stats.steps << "," << s.rhs_evaluations / steps << "," << wall_us << ","
          << cpu_us << "," << s.seconds_rhs * per << "," << s.seconds_factorization * per << ","
          << s.seconds_continuation * per << "," << s.seconds_correction * per << "," << s.flips
          << "," << r.singular_events.size() << "," << adaptive.result.dynamics.stats.steps << ","
          << adaptive.result.mcs.rhs_evaluations << "," << 1e3 * adaptive.cpu << "\n";
      std::cout << "| " << e.name << " (" << e.source << ") | " << e.model.nv << " | " << e.model.nc
                << " | " << r.rank << " | " << r.dof << " | " << std::defaultfloat << e.h
                << std::fixed << " | " << mode.name << " | " << r.dynamics.stats.steps << " | "
                << std::setprecision(2) << s.rhs_evaluations / steps << " | "
                << std::setprecision(1) << cpu_us << " | " << s.seconds_factorization * per << " | "
                << s.seconds_continuation * per << " | " << s.seconds_correction * per << " | "
                << percent(mode.continuation, s.seconds_continuation * per, traditional_cpu)
                << " | " << percent(mode.continuation, cpu_us - traditional_cpu, traditional_cpu)
                << " | " << s.flips << " | " << adaptive.result.dynamics.stats.steps << ", "
                << adaptive.result.mcs.rhs_evaluations << ", " << std::setprecision(1)
                << 1e3 * adaptive.cpu << " |\n";
    }
  }
  return 0;
}
