// catena simulate on a `formulation: natural` input (docs/natural-coordinates.md).
//
// Sample runs:
//   catena simulate inputs/natural/rscr.yaml                       (IDA, GGL index 2, the file's
//   t_end) catena simulate inputs/natural/mechanism0.yaml --formulation index3 --rtol 1e-8 --atol
//   1e-10 catena simulate inputs/natural/closed_chain_robot.yaml         (no mass: kinematics)
//
// A mechanism with mass: the Lagrangian facility's DAE (momentum form, derivatives by AD)
// integrated by IDA from the problem's initial guess made consistent (its `fixed` coordinates
// kept). Without mass: a kinematic run in which the `fixed` coordinates are drivers moving at
// their given velocities (natural_kinematics_run.hpp). Either way: a CSV time history (t, q,
// q', energy, |C|, |C_q q'|), a JSON summary, and exit status 1 with the reason (time, worst
// constraints) if the run stopped early; the files then hold everything up to there. The files
// are written as in simulate.cpp (io/output_file.hpp), and SIGINT or SIGTERM stops the run
// there too (exit status 128 + the signal).

#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/energy.hpp"
#include "core/check.hpp"
#include "formulations/natural/natural_kinematics_run.hpp"
#include "formulations/natural/natural_run.hpp"
#include "formulations/natural/natural_yaml.hpp"
#include "io/checkpoint.hpp"
#include "io/json_writer.hpp"
#include "io/output_file.hpp"
#include "io/progress.hpp"
#include "simulate.hpp"

namespace {

using namespace catena;
using namespace catena::natural;

/// The time history: t, every coordinate and its rate, the energy, the constraint residuals;
/// each row reported to `progress` (a run from t0 to t_end).
class NaturalHistory {
 public:
  NaturalHistory(const std::string& path, const NaturalModel& m, Progress& progress, double t0,
                 double t_end)
      : path_(path), file_(path), progress_(progress), t0_(t0), t_end_(t_end) {
    std::ostream& os = file_.stream();
    os << "t_s";
    for (const std::string& n : m.coordinate_names) os << "," << n;
    for (const std::string& n : m.coordinate_names) os << "," << n << "_rate";
    os << ",energy_J,max_abs_C,max_abs_Cq_qdot\n" << std::setprecision(17);
    file_.check();
  }
  /// One row; throws catena::Error "cannot write PATH: REASON" if a write failed.
  void write(double t, const VecX& q, const VecX& v, double energy, double c, double cv) {
    std::ostream& os = file_.stream();
    os << t;
    for (Index i = 0; i < q.size(); ++i) os << "," << q(i);
    for (Index i = 0; i < v.size(); ++i) os << "," << v(i);
    os << "," << energy << "," << c << "," << cv << "\n";
    file_.check();
    max_c_ = std::max(max_c_, c);
    max_cv_ = std::max(max_cv_, cv);
    rows_++;
    progress_.update([&] {
      std::ostringstream p;
      p << "simulate: t = " << t - t0_ << " s of " << t_end_ - t0_ << " (" << progress_.elapsed()
        << " s)";
      return p.str();
    });
  }
  double maxPositionDrift() const { return max_c_; }
  double maxVelocityDrift() const { return max_cv_; }
  long rows() const { return rows_; }
  const std::string& path() const { return path_; }
  /// Puts the file in place (OutputFile::commit).
  void close() { file_.commit(); }

 private:
  std::string path_;
  OutputFile file_;
  Progress& progress_;
  double t0_, t_end_;
  double max_c_ = 0.0, max_cv_ = 0.0;
  long rows_ = 0;
};

}  // namespace

int runSimulateNatural(const NaturalSimulateOptions& o) {
  const NaturalInput in = loadNaturalInput(o.file);
  const NaturalModel& m = in.model;
  NaturalRunOptions ro = naturalRunOptions(in.problem, o.duration, o.output_interval);
  ro.index3 = o.index3;
  ro.rtol = o.rtol;
  ro.atol = o.atol;
  const double t_end = ro.t_end;
  const std::string stem = std::filesystem::path(o.file).stem().string();
  const std::string csv =
      o.csv.empty() ? defaultOutputPath(o.output_dir, stem + ".trajectory.csv") : o.csv;
  const std::string json =
      o.json.empty() ? defaultOutputPath(o.output_dir, stem + ".simulate.json") : o.json;
  CATENA_CHECK(csv.size() < 4 || csv.substr(csv.size() - 4) != ".bin",
               o.file << ": binary time histories (--csv *.bin) are for mixed-basis inputs; "
                         "give a .csv name");
  const bool kinematic = isMassless(m);
  installTerminationHandler();  // SIGINT, SIGTERM: the observers stop the run at an output
  OutputFile js(json);          // opened now: a path that cannot be written fails before the run
  Progress progress(!o.terse);
  NaturalHistory history(csv, m, progress, in.problem.t0, t_end);
  const auto t0 = std::chrono::steady_clock::now();
  NaturalRun run = runNaturalSimulation(
      in, ro, [&](double t, const VecX& q, const VecX& v, double energy, double c, double cv) {
        history.write(t, q, v, energy, c, cv);
        return !terminationRequested();
      });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // A signal stopped the run if it came while the run was going well.
  const int stopped_by = run.status.ok() ? terminationSignal() : 0;
  if (stopped_by != 0) run.status = interruptedStatus(stopped_by, run.t_reached);
  progress.clear();
  history.close();

  // The Jacobi integral v . L_v - L is conserved (L does not depend on t): its change, relative
  // to the largest kinetic energy, says whether to trust the trajectory.
  std::vector<std::string> warnings;
  const EnergyChange change =
      judgeEnergyChange(run.energy_initial, run.energy_final, run.max_kinetic);
  if (!kinematic && !std::isnan(run.energy_initial) && change.suspicious)
    warnings.push_back("the energy (Jacobi integral) changed " + change.description +
                       ": the trajectory is not accurate (tighten --rtol and --atol" +
                       (o.index3 ? ", or use --formulation index2 (GGL))" : ")"));

  JsonWriter j(js.stream());
  j.beginObject();
  j.key("input")
      .value(o.file)
      .key("units")
      .value(kJsonUnits)
      .key("analysis")
      .value("simulate")
      .key("formulation")
      .value("natural");
  j.key("method").value(run.method);
  j.key("model").beginObject();
  j.key("title").value(m.title).key("dimension").value(m.dimension);
  j.key("nq").value(static_cast<long>(m.nq)).key("nc").value(static_cast<long>(m.nc));
  j.key("bodies").value(static_cast<long>(m.bodies.size()));
  j.key("coordinates").array(m.coordinate_names).endObject();
  j.key("success").value(run.status.ok()).key("message").value(run.status.message);
  j.key("interrupted_by_signal").value(stopped_by);
  j.key("warnings").array(warnings);
  j.key("worst_rows").array(run.worst_rows);
  j.key("t_reached_s").value(run.t_reached).key("t_end_s").value(t_end);
  j.key("statistics").beginObject();
  j.key("steps").value(run.steps).key("newton_iterations").value(run.newton_iterations);
  if (!kinematic) {
    j.key("residual_evaluations").value(run.residual_evaluations);
    j.key("jacobian_evaluations").value(run.jacobian_evaluations);
    j.key("error_test_failures").value(run.error_test_failures);
    j.key("convergence_failures").value(run.convergence_failures);
  } else {
    j.key("rank_free_columns").value(static_cast<long>(run.rank));
    j.key("undriven_freedom").value(static_cast<long>(run.free_dof));
  }
  j.endObject();
  j.key("max_position_drift").value(history.maxPositionDrift());
  j.key("max_velocity_drift").value(history.maxVelocityDrift());
  if (!kinematic)
    j.key("energy_initial_J")
        .value(run.energy_initial)
        .key("energy_final_J")
        .value(run.energy_final);
  j.key("wall_seconds").value(seconds);
  j.endObject();
  js.stream() << "\n";
  js.commit();

  if (o.terse) {
    std::cout << "reached_end " << (run.status.ok() ? "yes" : "no") << "\nwarnings "
              << warnings.size() << "\n";
    if (kinematic) std::cout << "undriven_freedom " << run.free_dof << "\n";
  } else {
    std::cout << "simulation of '" << m.title << "' (natural coordinates, nq " << m.nq << ", nc "
              << m.nc << "; " << run.method << "): " << (run.status.ok() ? "reached" : "STOPPED at")
              << " t = " << run.t_reached << " s\n"
              << "  steps " << run.steps << ", Newton iterations " << run.newton_iterations
              << "\n  largest constraint drift: position " << history.maxPositionDrift()
              << ", velocity " << history.maxVelocityDrift() << "\n";
    if (!kinematic)
      std::cout << "  energy " << run.energy_initial << " J -> " << run.energy_final
                << " J (change " << run.energy_final - run.energy_initial << " J)\n";
    else
      std::cout << "  rank of C_q in the free coordinates " << run.rank << ", freedom the drivers "
                << "leave " << run.free_dof << " (minimum-norm motion there)\n";
    std::cout << "  wall time " << seconds << " s\ntime history written to " << csv
              << "\nsummary written to " << json << "\n";
  }
  return reportRunEnd(o.file, warnings, run.status, run.worst_rows, stopped_by);
}
