/// @file chain_dynamics.cpp
/// Benchmark: the catenary chain of N slender links released at rest from its 'V'
/// (buildCatenaryChain) and integrated by generalized-alpha for --t-end seconds, with and
/// without K_c in the iteration matrix.
///
/// Per N and per iteration matrix (with / without K_c):
///   1. accuracy: the mid-chain joint point at t_end against a reference run with h_ref = h / 8
///      (same method: the error of the step h, not of the model);
///   2. cost: wall time per simulated second, steps, Newton iterations per step, rejected steps;
///   3. the largest step: h doubled from --dt until Newton fails to converge at a step (the
///      integrator then cuts it) or the run's midpoint error exceeds 10 % of the span; reported
///      as the largest h that ran without a single cut.
/// With --tolerance E the integrator adapts its step to the local error E (--dt is then the
/// largest step), the reference uses E/100, and item 3 reports the largest step accepted:
/// the cost at a stated accuracy.
/// Output: a markdown table on stdout and CSV (--csv).
///
///   bench_chain_dynamics --sizes 10,100,1000 --t-end 2 --dt 2e-3 --csv out.csv
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/generalized_alpha.hpp"
#include "model/generators.hpp"
#include "parallel/petsc_session.hpp"

using namespace catena;

namespace {

struct Options {
  std::vector<int> sizes = {10, 100, 1000};
  double t_end = 2.0, dt = 2e-3, tolerance = 0.0;
  std::string csv;
  std::vector<char*> petsc;
};

struct Run {
  bool ok = false;
  double seconds = 0.0;
  Vec3 midpoint = Vec3::Zero();
  DynamicsStats stats;
  std::string message;
};

Run simulate(const Model& m, const AssemblyPlan& plan, double h, double t_end, bool kc,
             double tolerance = 0.0) {
  GeneralizedAlphaOptions o;
  o.error_tolerance = tolerance;
  o.step = h;
  o.t_end = t_end;
  o.output_interval = t_end;  // only the end state is needed
  o.constraint_stiffness = kc;
  o.min_step = tolerance > 0.0 ? 1e-9 : h / 64.0;
  Run run;
  const auto t0 = std::chrono::steady_clock::now();
  const DynamicsResult r = integrateGeneralizedAlpha(m, plan, initialState(m), o, nullptr);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  run.ok = r.status.ok();
  run.message = r.status.message;
  run.stats = r.stats;
  // The joint point at mid-chain: the start of link N/2.
  const Index mid = static_cast<Index>(m.bodies.size() / 2);
  const Index marker = m.findMarker(m.bodies[mid].name + "/start");
  const Index qo = m.qOffset(mid);
  const Quat rho(r.state.q(qo + 3), r.state.q(qo + 4), r.state.q(qo + 5), r.state.q(qo + 6));
  run.midpoint = r.state.q.segment<3>(qo) + rho.normalized() * m.markers[marker].position;
  return run;
}

Options parse(int argc, char** argv) {
  Options o;
  o.petsc.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--sizes" && i + 1 < argc) {
      o.sizes.clear();
      std::stringstream ss(argv[++i]);
      std::string item;
      while (std::getline(ss, item, ',')) o.sizes.push_back(static_cast<int>(std::stod(item)));
    } else if (a == "--t-end" && i + 1 < argc) {
      o.t_end = std::stod(argv[++i]);
    } else if (a == "--dt" && i + 1 < argc) {
      o.dt = std::stod(argv[++i]);
    } else if (a == "--tolerance" && i + 1 < argc) {
      o.tolerance = std::stod(argv[++i]);
    } else if (a == "--csv" && i + 1 < argc) {
      o.csv = argv[++i];
    } else if (a.rfind("--", 0) == 0) {
      std::cerr << "usage: bench_chain_dynamics [--sizes N,N] [--t-end T] [--dt H] [--csv PATH]\n";
      std::exit(2);
    } else {
      o.petsc.push_back(argv[i]);
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  int pargc = static_cast<int>(o.petsc.size());
  o.petsc.push_back(nullptr);
  char** pargv = o.petsc.data();
  PetscSession session(&pargc, &pargv);
  std::ofstream csv;
  if (!o.csv.empty()) {
    csv.open(o.csv);
    csv << "links,kc,h_s,tolerance,t_end_s,ok,wall_s,wall_per_simulated_s,steps,newton_per_step,"
           "rejected,midpoint_error_m,largest_step_s\n";
  }
  std::cout << "# Catenary chain released from the 'V': generalized-alpha (rho_inf 0.8), t_end "
            << o.t_end << " s, "
            << (o.tolerance > 0.0 ? "local error tolerance " + std::to_string(o.tolerance) +
                                        ", largest step " + std::to_string(o.dt) + " s"
                                  : "h " + std::to_string(o.dt) + " s")
            << "\n\n"
            << "| N | K_c | wall s per simulated s | steps | Newton its / step | rejected | "
               "midpoint error m (vs "
            << (o.tolerance > 0.0 ? "tolerance/100" : "h/8") << ") | "
            << (o.tolerance > 0.0 ? "largest step accepted" : "largest h without cuts") << ", s |\n"
            << "|---:|---|---:|---:|---:|---:|---:|---:|\n";
  bool all_ok = true;
  for (int N : o.sizes) {
    CatenaryChainOptions co;
    co.links = N;
    const Model m = buildCatenaryChain(co);
    const AssemblyPlan plan = buildAssemblyPlan(m);
    const Run reference = o.tolerance > 0.0
                              ? simulate(m, plan, o.dt, o.t_end, true, o.tolerance / 100.0)
                              : simulate(m, plan, o.dt / 8.0, o.t_end, true);
    for (bool kc : {true, false}) {
      const Run r = simulate(m, plan, o.dt, o.t_end, kc, o.tolerance);
      const double error = (r.midpoint - reference.midpoint).norm();
      // Largest step: double h until a step is cut or the answer is off by 10 % of the span.
      double largest = o.tolerance > 0.0 ? r.stats.largest_step : 0.0;
      for (double h = o.dt; o.tolerance == 0.0 && h <= 0.5 * o.t_end; h *= 2.0) {
        const Run t = simulate(m, plan, h, o.t_end, kc);
        if (!t.ok || t.stats.rejected_steps > 0 || (t.midpoint - reference.midpoint).norm() > 1.0)
          break;
        largest = h;
      }
      all_ok = all_ok && r.ok && reference.ok;
      const double per_step =
          r.stats.steps ? double(r.stats.newton_iterations) / r.stats.steps : 0.0;
      std::cout << "| " << N << " | " << (kc ? "with" : "without") << " | " << std::setprecision(4)
                << r.seconds / o.t_end << " | " << r.stats.steps << " | " << per_step << " | "
                << r.stats.rejected_steps << " | " << std::setprecision(3) << error << " | "
                << largest << " |" << (r.ok ? "" : " FAILED: " + r.message) << "\n";
      if (csv)
        csv << std::setprecision(10) << N << ',' << kc << ',' << o.dt << ',' << o.tolerance << ','
            << o.t_end << ',' << r.ok << ',' << r.seconds << ',' << r.seconds / o.t_end << ','
            << r.stats.steps << ',' << per_step << ',' << r.stats.rejected_steps << ',' << error
            << ',' << largest << '\n';
    }
  }
  return all_ok ? 0 : 1;
}
