/// @file mpi_commands.cpp
/// `catena statics|modal FILE` on several ranks (drivers/mpi_commands.hpp): runStatics of
/// catena-scale on the input model, then the serial reports on rank 0 from the gathered state.

#include "mpi_commands.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <numbers>
#include <optional>
#include <string>

#include "core/check.hpp"
#include "io/checkpoint.hpp"
#include "io/output_file.hpp"
#include "io/scaling_study.hpp"
#include "mobility/independent_rows.hpp"
#include "modal/modal_system.hpp"
#include "options.hpp"
#include "report/run_report.hpp"
#include "scale_runs.hpp"
#include "statics_outputs.hpp"

namespace catena {
namespace {

/// An environment variable as a number, or `otherwise` if it is not set or not a number.
int environmentNumber(const char* name, int otherwise) {
  const char* value = std::getenv(name);
  if (!value || !*value) return otherwise;
  char* end = nullptr;
  const long n = std::strtol(value, &end, 10);
  return *end == '\0' && n >= 0 ? static_cast<int>(n) : otherwise;
}

/// The options of the serial command that the distributed run does not take (its statics and
/// modes use the defaults): a cli::UsageError naming the first.
void refuseSerialOnlyOptions(const DistributedCommand& c) {
  const char* option = c.no_kc           ? "--no-kc"
                       : c.damped        ? "--damped"
                       : c.target != 0.0 ? "--target"
                                         : nullptr;
  if (option)
    throw cli::UsageError(std::string(option) +
                          " is not available under mpirun with more than one rank (run it in "
                          "one process)");
}

/// The serial ModalResult of a distributed one of `model`: its summary, and its modes with their
/// shapes gathered on rank 0 (shapes: (velocity coordinates) x (modes), mass-normalized, the
/// model's numbering; a damped mode's imaginary part is not gathered: zeros), direction and
/// nodes by the serial classification along the model's bodies (the distributed one counts
/// sign changes in the partition's order).
ModalResult serialModes(const Model& model, const DistributedModalResult& d, const MatX& shapes) {
  ModalResult r;
  static_cast<ModalSummary&>(r) = d;
  ModalSystem whole;
  whole.model = &model;
  whole.owned_bodies = static_cast<Index>(model.bodies.size());
  const double two_pi = 2.0 * std::numbers::pi;
  for (std::size_t k = 0; k < d.modes.size(); ++k) {
    const DistributedMode& dm = d.modes[k];
    Mode mode;
    mode.s = dm.s;
    mode.eigenvalue = dm.mu;
    mode.frequency_hz = dm.frequency_hz;
    mode.natural_frequency_hz = std::abs(dm.s) / two_pi;
    mode.damping_ratio = std::abs(dm.s) > 0.0 ? -dm.s.real() / std::abs(dm.s) : 0.0;
    mode.residual = dm.slepc_error;
    mode.force_residual = dm.residual;
    mode.constraint_residual = dm.constraint_residual;
    mode.energy_fractions = dm.energy_fractions;
    mode.effective_mass = dm.effective_mass;
    mode.direction = dm.direction;
    mode.nodes = dm.nodes;
    mode.mass_normalized = shapes.col(static_cast<Index>(k));
    mode.shape_re = mode.mass_normalized;
    mode.shape_im = VecX::Zero(shapes.rows());
    classify(whole, d.plane_normal, mode);
    r.modes.push_back(std::move(mode));
  }
  return r;
}

/// The command's analysis and, on rank 0, its reports and files; the exit status (the same on
/// every rank). Throws what every rank throws alike (cli::UsageError, catena::Error).
int run(const DistributedCommand& c, int ranks, int rank) {
  const bool modal = c.command == "modal";
  refuseSerialOnlyOptions(c);
  // 1. The whole model on every rank (its warnings on rank 0's stderr, as the serial command's).
  const InputModel input = loadInputModel(c.file, "");
  const Model& m = input.model;
  // 2. The JSON summary opened on rank 0 before the analysis: a path that cannot be written
  //    fails on every rank (OutputFile's message names the path: no prefix, hence "").
  const std::string stem = std::filesystem::path(c.file).stem().string();
  std::string json = c.json;
  std::optional<OutputFile> js;
  onEveryRankAlike("", [&] {
    if (rank != 0) return;
    if (json.empty())
      json = defaultOutputPath(c.output_dir, stem + (modal ? ".modal.json" : ".statics.json"));
    js.emplace(json);
  });
  // 3. The distributed statics (and modes) of catena-scale's family "model", gathered on rank 0.
  ScalingStudy study;
  study.family = "model";
  study.program = "catena " + c.command;  // how its messages on stderr start
  study.input = c.file;
  study.analysis = c.command;
  study.modes = c.modes;
  study.linear_solver = c.solver == "schur" ? "schur" : "direct";
  checkScalingStudy(study);
  RunArrays arrays;
  arrays.gather = true;
  const auto t0 = std::chrono::steady_clock::now();
  runStatics(study, &input, static_cast<long>(m.bodies.size()), 0, ranks, rank, &arrays);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  StaticsResult& st = arrays.statics;
  const bool modes_ok = !modal || (st.status.ok() && arrays.modal.status.ok());
  const int status = st.status.ok() && modes_ok ? 0 : 1;
  if (rank != 0) return status;

  // 4. Rank 0: the serial reports at the gathered equilibrium. With rows left out, lambda is
  //    the minimum-norm multipliers of every row, as solveStaticsWithIndependentRows gives them.
  const AssemblyPlan plan = buildAssemblyPlan(m);
  st.state = std::move(arrays.whole);
  if (!arrays.rows.dropped.empty()) {
    st.redundant_rows = arrays.rows.dropped_names;
    if (st.state.lambda.size() == arrays.rows.model.nc)
      st.state.lambda =
          minimumNormMultipliers(m, plan, arrays.rows, st.state.q, st.state.t, st.state.lambda);
  }
  const EquilibriumSummary eq = summarizeEquilibrium(m, plan, st.state);
  const ModalResult mr =
      modal && st.status.ok() ? serialModes(m, arrays.modal, arrays.mode_shapes) : ModalResult{};
  const double modal_seconds = modal ? arrays.modal.setup_seconds + arrays.modal.assembly_seconds +
                                           arrays.modal.factor_seconds + arrays.modal.solve_seconds
                                     : 0.0;
  const std::string ran = std::to_string(ranks) + " MPI ranks (partitioner " + arrays.partitioner +
                          ", " + std::to_string(m.bodies.size()) + " bodies)";
  if (c.terse) {
    std::cout << "distributed " << ranks << " " << arrays.partitioner << "\n";
  } else {
    std::cout << "distributed: ran on " << ran << "\n";
    printStatics(std::cout, m, st, eq);
    if (modal && st.status.ok()) printModes(std::cout, m, mr);
  }
  for (const std::string& w : st.warnings) std::cerr << c.file << ": warning: " << w << "\n";
  // 5. Terse lines, JSON summary, VTK as the serial command writes them.
  return writeStaticsOutputs({c.file, json, c.vtk, stem, c.terse}, m, st, eq, modal ? &mr : nullptr,
                             *js, seconds - modal_seconds, modal_seconds);
}

}  // namespace

int runDistributedCommand(const DistributedCommand& c, int ranks, int rank) {
  // Errors that every rank throws alike (a bad or refused model, an option, a JSON path) are
  // said once, by rank 0; anything else on one rank ends the run rather than leave the others
  // waiting in a collective call.
  try {
    // Written if a library ends the process with exit() (MUMPS under mpirun).
    const UnexpectedExitNotice exit_notice("catena " + c.command, libraryExitText(rank, ranks));
    return run(c, ranks, rank);
  } catch (const cli::UsageError& e) {
    if (rank == 0)
      std::cerr << "catena " << c.command << ": " << e.what() << " (see catena " << c.command
                << " --help)\n";
    return 2;
  } catch (const Error& e) {
    if (rank == 0) std::cerr << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "catena " << c.command << ": rank " << rank << ": " << e.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
}

int launchedRanks() {
  return environmentNumber("OMPI_COMM_WORLD_SIZE", environmentNumber("PMI_SIZE", 1));
}

int launchedRank() {
  return environmentNumber("OMPI_COMM_WORLD_RANK", environmentNumber("PMI_RANK", 0));
}

bool refuseUnderMpirun(const std::string& command) {
  const int ranks = launchedRanks();
  if (ranks <= 1) return false;
  // MPI starts so that no rank exits before rank 0 has said why: mpiexec ends the job at the
  // first process that exits non-zero, which could otherwise cut rank 0 short.
  int started = 0;
  MPI_Initialized(&started);
  if (!started) MPI_Init(nullptr, nullptr);
  if (launchedRank() == 0)
    std::cerr << "catena " << command << ": runs in one process only, not on " << ranks
              << " MPI ranks; under mpirun 'catena statics', 'catena modal' and 'catena "
                 "simulate' (of a YAML model) run distributed\n";
  MPI_Barrier(MPI_COMM_WORLD);
  if (!started) MPI_Finalize();
  return true;
}

}  // namespace catena
