// bench_tolerance_calibration: what the integrators' tolerances mean for the GLOBAL position
// error (issue 29, item 3). For each standard problem and each integrator at each tolerance:
// the largest body position error over the output times (every 0.1 s, the slider-crank 0.01 s,
// or --interval S) against an independent reference, in m and relative to the mechanism's
// length scale L (analysis/scales.hpp lengthScale, the scale generalized-alpha's error test
// uses), the ratio relative error / tolerance, steps and CPU seconds. Tolerances:
// generalized-alpha (error control) error_tolerance = tol, 1e-3 .. 1e-9; IDA index 2 and MCS
// rtol = tol, atol = tol L, 1e-4 .. 1e-10. All other options at their defaults (generalized-
// alpha and MCS take at least one step per output interval). A last run per integrator keeps
// its default tolerances (generalized-alpha 1e-5; IDA and MCS rtol 1e-6, atol 1e-8).
// Problems and references:
//   pendulum          inputs/pendulum.yaml, 4 s; planarPendulum (ARKODE Fehlberg 7(8), 1e-12)
//   spatial_pendulum  inputs/spatial_pendulum.yaml, 1 s; sphericalPendulum (same)
//   double_pendulum   inputs/double_pendulum.yaml, 2 s; doublePendulumTwoAngle (same)
//   spin_top          inputs/spin_top.yaml, 2 s; Euler's equations about the fixed tip with a
//                     quaternion (7 states, written here; ARKODE Fehlberg 7(8), 1e-12)
//   slider_crank      inputs/spatial_slider_crank.yaml, 2 s; catena's tightest runs
//   chain             inputs/catenary_chain.yaml (20 links) released from the V, 1 s; same
// The numerical references: IDA index 2 at rtol 1e-12, MCS at rtol 1e-12 and generalized-alpha
// at 1e-11, their pairwise differences printed; generalized-alpha and MCS are measured against
// the IDA run, IDA against the MCS run (never against itself). Prints Markdown; --csv FILE also
// writes one line per run for the plot.
//
//   bench_tolerance_calibration --csv results.csv
//   bench_tolerance_calibration --problems pendulum,chain

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/scales.hpp"
#include "assembly/plan.hpp"
#include "integrators/generalized_alpha.hpp"
#include "integrators/ida_dynamics.hpp"
#include "integrators/initial_state.hpp"
#include "integrators/mcs_dynamics.hpp"
#include "io/yaml_loader.hpp"
#include "parallel/petsc_session.hpp"
#include "reference_odes.hpp"
#include "support/options.hpp"
#include "support/stamp.hpp"
#include "support/timing.hpp"

using namespace catena;

namespace {

constexpr double kG = 9.81;

/// Body origins at the output times: column k holds the 3 nb coordinates at times[k].
using Positions = Eigen::MatrixXd;

struct Problem {
  std::string name, file;
  double t_end = 1.0;
  double interval = 0.1;  ///< s, between outputs
  /// The independent reference at `times` (empty: catena's tightest runs are the reference).
  std::function<Positions(const Model&, const std::vector<double>&)> reference;
};

struct Run {
  std::string problem, integrator;
  double tol = 0.0, error = 0.0, relative = 0.0, cpu = 0.0;
  long steps = 0;
  bool reached = false;
  std::string why;
  Positions p;
};

/// Bodies' positions in a 3 nb column.
Eigen::VectorXd positionsOf(const Model& m, const State& s) {
  const Index nb = static_cast<Index>(m.bodies.size());
  Eigen::VectorXd p(3 * nb);
  for (Index b = 0; b < nb; ++b) p.segment<3>(3 * b) = s.q.segment<3>(m.qOffset(b));
  return p;
}

/// The heavy top about its fixed tip: body angular velocity w, quaternion e (w, x, y, z);
/// I = diag(90, 90, 30) + 30 kg (1 m)^2 on the transverse axes, centre of mass at R e_z.
Positions spinTopReference(const std::vector<double>& times) {
  const Eigen::Vector3d inertia(120.0, 120.0, 30.0);
  const double mass = 30.0;
  const auto rhs = [&](double, const Eigen::VectorXd& y) {
    const Eigen::Quaterniond e(y(0), y(1), y(2), y(3));
    const Eigen::Matrix3d R = e.normalized().toRotationMatrix();
    const Eigen::Vector3d w = y.segment<3>(4);
    const Eigen::Vector3d torque =
        R.transpose() * (R * Eigen::Vector3d::UnitZ()).cross(Eigen::Vector3d(0, 0, -mass * kG));
    const Eigen::Vector3d Iw = inertia.cwiseProduct(w);
    Eigen::VectorXd d(7);
    const Eigen::Quaterniond de = e * Eigen::Quaterniond(0.0, w.x(), w.y(), w.z());
    d << 0.5 * de.w(), 0.5 * de.x(), 0.5 * de.y(), 0.5 * de.z(),
        (torque - w.cross(Iw)).cwiseQuotient(inertia);
    return d;
  };
  Eigen::VectorXd y0(7);
  y0 << std::sqrt(0.5), std::sqrt(0.5), 0.0, 0.0, 0.1, 0.1, 0.3;  // Rx(90 deg), paper's omega0
  const Eigen::MatrixXd y = reference::integrateOde(rhs, 0.0, y0, times);
  Positions p(3, y.cols());
  for (Index k = 0; k < y.cols(); ++k)
    p.col(k) = Eigen::Quaterniond(y(0, k), y(1, k), y(2, k), y(3, k)).normalized() *
               Eigen::Vector3d::UnitZ();
  return p;
}

std::vector<Problem> problems() {
  std::vector<Problem> list;
  list.push_back({"pendulum", "pendulum", 4.0, 0.1, [](const Model&, const std::vector<double>& t) {
                    // 30 deg on the -x side, swinging in x-z: r = L (sin th, 0, -cos th).
                    const auto s = reference::planarPendulum(4.0, kG, -M_PI / 6, 0.0, t);
                    Positions p(3, t.size());
                    for (Index k = 0; k < p.cols(); ++k)
                      p.col(k) << 4.0 * std::sin(s.theta(k)), 0.0, -4.0 * std::cos(s.theta(k));
                    return p;
                  }});
  list.push_back({"spatial_pendulum", "spatial_pendulum", 1.0, 0.1,
                  [](const Model&, const std::vector<double>& t) {
                    return Positions(reference::sphericalPendulum(1.0, 0.08, kG,
                                                                  Eigen::Vector3d(0.08, 0, 0),
                                                                  Eigen::Vector3d(0, 0.7895, 0), t)
                                         .r);
                  }});
  list.push_back({"double_pendulum", "double_pendulum", 2.0, 0.1,
                  [](const Model&, const std::vector<double>& t) {
                    const double m = 0.108, l = 0.2, a = 0.02;
                    const auto s = reference::doublePendulumTwoAngle(m, l, a, kG, M_PI / 9,
                                                                     M_PI / 18, 0.0, 0.0, t);
                    Positions p(6, t.size());
                    for (Index k = 0; k < p.cols(); ++k) {
                      const auto g = reference::doublePendulumPoints(l, s.phi(k), s.psi(k));
                      p.col(k) << g.g1.x(), g.g1.y(), 0.0, g.g2.x(), g.g2.y(), 0.0;
                    }
                    return p;
                  }});
  list.push_back({"spin_top", "spin_top", 2.0, 0.1,
                  [](const Model&, const std::vector<double>& t) { return spinTopReference(t); }});
  // Outputs every 0.01 s: at 0.1 s the branch watch (integrators/branch_watch.hpp) takes the
  // speed change of the block near t = 1.4 s for a jump off the branch and fails every run.
  list.push_back({"slider_crank", "spatial_slider_crank", 2.0, 0.01, nullptr});
  list.push_back({"chain", "catenary_chain", 1.0, 0.1, nullptr});
  return list;
}

/// One run of `integrator` ("gen-alpha", "IDA index 2", "MCS") at tolerance tol (see the file
/// comment; 0: the integrator's default tolerances), timed in CPU seconds; p gets the positions at
/// the output times reached.
Run integrate(const Model& m, const AssemblyPlan& plan, const State& start,
              const std::string& integrator, double tol, double t_end, double interval, double L) {
  Run run;
  run.integrator = integrator;
  run.tol = tol;
  std::vector<Eigen::VectorXd> columns;
  const auto observe = [&](const State& s) {
    columns.push_back(positionsOf(m, s));
    return true;
  };
  const double cpu0 = bench::cpuSeconds();
  DynamicsResult d;
  if (integrator == "gen-alpha") {
    GeneralizedAlphaOptions o;
    o.t_end = t_end;
    o.output_interval = interval;
    if (tol > 0.0) o.error_tolerance = tol;
    d = integrateGeneralizedAlpha(m, plan, start, o, observe);
  } else if (integrator == "MCS") {
    McsOptions o;
    o.t_end = t_end;
    o.output_interval = interval;
    if (tol > 0.0) {
      o.rtol = tol;
      o.atol = tol * L;
    }
    d = integrateMcs(m, plan, start, o, [&](const State& s, const McsSample&) {
          return observe(s);
        }).dynamics;
  } else {
    IdaOptions o;
    o.formulation = IdaFormulation::kIndex2;
    o.t_end = t_end;
    o.output_interval = interval;
    if (tol > 0.0) {
      o.rtol = tol;
      o.atol = tol * L;
    }
    d = integrateIda(m, plan, start, o, observe);
  }
  run.cpu = bench::cpuSeconds() - cpu0;
  run.reached = d.status.ok();
  run.steps = d.stats.steps;
  if (!run.reached) run.why = d.status.message.substr(0, d.status.message.find('\n'));
  run.p.resize(columns.empty() ? 0 : columns[0].size(), static_cast<Index>(columns.size()));
  for (std::size_t k = 0; k < columns.size(); ++k) run.p.col(static_cast<Index>(k)) = columns[k];
  return run;
}

/// max over the common output times of the largest body position difference, m.
double largestDifference(const Positions& a, const Positions& b) {
  double e = 0.0;
  const Index n = std::min(a.cols(), b.cols());
  for (Index k = 0; k < n; ++k)
    for (Index i = 0; i < a.rows(); i += 3)
      e = std::max(e, (a.col(k).segment<3>(i) - b.col(k).segment<3>(i)).norm());
  return e;
}

std::string sci(double v, int digits = 2) {
  std::ostringstream s;
  s << std::scientific << std::setprecision(digits) << v;
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> selected;
  std::string csv;
  double interval_option = 0.0;
  bench::OptionReader r(
      argc, argv,
      "usage: bench_tolerance_calibration [--problems NAME,...] [--interval S] [--csv FILE]\n");
  std::string names;
  r.readAll({bench::option("--problems", names), bench::option("--interval", interval_option),
             bench::option("--csv", csv)});
  if (!names.empty()) selected = bench::split(names);
  PetscSession session(nullptr, nullptr);

  const std::map<std::string, std::vector<double>> tolerances = {
      {"gen-alpha", {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9}},
      {"IDA index 2", {1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10}},
      {"MCS", {1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10}}};
  const std::vector<std::string> integrators = {"gen-alpha", "IDA index 2", "MCS"};

  std::ofstream csv_out;
  if (!csv.empty()) {
    csv_out.open(csv);
    csv_out << "problem,integrator,tol,error_m,relative,ratio,cpu_s,steps,reached\n";
  }
  std::cout << "# Tolerance calibration: global position error against the requested tolerance\n\n"
               "Outputs every 0.1 s (slider-crank: 0.01 s) unless --interval; error = max over "
               "output times of the largest body position error; relative = error / L (L: "
               "lengthScale of the model); ratio = relative / tol; default: the integrator's "
               "default tolerances. IDA and MCS: atol = tol L. CPU: process CPU seconds of the "
               "run, one thread ("
            << bench::cpuModel() << ").\n";

  for (const Problem& problem : problems()) {
    if (!selected.empty() &&
        std::find(selected.begin(), selected.end(), problem.name) == selected.end())
      continue;
    const Model m =
        loadMechanismFile(std::string(CATENA_SOURCE_DIR) + "/inputs/" + problem.file + ".yaml")
            .model;
    const AssemblyPlan plan = buildAssemblyPlan(m);
    const State start = initialState(m);
    const double L = lengthScale(m);
    const double interval = interval_option > 0.0 ? interval_option : problem.interval;
    std::vector<double> times;
    for (int k = 0; k * interval <= problem.t_end + 1e-12; ++k) times.push_back(k * interval);

    std::cout << "\n## " << problem.name << " (inputs/" << problem.file << ".yaml, "
              << problem.t_end << " s, outputs every " << interval << " s, L = " << L << " m)\n\n";
    // The reference of each integrator's runs.
    std::map<std::string, Positions> reference;
    if (problem.reference) {
      const Positions p = problem.reference(m, times);
      for (const std::string& i : integrators) reference[i] = p;
      std::cout << "Reference: independent ODE ("
                << (problem.name == "spin_top" ? "Euler's equations about the tip, "
                                                 "quaternion, in this file"
                                               : "tests/support/reference_odes")
                << "), ARKODE Fehlberg 7(8) at rtol 1e-12.\n\n";
    } else {
      const Run ida = integrate(m, plan, start, "IDA index 2", 1e-12, problem.t_end, interval, L);
      const Run mcs = integrate(m, plan, start, "MCS", 1e-12, problem.t_end, interval, L);
      const Run ga = integrate(m, plan, start, "gen-alpha", 1e-11, problem.t_end, interval, L);
      std::cout << "Reference: catena's tightest runs (IDA index 2 rtol 1e-12: "
                << (ida.reached ? "reached" : "FAILED " + ida.why) << ", " << ida.steps
                << " steps, " << std::setprecision(3) << ida.cpu
                << " s; MCS rtol 1e-12: " << (mcs.reached ? "reached" : "FAILED " + mcs.why) << ", "
                << mcs.steps << " steps, " << mcs.cpu
                << " s; gen-alpha 1e-11: " << (ga.reached ? "reached" : "FAILED " + ga.why) << ", "
                << ga.steps << " steps, " << ga.cpu << " s). They differ by: IDA - MCS "
                << sci(largestDifference(ida.p, mcs.p)) << " m, IDA - gen-alpha "
                << sci(largestDifference(ida.p, ga.p)) << " m, MCS - gen-alpha "
                << sci(largestDifference(mcs.p, ga.p))
                << " m. Gen-alpha and MCS are measured against the IDA run, IDA against the MCS "
                   "run.\n\n"
                << std::defaultfloat;
      reference["gen-alpha"] = ida.p;
      reference["MCS"] = ida.p;
      reference["IDA index 2"] = mcs.p;
    }

    std::cout << "| integrator | tol | reached | error [m] | relative | ratio | steps | CPU [s] "
                 "|\n|---|---|---|---|---|---|---|---|\n";
    for (const std::string& integrator : integrators) {
      std::vector<double> sweep = tolerances.at(integrator);
      sweep.push_back(0.0);  // the defaults
      for (const double tol : sweep) {
        Run run = integrate(m, plan, start, integrator, tol, problem.t_end, interval, L);
        run.problem = problem.name;
        run.error = largestDifference(run.p, reference[integrator]);
        run.relative = run.error / L;
        std::cerr << problem.name << " " << integrator << " " << tol << ": " << sci(run.error)
                  << " m, " << run.cpu << " s" << (run.reached ? "" : " FAILED " + run.why) << "\n";
        std::cout << "| " << integrator << " | "
                  << (tol > 0.0 ? sci(tol, 0) : std::string("default")) << " | "
                  << (run.reached ? "yes" : "no: " + run.why) << " | " << sci(run.error) << " | "
                  << sci(run.relative) << " | "
                  << (tol > 0.0 ? sci(run.relative / tol) : std::string("-")) << " | " << run.steps
                  << " | " << std::fixed << std::setprecision(3) << run.cpu << std::defaultfloat
                  << " |\n";
        if (csv_out)
          csv_out << problem.name << "," << integrator << "," << tol << "," << run.error << ","
                  << run.relative << "," << (tol > 0.0 ? run.relative / tol : 0.0) << "," << run.cpu
                  << "," << run.steps << "," << (run.reached ? 1 : 0) << "\n";
      }
    }
  }
  return 0;
}
