// catena: the command-line driver.
//
// Description:
//   Thin front end to the catena library. Each subcommand reads a YAML mechanism file
//   (docs/input-format.md), runs one analysis, prints a short table on stdout and writes a JSON
//   summary (and more files), by default in the folder out/ of the current directory
//   (--output-dir; docs/reliability.md "Where outputs go"). The command line is read by
//   drivers/options.hpp (numbers whole and in range; an option of another command refused) before
//   any file is read. PETSc and SLEPc options pass through (-ksp_type,
//   -statics_pc_factor_mat_solver_type, -modal_eps_type, -modal_st_type, ...); those nothing read
//   are warned of at the end.
//
// Sample runs (each is a CTest regression test):
//   catena check inputs/anchor_chain.yaml
//   catena check --terse inputs/double_four_bar.yaml
//   catena statics inputs/pendulum.yaml
//   catena modal inputs/anchor_chain.yaml --modes 4 --vtk out/anchor_chain
//   catena simulate inputs/spin_top.yaml --t-end 10   (drivers/simulate.cpp)
//   catena mobility inputs/modified_double_four_bar.yaml
//   catena modal --help                  (the options of one command)
//   mpirun -np 4 catena modal inputs/anchor_chain.yaml   (distributed: drivers/mpi_commands.hpp)
//
// Exit status: 0 success, 1 invalid input, failed analysis (statics that did not converge,
// modes that were not found) or a file that could not be written ("cannot write PATH: REASON";
// io/output_file.hpp, docs/reliability.md), 2 bad command line; simulate: 128 + N when signal N
// (SIGINT, SIGTERM) stopped it (drivers/simulate.cpp).

#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"
#include "integrators/initial_state.hpp"
#include "integrators/mobility_history.hpp"
#include "io/memory_estimate.hpp"
#include "io/output_file.hpp"
#include "io/progress.hpp"
#include "io/report.hpp"
#include "io/yaml_loader.hpp"
#include "mobility/blockwise_rank.hpp"
#include "mobility/constraint_rank.hpp"
#include "modal/modal.hpp"
#include "modes_at_equilibrium.hpp"
#include "mpi_commands.hpp"
#include "options.hpp"
#include "parallel/petsc_session.hpp"
#include "report/mobility_report.hpp"
#include "report/run_report.hpp"
#include "simulate.hpp"
#include "solvers/blas_threads.hpp"
#include "statics/redundant_statics.hpp"
#include "statics/statics.hpp"
#include "statics_outputs.hpp"

namespace {

constexpr const char* kUsageHead =
    "usage: catena COMMAND [options] FILE [PETSc/SLEPc options]\n"
    "       catena COMMAND --help     the options of COMMAND only\n"
    "\n"
    "commands:\n";

constexpr const char* kUsageTail =
    "\n"
    "Single-dash options go to PETSc/SLEPc (statics, modal, simulate); one that nothing used is\n"
    "warned of at the end of the run. Input format: docs/input-format.md. Units: SI.\n";

/// A command of `catena`: its name, what it does, its options in the usage text and as the
/// parser checks them.
struct Command {
  const char* name;
  const char* summary;  ///< lines of the usage's list of commands
  const char* usage;
  std::vector<catena::cli::OptionSpec> options;
};

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      {"check",
       "  check [--terse] FILE   validate a mechanism file; print its summary and an assembly\n"
       "                         report (--terse: key-value lines for regression tests)\n",
       "  --terse                key-value lines (regression tests)\n",
       {{"--terse"}}},
      {"statics",
       "  statics FILE           static equilibrium (Newton with K_c); table + JSON summary\n",
       "  --no-kc                leave the tangent stiffness of constraints K_c out (for\n"
       "                         comparison)\n"
       "  --json PATH            JSON summary (default: OUT/STEM.statics.json)\n"
       "  --output-dir OUT       folder of the outputs not named (default out, created)\n"
       "  --terse                print only machine-comparable lines (regression tests)\n"
       "  --distributed-solver S under mpirun on several ranks: schur (default: each rank\n"
       "                         factors its own rows, docs/parallel-factorization.md) or\n"
       "                         mumps; one process always factors with KLU\n",
       {{"--no-kc"},
        {"--json", true},
        {"--output-dir", true},
        {"--terse"},
        {"--distributed-solver", true}}},
      {"modal",
       "  modal FILE             statics, then the modes at the equilibrium\n",
       "  --modes K              number of modes, >= 1 (default 4)\n"
       "  --target F             undamped: modes nearest F >= 0 Hz (default 0: the lowest)\n"
       "  --damped               use the first-order (damped) formulation even if D = 0\n"
       "  --vtk DIR              write ParaView animations of the mode shapes\n"
       "                         (DIR/STEM_mode_K.pvd)\n"
       "  --no-kc                leave the tangent stiffness of constraints K_c out (for\n"
       "                         comparison)\n"
       "  --json PATH            JSON summary (default: OUT/STEM.modal.json)\n"
       "  --output-dir OUT       folder of the outputs not named (default out, created)\n"
       "  --terse                print only machine-comparable lines (regression tests)\n"
       "  --distributed-solver S under mpirun on several ranks: schur (default) or mumps\n"
       "                         (statics and shift-and-invert); one process always uses KLU\n",
       {{"--distributed-solver", true},
        {"--modes", true},
        {"--target", true},
        {"--damped"},
        {"--vtk", true},
        {"--no-kc"},
        {"--json", true},
        {"--output-dir", true},
        {"--terse"}}},
      {"simulate",
       "  simulate FILE          time integration (generalized-alpha, IDA or explicit\n"
       "                         Runge-Kutta): time history, JSON;\n"
       "                         a `formulation: natural` FILE: IDA on its Lagrangian DAE, or\n"
       "                         kinematics under its drivers if it has no mass\n",
       "  --integrator I         gen-alpha (default; index 3, Lie group, error control), ida, or\n"
       "                         rk (explicit, index 1 with projection; non-stiff models)\n"
       "  --rk-table T           rk: verner65 (default), dp54 or fehlberg78 (ARKODE's pairs)\n"
       "  --formulation F        ida: index2 (GGL, default), index1 (with projection), index3\n"
       "  --formulation mcs      minimal coordinates by QR projection of C_q^T (Maggi-Kane),\n"
       "                         ARKODE Dormand-Prince 5(4) (--rtol --atol; --fixed-step: steps\n"
       "                         of --dt)\n"
       "  --continuation on|off  mcs: continue the tangent basis T from step to step (default\n"
       "                         on) or refactor it at every step (the traditional QR projection)\n"
       "  --continuation-map M   mcs: exponential (default), cayley, or projection (Procrustes\n"
       "                         step alone)\n"
       "  --align-basis          mcs: the first column of T along the initial velocity\n"
       "  --rank-tolerance T     mcs: relative threshold on |R_ii|, in (0, 1) (default 1e-10)\n"
       "  --mcs-csv PATH         mcs: t, rank, flips, q', q, diag R1, T (default\n"
       "                         OUT/STEM.mcs.csv)\n"
       "  --rtol R --atol A      ida, rk, mcs: error-test tolerances, > 0 (default 1e-6, 1e-8)\n"
       "  --accuracy E           ida (default with it), rk: wanted global position error relative\n"
       "                         to the mechanism's size, in (0, 0.1]; runs at rtol E/10, E/100,\n"
       "                         ... until two agree to E (docs/accuracy.md)\n"
       "  --t-end T              duration, > 0 s (default 1)\n"
       "  --dt H                 gen-alpha: the largest step, > 0 s (default 1e-2); with\n"
       "                         --fixed-step the step (cut and regrown only if Newton fails)\n"
       "  --output-interval DT   s between output rows, > 0 (default max(dt, t-end / 1000))\n"
       "  --rho-inf R            spectral radius at infinity, in [0, 1) (default 0.5)\n"
       "  --tolerance E          gen-alpha: local error per step, as a displacement relative to\n"
       "                         the mechanism's size, > 0 (default 1e-8: a global error near\n"
       "                         1e-4 of the size on the standard problems, docs/accuracy.md)\n"
       "  --fixed-step           gen-alpha: no error control, the step --dt throughout\n"
       "  --newton-tolerance N   gen-alpha: Newton's tolerance, >= 0 (default 0: a hundredth of\n"
       "                         --tolerance, at least 1e-10)\n"
       "  --full-newton          gen-alpha: a new iteration matrix at every Newton iteration\n"
       "                         (default: modified Newton, the factorization kept while it\n"
       "                         works)\n"
       "  --linear-solver S      ida: klu (default) or petsc (PETSc KSP/PC under -ida_)\n"
       "  --no-kc                leave K_c out of the iteration matrix (for comparison)\n"
       "  --csv PATH             time history (default OUT/STEM.trajectory.csv; *.bin: binary)\n"
       "  --bodies A,B  --joints J,K   columns (default: all bodies of small models, joints to\n"
       "                         the ground)\n"
       "  --json PATH            summary (default OUT/STEM.simulate.json)\n"
       "  --output-dir OUT       folder of the outputs not named (default out, created)\n"
       "  --vtk DIR              ParaView series DIR/STEM.pvd\n"
       "  --terse                key-value lines (regression tests)\n"
       "  Under mpirun with more than one rank: IDA index 2 on the model partitioned over\n"
       "  the ranks (--t-end --output-interval --rtol --atol --csv --json --output-dir --terse\n"
       "  --bodies --joints); rank 0 writes.\n"
       "  A `formulation: natural` FILE takes --t-end --output-interval --rtol --atol\n"
       "  --formulation index2|index3 --integrator ida --csv --json --output-dir\n"
       "  --terse.\n",
       simulateOptions()},
      {"mobility",
       "  mobility FILE          rank of the constraints at the initial configuration: degrees of\n"
       "                         freedom, redundant constraint rows (QR with column pivoting;\n"
       "                         block by block above 2000 velocity coordinates)\n",
       "  --rank-tolerance R     |R_ii| / |R_11| below R is dropped, in (0, 1) (default 1e-10)\n"
       "  --json PATH            JSON summary (default: OUT/STEM.mobility.json)\n"
       "  --output-dir OUT       folder of the outputs not named (default out, created)\n"
       "  --terse                key-value lines (regression tests)\n"
       "  --blockwise            the rank block by block at any size (the default above 2000\n"
       "                         velocity coordinates)\n"
       "  --t-end T              also along a simulation to T > 0 s: the rank at every output\n"
       "                         time, its changes, and the singular configurations met\n"
       "                         (dense: the projected (MCS) dynamics, rank at every step;\n"
       "                         block-wise: generalized-alpha, rank at every output)\n"
       "  --interval H           output interval of that simulation, > 0 s (default T / 500)\n"
       "  --margin M             a local minimum of the smallest retained |R_ii| / |R_11|\n"
       "                         below M > 0 is examined as a singular configuration (default\n"
       "                         0.05)\n"
       "  --csv PATH             the rank history along that simulation (default\n"
       "                         OUT/STEM.mobility.csv)\n",
       {{"--rank-tolerance", true},
        {"--json", true},
        {"--csv", true},
        {"--output-dir", true},
        {"--terse"},
        {"--blockwise"},
        {"--t-end", true},
        {"--interval", true},
        {"--margin", true}}},
  };
  return list;
}

const Command* findCommand(std::string_view name) {
  for (const Command& c : commands())
    if (name == c.name) return &c;
  return nullptr;
}

/// `catena --help`: every command and all their options.
void printUsage(std::ostream& os) {
  os << kUsageHead;
  for (const Command& c : commands()) os << c.summary;
  for (const Command& c : commands()) os << "\noptions of " << c.name << ":\n" << c.usage;
  os << kUsageTail;
}

/// `catena COMMAND --help`: that command's options only.
void printUsage(std::ostream& os, const Command& c) {
  os << "usage: catena " << c.name << " [options] FILE"
     << (std::string_view(c.name) == "check" || std::string_view(c.name) == "mobility"
             ? ""
             : " [PETSc/SLEPc options]")
     << "\n\n"
     << c.summary << "\noptions:\n"
     << c.usage << "\nInput format: docs/input-format.md. Units: SI.\n";
}

struct Arguments {
  std::string command, file, json, vtk, csv;
  std::string distributed_solver = "schur";               ///< under mpirun: schur or mumps
  std::string output_dir = catena::kDefaultOutputFolder;  ///< where outputs not named go
  bool terse = false, no_kc = false, damped = false, blockwise = false;
  int modes = 4;
  double target = 0.0;
  double rank_tolerance = catena::kDefaultRankTolerance;
  double t_end = 0.0, interval = 0.0, margin = 0.05;  ///< mobility along a simulation; s, s, -
  catena::cli::CommandLine line;                      ///< as parsed; line.petsc: argv for PETSc
};

/// The settings of check, statics, modal and mobility from their parsed command line; throws
/// cli::UsageError for a bad value.
Arguments readArguments(const std::string& command, catena::cli::CommandLine line) {
  using catena::cli::parseInteger;
  using catena::cli::parseReal;
  using catena::cli::RealRange;
  using catena::cli::UsageError;
  Arguments a;
  a.command = command;
  for (const auto& [option, value] : line.options) {
    if (option == "--terse") a.terse = true;
    if (option == "--no-kc") a.no_kc = true;
    if (option == "--damped") a.damped = true;
    if (option == "--blockwise") a.blockwise = true;
    if (option == "--json") a.json = value;
    if (option == "--vtk") a.vtk = value;
    if (option == "--csv") a.csv = value;
    if (option == "--output-dir") a.output_dir = value;
    if (option == "--distributed-solver") {
      if (value != "mumps" && value != "schur")
        throw UsageError("--distributed-solver: expected 'mumps' or 'schur', got '" + value + "'");
      a.distributed_solver = value;
    }
    if (option == "--modes") a.modes = static_cast<int>(parseInteger(option, value, 1, 1000000));
    if (option == "--target") a.target = parseReal(option, value, RealRange::atLeast(0.0, "Hz"));
    if (option == "--rank-tolerance")
      a.rank_tolerance = parseReal(option, value, RealRange::open(0.0, 1.0));
    if (option == "--t-end") a.t_end = parseReal(option, value, RealRange::greaterThan(0.0, "s"));
    if (option == "--interval")
      a.interval = parseReal(option, value, RealRange::greaterThan(0.0, "s"));
    if (option == "--margin") a.margin = parseReal(option, value, RealRange::greaterThan(0.0));
  }
  if (line.arguments.empty()) throw UsageError("expected a FILE");
  if (line.arguments.size() > 1)
    throw UsageError("more than one FILE ('" + line.arguments[0] + "', '" + line.arguments[1] +
                     "')");
  if (!a.csv.empty() && a.t_end == 0.0)
    throw UsageError("--csv is the rank history along a simulation: it needs --t-end");
  a.file = line.arguments[0];
  a.line = std::move(line);
  return a;
}

double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int runCheck(const Arguments& a) {
  using namespace catena;
  // 1. Read and validate the file.
  LoadedInput input = loadMechanismFile(a.file);
  for (const std::string& w : input.warnings) std::cerr << w << "\n";
  // 2. Assemble at the initial state.
  const AssemblyReport report = computeAssemblyReport(input.model);
  // 3. Can the initial state be made consistent? (minimum-norm Newton, sparse QR) A file whose
  //    initial state cannot be is not a valid start for any analysis: exit status 1.
  const Model& m = input.model;
  const InitialStateResult init = assembleInitialState(m, buildAssemblyPlan(m), initialState(m));
  auto verdict = [&] {
    if (init.status.ok()) return 0;
    std::cerr << a.file << ": error: the initial state cannot be assembled: " << init.status.message
              << "\n";
    return 1;
  };
  // 4. Report.
  if (a.terse) {
    printTerseCheck(std::cout, input.model, report);
    return verdict();
  }
  printModelSummary(std::cout, input.model);
  printAssemblyReport(std::cout, report);
  std::cout << "consistent initial state\n  " << (init.status.ok() ? "assembled" : "NOT assembled")
            << " in " << init.position_history.size() - 1 << " Newton iterations; C_q has rank "
            << init.rank << " of " << m.nc << " rows";
  if (init.rank_deficiency > 0) std::cout << " (" << init.rank_deficiency << " redundant)";
  std::cout << "\n";
  if (!init.status.ok()) {
    std::cout << "  " << init.status.message << "\n";
    for (const std::string& w : init.worst_rows) std::cout << "    " << w << "\n";
  }
  return verdict();
}

/// `catena mobility FILE --t-end T`: the rank at the output times of a simulation from the
/// assembled initial state `s0` (dense: the projected (MCS) dynamics; block-wise:
/// generalized-alpha with the block-wise rank); the history goes to --csv or
/// OUT/STEM.mobility.csv.
int runMobilityAlongSimulation(const Arguments& a, const catena::Model& m,
                               const catena::AssemblyPlan& plan, const catena::State& s0,
                               bool blockwise) {
  using namespace catena;
  MobilityRunOptions o;
  o.duration = a.t_end;
  o.interval = a.interval;
  o.rank_tolerance = a.rank_tolerance;
  o.margin = a.margin;
  o.blockwise = blockwise;
  const double t_end = s0.t + a.t_end;
  Progress progress(!a.terse);
  const auto on_sample = [&](double t) {
    progress.update([&] {
      std::ostringstream os;
      os << "mobility: t = " << t << " s of " << t_end << " s (" << progress.elapsed() << " s)";
      return os.str();
    });
  };
  // The block-wise path runs generalized-alpha, whose iteration matrix's solver needs PETSc.
  std::optional<PetscSession> session;
  if (blockwise) session.emplace(nullptr, nullptr);
  const MobilityHistory h = mobilityAlongSimulation(m, plan, s0, o, on_sample);
  progress.clear();
  printMobilityHistory(std::cout, m, h, a.terse);
  const std::string csv =
      a.csv.empty()
          ? defaultOutputPath(a.output_dir,
                              std::filesystem::path(a.file).stem().string() + ".mobility.csv")
          : a.csv;
  OutputFile out(csv);
  writeMobilityHistoryCsv(out.stream(), m, h);
  out.commit();
  if (!a.terse) std::cout << "history written to " << csv << "\n";
  return h.run.dynamics.status.ok() ? 0 : 1;
}

int runMobility(const Arguments& a) {
  using namespace catena;
  // 1. Read the model.
  LoadedInput input = loadMechanismFile(a.file);
  for (const std::string& w : input.warnings) std::cerr << w << "\n";
  requireBodies(input.model, a.file);
  const Model& m = input.model;
  const AssemblyPlan plan = buildAssemblyPlan(m);
  // Up to kDenseRankMaxCoordinates velocity coordinates the dense QRCP of C_q^T (it also gives
  // the tangent basis); above, block by block (mobility/blockwise_rank.hpp).
  const bool blockwise = usesBlockwiseRank(m, a.blockwise);
  // 2. The configuration: the initial state, assembled onto C = 0 when it can be
  //    (integrators/mobility_history.hpp, computeMobilityStart).
  const MobilityStart start = computeMobilityStart(m, plan, blockwise);
  const State& s0 = start.state;
  const std::string& where = start.where;
  const bool assembled = start.assembled;
  const std::string json =
      a.json.empty()
          ? defaultOutputPath(a.output_dir,
                              std::filesystem::path(a.file).stem().string() + ".mobility.json")
          : a.json;
  OutputFile js(json);  // opened now: a path that cannot be written fails before the analysis
  // 3. The rank and 4. the report.
  Progress progress(!a.terse);
  progress.milestone("mobility: rank of C_q (" + std::to_string(m.nc) + " rows) started");
  // The same report for either rank (ConstraintRank or BlockwiseRank).
  auto report = [&](const auto& r) {
    progress.milestone("mobility: rank done");
    progress.clear();
    if (a.terse)
      printTerseMobility(std::cout, m, r);
    else
      printMobility(std::cout, m, r, where);
    writeMobilityJson(js.stream(), a.file, m, r, where);
  };
  if (blockwise) {
    BlockwiseRankOptions o;
    o.tolerance = a.rank_tolerance;
    report(analyzeBlockwiseRank(m, plan, s0.q, s0.t, blockTreeForModel(m), o));
  } else {
    report(analyzeConstraintRank(m, plan, s0.q, s0.t, a.rank_tolerance));
  }
  js.commit();
  if (!a.terse) std::cout << "summary written to " << json << "\n";
  if (a.t_end > 0.0) {
    if (!assembled)
      throw Error(
          "mobility --t-end: no simulation from an initial state that could not be "
          "assembled (see above)");
    return runMobilityAlongSimulation(a, m, plan, s0, blockwise);
  }
  return 0;
}

int runStaticsAndModes(Arguments& a, bool modal) {
  using namespace catena;
  // 1. PETSc/SLEPc with the pass-through options.
  int pargc = a.line.petscArgc();
  char** pargv = a.line.petsc.data();
  PetscSession session(&pargc, &pargv);
  const cli::UnusedPetscOptionsWarning warn("catena", [&] {
    return session.rank() == 0 ? session.unusedOptions() : std::vector<std::string>{};
  });
  // Under mpirun with several ranks: the distributed analysis, reported by rank 0
  // (drivers/mpi_commands.hpp).
  if (session.size() > 1) {
    const DistributedCommand d{a.command, a.file,  a.json,   a.vtk,    a.output_dir,        a.terse,
                               a.modes,   a.no_kc, a.damped, a.target, a.distributed_solver};
    return runDistributedCommand(d, session.size(), session.rank());
  }
  // 2. Read the model.
  LoadedInput input = loadMechanismFile(a.file);
  for (const std::string& w : input.warnings) std::cerr << w << "\n";
  requireBodies(input.model, a.file);
  const Model& m = input.model;
  const AssemblyPlan plan = buildAssemblyPlan(m);
  // The JSON summary is opened now: a path that cannot be written fails before the analysis.
  const std::string stem = std::filesystem::path(a.file).stem().string();
  const std::string json =
      a.json.empty()
          ? defaultOutputPath(a.output_dir, stem + (modal ? ".modal.json" : ".statics.json"))
          : a.json;
  OutputFile js(json);
  // 3. Static equilibrium from the initial state.
  //    Progress on stderr (io/progress.hpp): a line per Newton iteration when one is due.
  Progress progress(!a.terse);
  StaticsOptions so;
  so.constraint_stiffness = !a.no_kc;
  so.on_iteration = [&](int it, const StaticsIteration& r) {
    progress.update([&] {
      std::ostringstream os;
      os << "statics: Newton iteration " << it << ", force residual " << r.force_residual
         << ", position residual " << r.position_residual << " (" << progress.elapsed() << " s)";
      return os.str();
    });
  };
  auto t0 = std::chrono::steady_clock::now();
  // An over-constrained model runs without its redundant rows (statics/redundant_statics.hpp).
  const StaticsWithIndependentRows reduced =
      solveStaticsWithIndependentRows(m, plan, initialState(m), so);
  const StaticsResult& st = reduced.result;
  const double statics_seconds = seconds(t0);
  const EquilibriumSummary eq = summarizeEquilibrium(m, plan, st.state);
  progress.clear();
  if (!a.terse) printStatics(std::cout, m, st, eq);
  for (const std::string& w : st.warnings) std::cerr << a.file << ": warning: " << w << "\n";
  // 4. Modes at the equilibrium.
  ModalResult mr;
  double modal_seconds = 0.0;
  if (modal && st.status.ok()) {
    ModalOptions mo;
    mo.modes = a.modes;
    mo.target_hz = a.target;
    mo.constraint_stiffness = !a.no_kc;
    mo.damped = a.damped;
    progress.milestone("modal: eigensolve for " + std::to_string(a.modes) + " modes started (" +
                       std::to_string(m.nv) + " velocity coordinates)");
    t0 = std::chrono::steady_clock::now();
    mr = solveModesAtEquilibrium(m, plan, reduced, mo);
    modal_seconds = seconds(t0);
    progress.milestone("modal: eigensolve done in " + std::to_string(modal_seconds) + " s");
    progress.clear();
    if (!a.terse) printModes(std::cout, m, mr);
  }
  // 5. Terse lines, JSON summary, VTK (statics_outputs.hpp).
  return writeStaticsOutputs({a.file, json, a.vtk, stem, a.terse}, m, st, eq, modal ? &mr : nullptr,
                             js, statics_seconds, modal_seconds);
}

/// Runs a command: a bad option value found late (cli::UsageError) is a message and exit status
/// 2; a catena::Error (bad input, failed I/O) a message and exit status 1.
template <typename Run>
int guarded(const std::string& command, Run&& run) {
  try {
    return run();
  } catch (const catena::cli::UsageError& e) {
    std::cerr << "catena " << command << ": " << e.what() << " (see catena " << command
              << " --help)\n";
    return 2;
  } catch (const catena::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc& e) {
    std::cerr << catena::serialOutOfMemoryMessage("running 'catena " + command + "'", e.what())
              << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "catena: internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Results identical for any number of OpenMP threads: the BLAS runs one (docs/parallel.md).
  catena::pinBlasToOneThread();
  if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
    printUsage(argc < 2 ? std::cerr : std::cout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  const Command* c = findCommand(command);
  if (!c) {
    std::cerr << "catena: unknown command '" << command << "'\n\n";
    printUsage(std::cerr);
    return 2;
  }
  // The command line is checked whole (cli::UsageError, exit status 2) before any file is read
  // or PETSc starts; simulate reads its own options' values first thing too.
  std::vector<catena::cli::CommandSpec> program;
  for (const Command& k : commands()) program.push_back({k.name, k.options});
  return guarded(command, [&] {
    const catena::cli::CommandLine line =
        catena::cli::parseCommandLine(argc, argv, 2, command, program);
    if (line.help) {
      printUsage(std::cout, *c);
      return 0;
    }
    // check and mobility run in one process: refused on several ranks.
    if ((command == "check" || command == "mobility") && catena::refuseUnderMpirun(command))
      return 2;
    if (command == "simulate") return runSimulate(line);
    Arguments a = readArguments(command, line);
    if (command == "check" || command == "mobility") {
      // Neither starts PETSc: every option passed through is unused.
      const catena::cli::UnusedPetscOptionsWarning warn("catena",
                                                        [&] { return line.petscOptions(); });
      return command == "check" ? runCheck(a) : runMobility(a);
    }
    return runStaticsAndModes(a, command == "modal");
  });
}
