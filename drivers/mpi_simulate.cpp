/// @file mpi_simulate.cpp
/// `catena simulate FILE` on several ranks (drivers/mpi_commands.hpp): the distributed IDA on
/// the partitioned model, the time history and the summary written by rank 0.

#include <mpi.h>

#include <chrono>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include "analysis/energy.hpp"
#include "core/check.hpp"
#include "core/termination.hpp"
#include "integrators/distributed_dynamics.hpp"
#include "integrators/initial_state.hpp"
#include "io/checkpoint.hpp"
#include "io/json_writer.hpp"
#include "io/output_file.hpp"
#include "mobility/independent_rows.hpp"
#include "mpi_commands.hpp"
#include "options.hpp"
#include "output_split.hpp"
#include "parallel/distributed_assembly.hpp"
#include "scale_model.hpp"
#include "simulate_json.hpp"

namespace catena {
namespace {

/// The state of a rank's part (owned bodies, then ghosts) from a state of the whole model.
State localState(const Model& local, const InputNumbering& numbering, const Model& whole,
                 const State& s) {
  State out = initialState(local);
  out.t = s.t;
  for (Index b = 0; b < static_cast<Index>(local.bodies.size()); ++b) {
    const Index w = numbering.body[b];
    out.q.segment(local.qOffset(b), local.nq_body) = s.q.segment(whole.qOffset(w), whole.nq_body);
    out.v.segment(local.vOffset(b), local.nv_body) = s.v.segment(whole.vOffset(w), whole.nv_body);
  }
  out.lambda = VecX::Zero(local.nc);
  return out;
}

void writeSummary(std::ostream& os, const DistributedSimulate& c, const Model& m, int ranks,
                  const std::string& partitioner, const IdaResult& r, const State& last,
                  const TrajectoryWriter& traj, const std::vector<std::string>& redundant,
                  double e0, double e1, double seconds) {
  const DynamicsStats& s = r.stats;
  JsonWriter j(os);
  j.beginObject();
  j.key("input").value(c.file).key("units").value(kJsonUnits);
  j.key("analysis").value("simulate").key("method").value(r.method);
  j.key("linear_solver").value(r.linear_solver);
  j.key("distributed").beginObject();
  j.key("ranks").value(static_cast<long>(ranks)).key("partitioner").value(partitioner);
  j.endObject();
  writeSimulateModel(j, m);
  j.key("success").value(r.status.ok()).key("message").value(r.status.message);
  j.key("worst_rows").array(r.worst_rows);
  j.key("redundant_rows").array(redundant);
  j.key("t_reached_s").value(last.t).key("duration_requested_s").value(c.t_end);
  writeSimulateStatistics(j, s);
  writeSingularPassages(j, r.passages);
  j.key("max_position_drift").value(traj.maxPositionDrift());
  j.key("max_velocity_drift").value(traj.maxVelocityDrift());
  j.key("energy_initial_J").value(e0).key("energy_final_J").value(e1);
  j.key("wall_seconds").value(seconds);
  j.endObject();
  os << "\n";
}

int run(const DistributedSimulate& c, int ranks, int rank) {
  // 1. The whole model on every rank, and the serial command's start: the assembled initial
  //    state (deterministic: the same bits on every rank).
  const InputModel input = loadInputModel(c.file, "");
  const Model& m = input.model;
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const InitialStateResult init = assembleInitialState(m, plan, initialState(m));
  if (!init.status.ok()) {
    if (rank == 0) {
      std::cerr << c.file << ": the initial state is not consistent: " << init.status.message
                << "\n";
      for (const std::string& w : init.worst_rows) std::cerr << "  " << w << "\n";
    }
    return 1;
  }
  // 2. The files, opened on rank 0 before the run (a path that cannot be written fails on
  //    every rank).
  const std::string stem = std::filesystem::path(c.file).stem().string();
  std::optional<OutputFile> js;
  std::optional<TrajectoryWriter> traj;
  std::string json = c.json, csv = c.csv;
  onEveryRankAlike("", [&] {
    if (rank != 0) return;
    if (json.empty()) json = defaultOutputPath(c.output_dir, stem + ".simulate.json");
    if (csv.empty()) csv = defaultOutputPath(c.output_dir, stem + ".trajectory.csv");
    js.emplace(json);
    traj.emplace(csv, m, plan, c.columns(m));
  });
  // 3. IDA index 2 segment by segment, singular configurations bridged between them on every
  //    rank's copy of the whole model (integrateDistributedThroughPassages). Each segment
  //    leaves out the rows the serial run leaves out at its start, partitions the model without
  //    them, gathers every output (collective) and watches the rows left out on it.
  IdaOptions o;
  o.t_end = init.state.t + c.t_end;
  o.rtol = c.rtol;
  o.atol = c.atol;
  // Outputs coarser than --dt are run at it, as serially (drivers/output_split.hpp): the passages'
  // watch sees every one, the files the requested.
  o.output_interval = c.output_interval / outputSplit(c.output_interval, c.dt);
  const RequestedOutputs requested{init.state.t, init.state.t + c.t_end, c.output_interval};
  IndependentRows rows;     // the first segment's, for the report
  std::string partitioner;  // the first segment's
  bool first_segment = true;
  auto segment = [&](const State& start, double t_end, const TrajectoryObserver& observer) {
    // The first segment selects at the model's own initial state, as catena-scale does
    // (independentInputRows), the others at their start.
    const State at = first_segment ? initialState(m) : start;
    const IndependentRows selected = independentRows(m, plan, at.q, at.t);
    InputNumbering numbering;
    const DistributedLatticePart part = partitionInputModel(selected.model, c.file, &numbering);
    if (first_segment) {
      rows = selected;
      partitioner = part.partitioner;
      first_segment = false;
    }
    const DistributedModel dm(part.part);
    const DistributedAssembly as(dm);
    std::optional<RedundancyWatch> watch;
    if (!selected.dropped.empty()) watch.emplace(m, plan, selected);
    auto whole = [&](const State& s) {
      State w = gatherWholeState(dm, numbering, selected.model, s);
      if (!selected.dropped.empty())
        w.lambda = w.lambda.size() == selected.model.nc
                       ? minimumNormMultipliers(m, plan, selected, w.q, w.t, w.lambda)
                       : VecX::Zero(m.nc);
      return w;
    };
    IdaOptions run = o;
    run.t_end = t_end;
    run.watch_branch = false;  // the passages' watch sees the gathered states (with its probe)
    IdaResult r = integrateDistributedIda(
        as, localState(dm.local(), numbering, selected.model, start), run, [&](const State& s) {
          const State w = whole(s);
          return (!watch || watch->holds(w)) && (!observer || observer(w));
        });
    r.state = whole(r.state);
    r.redundant_rows = selected.dropped_names;
    if (watch && !watch->status().ok()) {
      r.status = watch->status();
      r.worst_rows = watch->rows();
    }
    return r;
  };
  State last = init.state;
  double last_row = init.state.t;  // s, the history's last row (rank 0 writes the first at t0)
  std::string write_error;         // rank 0's
  const auto t0 = std::chrono::steady_clock::now();
  const IdaResult result = integrateDistributedThroughPassages(
      m, plan, init.state, o,
      [&](const State& w) {
        last = w;
        if (!requested(w.t)) return true;
        // A row that rank 0 cannot write stops every rank (the answer must be the same).
        int written = 1;
        if (rank == 0) try {
            traj->write(w);
            last_row = w.t;
          } catch (const Error& e) {
            write_error = e.what();
            written = 0;
          }
        MPI_Allreduce(MPI_IN_PLACE, &written, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        return written == 1;
      },
      segment);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Where the run ended (a failure or a signal between outputs): the summary's end state.
  if (result.state.q.size() == m.nq && result.state.t > last.t) last = result.state;
  const bool redundant = !rows.dropped.empty();
  int status = result.status.ok() ? 0 : 1;
  if (result.status.code == Status::Code::kInterrupted) {  // the serial command's exit status
    int signal = terminationSignal();
    MPI_Allreduce(MPI_IN_PLACE, &signal, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    status = 128 + signal;
  }
  int written = write_error.empty() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &written, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!written) status = 1;
  if (rank != 0) return status;
  if (!written) {
    std::cerr << "catena simulate: " << write_error << "\n";
    return status;
  }

  // 4. Rank 0: the files put in place, then the report (the serial command's lines). An
  //    interrupted run's last state (an accepted step between outputs) ends the history, as
  //    serially.
  if (result.status.code == Status::Code::kInterrupted &&
      endsInterruptedHistory(m, last, last_row)) {
    try {
      traj->write(last);
    } catch (const Error& e) {
      std::cerr << "catena simulate: " << e.what() << "\n";
      return 1;
    }
  }
  const double e0 = computeEnergy(m, plan, init.state).total();
  const double e1 = computeEnergy(m, plan, last).total();
  traj->close();
  writeSummary(js->stream(), c, m, ranks, partitioner, result, last, *traj, rows.dropped_names, e0,
               e1, seconds);
  js->commit();
  const DynamicsStats& s = result.stats;
  if (c.terse) {
    std::cout << "reached_end " << (result.status.ok() ? "yes" : "no") << "\nwarnings 0\n";
    if (redundant) std::cout << "redundant_rows " << rows.dropped.size() << "\n";
    if (!result.passages.empty())
      std::cout << "singular_passages " << result.passages.size() << "\n";
    std::cout << "distributed " << ranks << " " << partitioner << "\n";
    if (!result.status.ok()) std::cerr << result.status.message << "\n";
    return status;
  }
  std::cout << "distributed: ran on " << ranks << " MPI ranks (partitioner " << partitioner << ", "
            << m.bodies.size() << " bodies)\n"
            << "simulation of '" << m.name << "' (" << result.method
            << "): " << (result.status.ok() ? "reached" : "STOPPED at") << " t = " << last.t
            << " s\n";
  if (!result.status.ok()) std::cout << "  " << result.status.message << "\n";
  if (redundant) {
    std::cout << "  redundant constraints: " << rows.dropped.size()
              << " row(s) left out at the start (minimum-norm multipliers over every row):";
    for (const std::string& row : rows.dropped_names) std::cout << " [" << row << "]";
    std::cout << "\n";
  }
  printSingularPassages(std::cout, result.passages);
  std::cout << "  steps " << s.steps << " (rejected " << s.rejected_steps << "), Newton iterations "
            << s.newton_iterations << ", factorizations " << s.factorizations << "\n"
            << "  largest constraint drift: position " << traj->maxPositionDrift() << ", velocity "
            << traj->maxVelocityDrift() << "\n"
            << "  energy " << e0 << " J -> " << e1 << " J (change " << e1 - e0 << " J)\n"
            << "  wall time " << seconds << " s\n"
            << "time history written to " << csv << "\nsummary written to " << json << "\n";
  return status;
}

}  // namespace

int runDistributedSimulate(const DistributedSimulate& c, int ranks, int rank) {
  // As runDistributedCommand: errors every rank throws alike are said once, by rank 0.
  try {
    // Written if a library ends the process with exit() (MUMPS under mpirun).
    const UnexpectedExitNotice exit_notice(std::string("catena simulate"),
                                           libraryExitText(rank, ranks));
    return run(c, ranks, rank);
  } catch (const cli::UsageError& e) {
    if (rank == 0)
      std::cerr << "catena simulate: " << e.what() << " (see catena simulate --help)\n";
    return 2;
  } catch (const Error& e) {
    if (rank == 0) std::cerr << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "catena simulate: rank " << rank << ": " << e.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
}

}  // namespace catena
