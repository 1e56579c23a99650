// catena simulate: time integration of a mechanism file (drivers/catena.cpp dispatches here).
//
// Sample runs:
//   catena simulate inputs/spin_top.yaml --t-end 10 --tolerance 1e-7
//   catena simulate inputs/spin_top.yaml --t-end 10 --dt 1e-3 --fixed-step
//   catena simulate inputs/pendulum.yaml --t-end 5 --output-interval 0.01 --csv out/p.csv
//   catena simulate inputs/anchor_chain.yaml --t-end 20 --vtk out/chain --no-kc
//   catena simulate inputs/spatial_pendulum.yaml --integrator ida --formulation index1
//   catena simulate inputs/spatial_pendulum.yaml --integrator ida --linear-solver petsc
//       -ida_pc_factor_mat_solver_type mumps      (the Newton and KKT solves with MUMPS)
//   catena simulate inputs/modified_2x2_four_bar.yaml --formulation mcs --continuation on
//       --t-end 1.7 --mcs-csv 2x2.mcs.csv   (QR projection, ARKODE Dormand-Prince; q', T, diag R1)
//   catena simulate inputs/natural/rscr.yaml   (formulation: natural; simulate_natural.cpp)
//
// The run starts from the file's initial state made consistent (positions on C = 0 with
// minimum-norm corrections, velocities on C_q v = -C_t), writes the time history (CSV, or a
// compact binary file when the name ends in .bin), a JSON summary with the solver statistics,
// optionally a ParaView series, and exits non-zero if the integration failed (the files then
// hold everything up to the failure).
//
// The files the command line does not name go to the folder out/ of the current directory
// (--output-dir DIR; docs/reliability.md "Where outputs go"). Every file goes through
// io/output_file.hpp (written to a temporary, checked, renamed into
// place); a file that cannot be written ends the run with "cannot write PATH: REASON" and exit
// status 1, and leaves no file behind. Ctrl-C (SIGINT) or SIGTERM stops the integration at the
// next output time: the time history ends with that time's complete row, the summary says
// "success": false and which signal, and the exit status is 128 + the signal (130, 143).

#include "simulate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/energy.hpp"
#include "formulations/natural/natural_yaml.hpp"
#include "integrator_choice.hpp"
#include "integrators/initial_state.hpp"
#include "integrators/mcs_dynamics.hpp"
#include "integrators/mcs_passages.hpp"
#include "io/checkpoint.hpp"
#include "io/json_writer.hpp"
#include "io/output_file.hpp"
#include "io/progress.hpp"
#include "io/yaml_loader.hpp"
#include "mpi_commands.hpp"
#include "output_split.hpp"
#include "parallel/petsc_session.hpp"
#include "report/mcs_writer.hpp"
#include "report/trajectory_writer.hpp"
#include "report/vtk_writer.hpp"
#include "simulate_json.hpp"

namespace {

using namespace catena;

struct SimulateArguments {
  std::string file, csv, json, vtk, bodies, joints;
  std::string output_dir = kDefaultOutputFolder;  ///< where the outputs not named go
  std::string integrator = "gen-alpha", formulation = "index2", linear_solver = "klu";
  std::string rk_table = "verner65";  ///< --integrator rk
  double accuracy = 0.0;              ///< --accuracy (ida, rk): > 0 runs the accuracy ladder
  // gen-alpha: error control by default (GeneralizedAlphaOptions), dt the largest step.
  double t_end = 1.0, dt = 1e-2, output_interval = -1.0, rho_inf = 0.5, rtol = 1e-6, atol = 1e-8,
         tolerance = IntegratorChoice{}.tolerance, newton_tolerance = 0.0;
  bool no_kc = false, terse = false, fixed_step = false, full_newton = false;
  const cli::CommandLine* line = nullptr;  ///< as parsed; line->petsc: argv for PETSc
  // --formulation mcs (integrators/mcs_dynamics.hpp), and which options were given explicitly.
  std::string continuation = "on", continuation_map = "exponential", mcs_csv;
  double rank_tolerance = kDefaultRankTolerance;
  bool align_basis = false, integrator_given = false, linear_solver_given = false,
       mcs_option_given = false;
  std::vector<std::string> given;  ///< every option on the command line
};

bool given(const SimulateArguments& a, const std::string& option) {
  return std::find(a.given.begin(), a.given.end(), option) != a.given.end();
}

/// The settings from the parsed command line; throws cli::UsageError for a bad value or a
/// combination that does not go together.
SimulateArguments readSimulate(const cli::CommandLine& line) {
  using cli::parseReal;
  using cli::RealRange;
  SimulateArguments a;
  a.line = &line;
  const RealRange seconds = RealRange::greaterThan(0.0, "s");
  const RealRange positive = RealRange::greaterThan(0.0);
  for (const auto& [s, v] : line.options) {
    a.given.push_back(s);
    if (s == "--t-end") a.t_end = parseReal(s, v, seconds);
    if (s == "--dt") a.dt = parseReal(s, v, seconds);
    if (s == "--output-interval") a.output_interval = parseReal(s, v, seconds);
    if (s == "--rho-inf")
      a.rho_inf =
          parseReal(s, v, RealRange::closedOpen(0.0, 1.0, "at 1 the index-3 scheme diverges"));
    if (s == "--rtol") a.rtol = parseReal(s, v, positive);
    if (s == "--atol") a.atol = parseReal(s, v, positive);
    if (s == "--tolerance")
      a.tolerance =
          parseReal(s, v, RealRange::greaterThan(0.0, {}, "--fixed-step: no error control"));
    if (s == "--newton-tolerance")
      a.newton_tolerance =
          parseReal(s, v, RealRange::atLeast(0.0, {}, "0: a hundredth of --tolerance"));
    if (s == "--rank-tolerance") a.rank_tolerance = parseReal(s, v, RealRange::open(0.0, 1.0));
    if (s == "--csv") a.csv = v;
    if (s == "--json") a.json = v;
    if (s == "--vtk") a.vtk = v;
    if (s == "--output-dir") a.output_dir = v;
    if (s == "--bodies") a.bodies = v;
    if (s == "--joints") a.joints = v;
    if (s == "--integrator") a.integrator = v;
    if (s == "--formulation") a.formulation = v;
    if (s == "--rk-table") a.rk_table = v;
    if (s == "--accuracy")
      a.accuracy =
          parseReal(s, v, {0.0, 0.1, true, false, {}, "a position error relative to the size"});
    if (s == "--linear-solver") a.linear_solver = v;
    if (s == "--continuation") a.continuation = v;
    if (s == "--continuation-map") a.continuation_map = v;
    if (s == "--mcs-csv") a.mcs_csv = v;
    if (s == "--align-basis") a.align_basis = true;
    if (s == "--no-kc") a.no_kc = true;
    if (s == "--fixed-step") a.fixed_step = true;
    if (s == "--full-newton") a.full_newton = true;
    if (s == "--terse") a.terse = true;
    a.integrator_given |= s == "--integrator";
    a.linear_solver_given |= s == "--linear-solver";
    a.mcs_option_given |= s == "--continuation" || s == "--continuation-map" || s == "--mcs-csv" ||
                          s == "--rank-tolerance" || s == "--align-basis";
  }
  if (line.arguments.size() > 1) throw cli::UsageError("more than one FILE");
  if (!line.arguments.empty()) a.file = line.arguments[0];
  std::string problem;
  if (a.file.empty()) problem = "expected a FILE";
  if (a.integrator != "gen-alpha" && a.integrator != "ida" && a.integrator != "rk")
    problem = "--integrator must be gen-alpha, ida or rk, got '" + a.integrator + "'";
  if (a.rk_table != "dp54" && a.rk_table != "verner65" && a.rk_table != "fehlberg78")
    problem = "--rk-table must be dp54, verner65 or fehlberg78, got '" + a.rk_table + "'";
  if (given(a, "--rk-table") && a.integrator != "rk")
    problem = "--rk-table is an option of --integrator rk";
  if (given(a, "--accuracy")) {
    if (!a.integrator_given) a.integrator = "ida";
    if (a.integrator == "gen-alpha" || a.formulation == "mcs")
      problem = "--accuracy is for --integrator ida or rk (the default with --accuracy: ida)";
    if (given(a, "--rtol") || given(a, "--atol"))
      problem = "--accuracy chooses rtol and atol itself; give either --accuracy or --rtol/--atol";
  }
  if (a.integrator == "rk" && given(a, "--formulation") && a.formulation != "mcs")
    problem =
        "--integrator rk integrates the index-1 form with projection; it takes no "
        "--formulation";
  if (a.formulation != "index3" && a.formulation != "index2" && a.formulation != "index1" &&
      a.formulation != "mcs")
    problem = "--formulation must be index3, index2, index1 or mcs, got '" + a.formulation + "'";
  const bool mcs = a.formulation == "mcs";
  if (mcs && a.integrator_given)
    problem =
        "--formulation mcs integrates the projected equations with ARKODE's explicit "
        "Dormand-Prince; it takes no --integrator (gen-alpha, ida and rk solve the DAE)";
  if (mcs && a.linear_solver_given)
    problem = "--linear-solver is for --integrator ida; --formulation mcs uses dense QR";
  if (!mcs && a.mcs_option_given)
    problem =
        "--continuation, --continuation-map, --mcs-csv, --rank-tolerance and "
        "--align-basis are options of --formulation mcs";
  if (a.continuation != "on" && a.continuation != "off")
    problem = "--continuation must be on or off, got '" + a.continuation + "'";
  if (a.continuation_map != "exponential" && a.continuation_map != "cayley" &&
      a.continuation_map != "projection")
    problem = "--continuation-map must be exponential, cayley or projection, got '" +
              a.continuation_map + "'";
  if (a.linear_solver != "klu" && a.linear_solver != "petsc")
    problem = "--linear-solver must be klu or petsc, got '" + a.linear_solver + "'";
  if (!problem.empty()) throw cli::UsageError(problem);
  return a;
}

/// `formulation: natural` inputs: the options that apply there, or an error naming the first
/// option that does not (exit 2).
int runNatural(const SimulateArguments& a) {
  for (const std::string& s : a.given)
    if (s != "--t-end" && s != "--output-interval" && s != "--rtol" && s != "--atol" &&
        s != "--formulation" && s != "--integrator" && s != "--csv" && s != "--json" &&
        s != "--output-dir" && s != "--terse") {
      std::cerr << "catena simulate: " << s << " does not apply to " << a.file
                << " (formulation: natural; options there: --t-end --output-interval --rtol "
                   "--atol --formulation index2|index3 --integrator ida --csv --json --output-dir "
                   "--terse)\n";
      return 2;
    }
  if (a.integrator != "ida" && given(a, "--integrator")) {
    std::cerr << "catena simulate: natural coordinates are integrated by IDA (the Lagrangian "
                 "facility), not --integrator "
              << a.integrator << "\n";
    return 2;
  }
  if (a.formulation != "index2" && a.formulation != "index3") {
    std::cerr << "catena simulate: natural coordinates take --formulation index2 (GGL, "
                 "default) or index3, not "
              << a.formulation << "\n";
    return 2;
  }
  NaturalSimulateOptions o;
  o.file = a.file;
  o.csv = a.csv;
  o.json = a.json;
  o.output_dir = a.output_dir;
  o.index3 = a.formulation == "index3";
  o.duration = given(a, "--t-end") ? a.t_end : 0.0;
  o.output_interval = given(a, "--output-interval") ? a.output_interval : 0.0;
  o.rtol = a.rtol;
  o.atol = a.atol;
  o.terse = a.terse;
  // The natural-coordinates runs do not start PETSc: every option passed through is unused.
  const cli::UnusedPetscOptionsWarning warn("catena", [&] { return a.line->petscOptions(); });
  return runSimulateNatural(o);
}

/// Names from a comma-separated list, each looked up; "" selects `fallback`.
std::vector<Index> select(const std::string& list, const std::vector<Index>& fallback,
                          const std::function<Index(const std::string&)>& find, const char* what) {
  if (list.empty()) return fallback;
  std::vector<Index> out;
  std::stringstream ss(list);
  std::string name;
  while (std::getline(ss, name, ',')) {
    const Index k = find(name);
    CATENA_CHECK(k >= 0, "--" << what << ": no " << what << " named '" << name << "'");
    out.push_back(k);
  }
  return out;
}

/// Default columns: every body of a small model, else the first, middle and last; the joints
/// to the ground (their reactions are the support forces).
TrajectoryColumns defaultColumns(const Model& m, const SimulateArguments& a) {
  TrajectoryColumns c;
  std::vector<Index> bodies, joints;
  const Index nb = static_cast<Index>(m.bodies.size());
  if (nb <= 10) {
    for (Index b = 0; b < nb; ++b) bodies.push_back(b);
  } else {
    bodies = {0, nb / 2, nb - 1};
  }
  for (std::size_t j = 0; j < m.joints.size(); ++j)
    if (m.markerBody(m.joints[j].marker2) == kGround ||
        m.markerBody(m.joints[j].marker1) == kGround)
      joints.push_back(static_cast<Index>(j));
  c.bodies = select(
      a.bodies, bodies, [&](const std::string& n) { return m.findBody(n); }, "body");
  c.joints = select(
      a.joints, joints,
      [&](const std::string& n) -> Index {
        for (std::size_t j = 0; j < m.joints.size(); ++j)
          if (m.joints[j].name == n) return static_cast<Index>(j);
        return -1;
      },
      "joint");
  return c;
}

/// What to change when a run is not accurate: the settings of the method that ran.
std::string accuracyAdvice(const SimulateArguments& a) {
  if (a.formulation == "mcs")
    return a.fixed_step ? "reduce --dt, or drop --fixed-step for Dormand-Prince's error control"
                        : "tighten --rtol and --atol";
  if (a.integrator == "rk") return "tighten --rtol and --atol";
  if (a.integrator == "ida")
    return a.formulation == "index3"
               ? "tighten --rtol and --atol, or use --formulation index2 (GGL), whose error test "
                 "also covers the velocities"
               : "tighten --rtol and --atol";
  return a.fixed_step ? "reduce --dt, or drop --fixed-step for error control, or use "
                        "--integrator ida"
                      : "reduce --tolerance (or --dt, the largest step), or use --integrator ida";
}

/// What the user should distrust in a run that reached its end: a fixed-step integrator has no
/// error estimate, so a step too large for a violent motion (a whipping chain) can give a
/// wrong trajectory that still satisfies C = 0. Energy is the witness where it is conserved.
std::vector<std::string> trustWarnings(const Model& m, const SimulateArguments& a, double e0,
                                       double e1, double kinetic) {
  std::vector<std::string> out;
  // Relative to the largest kinetic energy (the zero of the potential is arbitrary) when that
  // can measure it, else in joules.
  const EnergyChange change = judgeEnergyChange(e0, e1, kinetic);
  if (isConservative(m) && change.suspicious) {
    std::ostringstream os;
    os << "the energy changed " << change.description << " in a conservative model: the "
       << "trajectory is not accurate (" << accuracyAdvice(a) << ")";
    out.push_back(os.str());
  }
  return out;
}

void writeSummaryJson(std::ostream& os, const SimulateArguments& a, const Model& m,
                      const DynamicsResult& r, const TrajectoryWriter& traj, double e0, double e1,
                      double seconds, const std::vector<std::string>& warnings,
                      const McsResult* mcs, int signal, const AccuracyResult* ladder) {
  const DynamicsStats& s = r.stats;
  JsonWriter j(os);
  j.beginObject();
  j.key("input").value(a.file).key("units").value(kJsonUnits);
  j.key("analysis").value("simulate").key("method").value(r.method);
  if (a.integrator == "ida") j.key("linear_solver").value(a.linear_solver);
  writeSimulateModel(j, m);
  j.key("success").value(r.status.ok()).key("message").value(r.status.message);
  j.key("interrupted_by_signal").value(signal);
  j.key("warnings").array(warnings);
  j.key("worst_rows").array(r.worst_rows);
  j.key("redundant_rows").array(r.redundant_rows);
  if (!r.redundant_rows.empty()) j.key("multipliers").value(r.multipliers_note);
  writeSingularPassages(j, r.passages);
  j.key("t_reached_s").value(r.state.t).key("duration_requested_s").value(a.t_end);
  if (ladder) {
    // integrators/accuracy_control.hpp: the runs made and their differences.
    j.key("accuracy").beginObject();
    j.key("requested").value(a.accuracy).key("length_scale_m").value(ladder->length_scale);
    j.key("estimated_error_m").value(ladder->estimated_error);
    j.key("delivered_rtol").value(ladder->delivered_tolerance);
    j.key("rtols").array(ladder->tolerances).key("differences_m").array(ladder->differences);
    j.endObject();
  }
  writeSimulateStatistics(j, s);
  j.key("max_position_drift").value(traj.maxPositionDrift());
  j.key("max_velocity_drift").value(traj.maxVelocityDrift());
  j.key("energy_initial_J").value(e0).key("energy_final_J").value(e1);
  j.key("wall_seconds").value(seconds);
  if (mcs) {
    j.key("mcs").beginObject();
    j.key("continuation").value(a.continuation == "on").key("map").value(a.continuation_map);
    j.key("rank").value(static_cast<long>(mcs->rank)).key("dof").value(static_cast<long>(mcs->dof));
    j.key("flips").value(mcs->mcs.flips).key("rhs_evaluations").value(mcs->mcs.rhs_evaluations);
    j.key("singular_events").beginArray();
    for (const SingularEvent& e : mcs->singular_events) {
      j.beginObject().key("t_s").value(e.t).key("margin").value(e.margin);
      j.key("sampled_margin").value(e.sampled_margin).key("rows").beginArray();
      for (Index row : e.rows) j.value(m.rowName(row));
      j.endArray();
      j.key("qdot_continued").array(e.qdot_continued).key("qdot_new").array(e.qdot_new);
      j.endObject();
    }
    j.endArray().endObject();
  }
  j.endObject();
  os << "\n";
}

}  // namespace

int reportRunEnd(const std::string& file, const std::vector<std::string>& warnings,
                 const catena::Status& status, const std::vector<std::string>& worst_rows,
                 int stopped_by) {
  for (const std::string& w : warnings) std::cerr << file << ": warning: " << w << "\n";
  if (status.ok()) return 0;
  std::cerr << file << ": " << status.message << "\n";
  for (const std::string& w : worst_rows) std::cerr << "  " << w << "\n";
  return stopped_by != 0 ? 128 + stopped_by : 1;
}

catena::Status interruptedStatus(int signal, double t) {
  std::ostringstream os;
  os << "interrupted by signal " << signal << " (" << signalName(signal) << ") at t = " << t
     << " s; the files hold the run up to there";
  return catena::Status::failure(catena::Status::Code::kInterrupted, os.str());
}

std::vector<cli::OptionSpec> simulateOptions() {
  std::vector<cli::OptionSpec> o;
  for (const char* name : {"--t-end",
                           "--dt",
                           "--output-interval",
                           "--rho-inf",
                           "--csv",
                           "--json",
                           "--output-dir",
                           "--vtk",
                           "--bodies",
                           "--joints",
                           "--integrator",
                           "--formulation",
                           "--rtol",
                           "--atol",
                           "--tolerance",
                           "--newton-tolerance",
                           "--linear-solver",
                           "--continuation",
                           "--continuation-map",
                           "--mcs-csv",
                           "--rank-tolerance",
                           "--rk-table",
                           "--accuracy"})
    o.push_back({name, true});
  for (const char* name : {"--align-basis", "--no-kc", "--fixed-step", "--full-newton", "--terse"})
    o.push_back({name, false});
  return o;
}

/// Under mpirun: the options that the distributed IDA takes, or a cli::UsageError naming the
/// first that it does not.
DistributedSimulate distributedSettings(const SimulateArguments& a) {
  for (const std::string& s : a.given)
    if (s != "--t-end" && s != "--output-interval" && s != "--rtol" && s != "--atol" &&
        s != "--csv" && s != "--json" && s != "--output-dir" && s != "--terse" && s != "--bodies" &&
        s != "--joints" && s != "--integrator" && s != "--formulation")
      throw cli::UsageError(s +
                            " is not available under mpirun with more than one rank (there: IDA "
                            "index 2 with --t-end --output-interval --rtol --atol --csv --json "
                            "--output-dir --terse --bodies --joints)");
  if ((a.integrator_given && a.integrator != "ida") || a.formulation != "index2")
    throw cli::UsageError(
        "under mpirun with more than one rank simulate runs IDA index 2 (--integrator ida "
        "--formulation index2), not --integrator " +
        a.integrator + " --formulation " + a.formulation);
  DistributedSimulate d;
  d.file = a.file;
  d.csv = a.csv;
  d.json = a.json;
  d.output_dir = a.output_dir;
  d.t_end = a.t_end;
  d.output_interval = a.output_interval;
  d.dt = a.dt;
  d.rtol = a.rtol;
  d.atol = a.atol;
  d.terse = a.terse;
  d.columns = [a](const Model& m) { return defaultColumns(m, a); };
  return d;
}

int runSimulate(const cli::CommandLine& line) {
  SimulateArguments a = readSimulate(line);
  if (natural::declaresNaturalFormulation(a.file)) {
    if (refuseUnderMpirun("simulate (of a `formulation: natural` file)")) return 2;
    return runNatural(a);
  }
  if (a.output_interval <= 0.0) a.output_interval = std::max(a.dt, a.t_end / 1000.0);
  std::vector<char*> petsc = line.petsc;  // PETSc may reorder its argv
  int pargc = line.petscArgc();
  char** pargv = petsc.data();
  PetscSession session(&pargc, &pargv);
  const cli::UnusedPetscOptionsWarning warn("catena", [&] {
    return session.rank() == 0 ? session.unusedOptions() : std::vector<std::string>{};
  });
  // After PETSc, which installs handlers of its own: SIGINT and SIGTERM set a flag that the
  // integrators poll at every step.
  installTerminationHandler();
  stopStepsOnTermination(true);
  // Under mpirun with several ranks: the distributed IDA, reported by rank 0
  // (drivers/mpi_commands.hpp).
  if (session.size() > 1) {
    DistributedSimulate d;
    try {
      d = distributedSettings(a);
    } catch (const cli::UsageError& e) {
      if (session.rank() == 0)
        std::cerr << "catena simulate: " << e.what() << " (see catena simulate --help)\n";
      return 2;
    }
    return runDistributedSimulate(d, session.size(), session.rank());
  }

  // 1. Model and a consistent initial state.
  LoadedInput input = loadMechanismFile(a.file);
  for (const std::string& w : input.warnings) std::cerr << w << "\n";
  requireBodies(input.model, a.file);
  const Model& m = input.model;
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const InitialStateResult init = assembleInitialState(m, plan, initialState(m));
  if (!init.status.ok()) {
    std::cerr << a.file << ": the initial state is not consistent: " << init.status.message << "\n";
    for (const std::string& w : init.worst_rows) std::cerr << "  " << w << "\n";
    return 1;
  }

  // 2. Outputs.
  const std::string stem = std::filesystem::path(a.file).stem().string();
  const std::string csv =
      a.csv.empty() ? defaultOutputPath(a.output_dir, stem + ".trajectory.csv") : a.csv;
  const std::string json =
      a.json.empty() ? defaultOutputPath(a.output_dir, stem + ".simulate.json") : a.json;
  const std::string mcs_csv = a.formulation != "mcs" || !a.mcs_csv.empty()
                                  ? a.mcs_csv
                                  : defaultOutputPath(a.output_dir, stem + ".mcs.csv");
  OutputFile js(json);  // opened now: a path that cannot be written fails before the run
  TrajectoryWriter traj(csv, m, plan, defaultColumns(m, a));
  std::unique_ptr<VtkSeriesWriter> vtk;
  if (!a.vtk.empty()) vtk = std::make_unique<VtkSeriesWriter>(a.vtk, stem, m);
  // Progress on stderr (io/progress.hpp): on a terminal every 0.5 s, in a batch log every 5 s.
  Progress progress(!a.terse);
  const auto t0 = std::chrono::steady_clock::now();
  // A termination signal stops the integrator at its next step (core/termination.hpp), which
  // then hands the outputs it still holds to the observer and returns kInterrupted.
  double last_row = -std::numeric_limits<double>::infinity();  // s, the history's last row
  auto observer = [&](const State& s) {
    traj.write(s);
    last_row = s.t;
    if (vtk) vtk->write(s);
    progress.update([&] {
      std::ostringstream os;
      os << "simulate: t = " << std::setw(10) << s.t - init.state.t << " s of " << a.t_end << " ("
         << std::fixed << std::setprecision(1) << 100.0 * (s.t - init.state.t) / a.t_end << " %, "
         << progress.elapsed() << " s)";
      return os.str();
    });
    return true;
  };

  // 3. Integrate.
  const double e0 = computeEnergy(m, plan, init.state).total();
  IntegratorChoice c;
  c.integrator = a.integrator;
  c.formulation = a.formulation;
  c.linear_solver = a.linear_solver;
  c.rk_table = a.rk_table;
  c.accuracy = a.accuracy;
  c.t_end = a.t_end;
  c.dt = a.dt;
  c.output_interval = a.output_interval;
  c.rho_inf = a.rho_inf;
  c.rtol = a.rtol;
  c.atol = a.atol;
  c.tolerance = a.tolerance;
  c.newton_tolerance = a.newton_tolerance;
  c.kc = !a.no_kc;
  c.fixed_step = a.fixed_step;
  c.full_newton = a.full_newton;
  c.continuation = a.continuation;
  c.continuation_map = a.continuation_map;
  c.rank_tolerance = a.rank_tolerance;
  c.align_basis = a.align_basis;
  std::unique_ptr<McsResult> mcs;
  std::unique_ptr<McsCsvWriter> history;
  if (a.formulation == "mcs") history = std::make_unique<McsCsvWriter>(mcs_csv, m);
  AccuracyResult ladder;
  DynamicsResult r = integrateChoice(
      m, plan, init.state, c, observer, [&](const McsSample& x) { history->write(x); }, &mcs,
      &ladder);
  if (history) history->close();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  progress.clear();
  const double e1 = computeEnergy(m, plan, r.state).total();
  // The signal that stopped the run, or 0.
  const int stopped_by = r.status.code == Status::Code::kInterrupted ? terminationSignal() : 0;
  if (stopped_by != 0) r.status = interruptedStatus(stopped_by, r.state.t);
  // An interrupted run stopped at the end of an accepted step, between outputs: that state ends
  // the history, so that what the run reached is not lost (outputs far apart: a long run).
  if (stopped_by != 0 && endsInterruptedHistory(m, r.state, last_row)) {
    traj.write(r.state);
    if (vtk) vtk->write(r.state);
  }

  // 4. Report: the files are put in place (the history also after a failed run: it holds
  //    everything up to the failure), then what they hold is printed.
  const DynamicsStats& s = r.stats;
  traj.close();
  const std::vector<std::string> warnings = trustWarnings(m, a, e0, e1, traj.maxKineticEnergy());
  writeSummaryJson(js.stream(), a, m, r, traj, e0, e1, seconds, warnings, mcs.get(), stopped_by,
                   a.accuracy > 0.0 ? &ladder : nullptr);
  js.commit();
  std::string pvd;
  if (vtk) pvd = vtk->close();
  if (a.terse)
    std::cout << "reached_end " << (r.status.ok() ? "yes" : "no") << "\nwarnings "
              << warnings.size() << "\n";
  if (a.terse && !r.redundant_rows.empty())
    std::cout << "redundant_rows " << r.redundant_rows.size() << "\n";
  if (a.terse && !r.passages.empty())
    std::cout << "singular_passages " << r.passages.size() << "\n";
  if (a.terse && mcs)
    std::cout << "singular_events " << mcs->singular_events.size() << "\nflips " << mcs->mcs.flips
              << "\n";
  if (!a.terse) {
    std::cout << "simulation of '" << m.name << "' (" << r.method
              << "): " << (r.status.ok() ? "reached" : "STOPPED at") << " t = " << r.state.t
              << " s\n";
    if (!r.redundant_rows.empty()) {
      std::cout << "  redundant constraints: " << r.redundant_rows.size()
                << " row(s) left out at the start (" << r.multipliers_note << "):";
      for (const std::string& row : r.redundant_rows) std::cout << " [" << row << "]";
      std::cout << "\n";
    }
    printSingularPassages(std::cout, r.passages);
    if (a.accuracy > 0.0) {
      std::cout << "  accuracy " << a.accuracy << " of the size " << ladder.length_scale
                << " m: runs at rtol";
      for (double t : ladder.tolerances) std::cout << " " << t;
      std::cout << ", differences (m)";
      for (double d : ladder.differences) std::cout << " " << d;
      std::cout << "; delivered rtol " << ladder.delivered_tolerance
                << ", estimated position error <= " << ladder.estimated_error
                << " m (statistics below: that run's)\n";
    }
    std::cout << "  steps " << s.steps << " (rejected " << s.rejected_steps << ", step "
              << s.smallest_step << " .. " << s.largest_step << " s), Newton iterations "
              << s.newton_iterations << ", factorizations " << s.factorizations << "\n"
              << "  largest constraint drift: position " << traj.maxPositionDrift() << ", velocity "
              << traj.maxVelocityDrift() << "\n"
              << "  energy " << e0 << " J -> " << e1 << " J (change " << e1 - e0 << " J)\n"
              << "  wall time " << seconds << " s\n"
              << "time history written to " << csv << "\nsummary written to " << json << "\n";
    if (vtk) std::cout << "ParaView series: " << pvd << "\n";
    if (mcs) {
      std::cout << "  MCS: rank " << mcs->rank << ", f = " << mcs->dof << " minimal coordinates, "
                << mcs->mcs.rhs_evaluations << " RHS evaluations, " << mcs->mcs.flips
                << " sign flips of T; q', T and diag R1 written to " << mcs_csv << "\n";
      for (const SingularEvent& e : mcs->singular_events) {
        std::cout << "  singular configuration at t = " << e.t << " s (smallest pivot " << e.margin
                  << "; " << e.sampled_margin << " at the nearest step): the rank "
                  << "drops by " << e.rows.size() << ", vanished rows";
        for (Index row : e.rows) std::cout << " [" << m.rowName(row) << "]";
        std::cout << "; q' continued " << e.qdot_continued.transpose() << ", new "
                  << e.qdot_new.transpose() << "\n";
      }
    }
  }
  return reportRunEnd(a.file, warnings, r.status, r.worst_rows, stopped_by);
}
