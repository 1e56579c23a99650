// catena-scale: scaling studies of the distributed analyses (docs/scaling.md, docs/parallel.md).
//
// Description:
//   Runs one analysis of one model family (the catenary chain, or the four-bar lattice of K x K
//   cells partitioned by PT-Scotch) for each size, or of one mechanism file (--input: family
//   "model", loaded by every rank and partitioned, parallel/model_partition.hpp), `repeats`
//   times, on the ranks it was started with, and writes one JSON line per run: size, ranks,
//   threads, wall time by phase,
//   peak memory per rank (max and sum over the ranks), iterations and the physical check values
//   (sag, support reactions, and whether the vertical reactions carry the chain's weight; for
//   the lattice, its lowest point and weight against the closed-form hanging lattice and, with
//   modes, its frequencies against the closed form; for
//   `--analysis modal`, the statics then the lowest undamped modes at its equilibrium, their
//   frequencies and whether every mode's residual is small; for `--analysis dynamics`, the chain
//   released at rest from its 'V', the lattice a little off hanging, or the input model from
//   its initial state without its redundant constraint rows, integrated by
//   distributed IDA to --t-end, its state there (the lattice's level angles against the
//   closed-form small oscillations) and whether energy and constraints drifted by less than
//   the tolerance allows), so a
//   wrong answer can never pass as a fast one. Only rank 0 writes. The study checkpoints which
//   runs are done (io/checkpoint.hpp): when it starts and after every run; SIGTERM (Slurm sends
//   it before the time limit; mpiexec forwards it) stops it at the end of the run, segment or
//   statics Newton iteration in progress with status 3; --restart skips the finished runs and
//   appends the rest. A run that runs out of memory writes its line with "status": "out_of_memory",
//   the estimated need and the limit, and stops the study with status 4 (docs/reliability.md).
//   PETSc and SLEPc options pass through
//   (-statics_pc_factor_mat_solver_type, -statics_mat_mumps_icntl_14, -modal_eps_tol,
//   -modal_st_mat_mumps_icntl_14, -ida_mat_mumps_icntl_14, ...).
//
// Sample runs:
//   mpirun -np 2 catena-scale --family chain --sizes 1000,10000 --repeats 3 --json out.jsonl
//   mpirun -np 2 catena-scale --study benchmarks/cluster/chain_statics.yaml
//   mpirun -np 2 catena-scale --study study.yaml --restart        (after a SIGTERM)
//   mpirun -np 2 catena-scale --analysis modal --modes 4 --sizes 1000,10000 --json modal.jsonl
//   mpirun -np 2 catena-scale --analysis dynamics --t-end 0.1 --sizes 1000 --json dyn.jsonl
//   mpirun -np 2 catena-scale --family lattice --analysis modal --sizes 50,100 --json lat.jsonl
//   mpirun -np 2 catena-scale --family lattice --analysis dynamics --t-end 1 --sizes 50
//   mpirun -np 2 catena-scale --input inputs/anchor_chain.yaml --analysis modal --json m.jsonl
//
// Exit status: 0 every run done and its check passed, 1 a failed check (statics not converged,
// reactions off the weight, modes not converged or with a large residual, dynamics failed or
// drifted; the JSON lines are written all the same) or another failure
// (unreadable study or checkpoint, an I/O error), 2 bad command line, 3 stopped by a signal
// after writing the checkpoint, 4 out of memory (the run's line written; a restart retries it).

#include <mpi.h>
#include <omp.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <new>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/check.hpp"
#include "io/checkpoint.hpp"
#include "io/json_writer.hpp"
#include "io/memory_estimate.hpp"
#include "io/output_file.hpp"
#include "io/scaling_study.hpp"
#include "options.hpp"
#include "parallel/petsc_session.hpp"
#include "scale_model.hpp"
#include "scale_runs.hpp"
#include "solvers/blas_threads.hpp"

using namespace catena;

namespace {

constexpr const char* kUsage =
    "usage: mpirun -np P catena-scale [options] [PETSc options]\n"
    "\n"
    "  --study FILE               YAML study file (keys as below, with '_' for '-');\n"
    "                             options given on the command line override it\n"
    "  --family chain|lattice     model family: the catenary chain (contiguous ranges of\n"
    "                             links per rank) or the four-bar lattice (graph partition,\n"
    "                             PT-Scotch)\n"
    "  --input FILE.yaml          a mechanism file (family 'model'): every rank loads it,\n"
    "                             its bodies are partitioned (PETSc options -model_...);\n"
    "                             its size is its number of bodies (no --sizes); dynamics\n"
    "                             starts from its initial state, which must be consistent;\n"
    "                             redundant constraint rows there are left out, as catena\n"
    "                             simulate leaves them out, and watched (docs/dynamics-\n"
    "                             redundant.md, \"Distributed runs\")\n"
    "  --sizes N,N,...            chain: links, even, 2 .. 10^8 (its 10 N unknowns are\n"
    "                             numbered by 32-bit integers); lattice: K for K x K cells\n"
    "                             (2 K (3 K + 1) constraints), 1 .. 20000\n"
    "  --analysis statics|modal|dynamics\n"
    "                             analysis; modal: statics, then the lowest undamped modes\n"
    "                             at the equilibrium; dynamics: released at rest (the chain\n"
    "                             from its 'V', the lattice in its slowest mode's shape,\n"
    "                             0.02 rad at most), distributed IDA (index-2 GGL)\n"
    "  --modes K                  modal: modes per run (default 4; study file: modes)\n"
    "  --t-end S                  dynamics: simulated time, s (default 0.1; study file: t_end)\n"
    "  --rtol X                   dynamics: IDA's relative tolerance (default 1e-6; atol is\n"
    "                             1e-2 rtol in m, m/s)\n"
    "  --segment S                dynamics: simulated seconds per restartable segment, each\n"
    "                             ending in a checkpoint of the run (default 0: one segment,\n"
    "                             no checkpoint inside a run; study file: segment)\n"
    "  --reproducible             dynamics of the chain or an --input model: bitwise the same\n"
    "                             on any rank count and any thread count (contiguous parts with\n"
    "                             their halo; the Newton systems by a KLU of the gathered\n"
    "                             matrix on every rank: for checks, not for speed; study file:\n"
    "                             reproducible: true)\n"
    "  --linear-solver direct|iterative|schur\n"
    "                             statics (and modal's statics): the saddle-point systems by\n"
    "                             MUMPS (default), by FGMRES + PCFIELDSPLIT on the augmented\n"
    "                             Lagrangian (no global factor; PETSc options -statics_...),\n"
    "                             or by a Schur-complement domain decomposition (KLU per rank,\n"
    "                             KLU on the gathered interfaces; -statics_dd_...)\n"
    "  --repeats K                runs per size (default 1)\n"
    "  --json FILE                JSON lines, rewritten atomically after every run (default:\n"
    "                             stdout at the end)\n"
    "  --checkpoint FILE          restartable state, written at the start and after every run\n"
    "                             (default: <json>.ckpt; none without --json)\n"
    "  --restart                  continue the study of the checkpoint file: skip its runs\n"
    "  --stop-after K             raise SIGTERM after K runs (tests the signal path)\n"
    "  --stop-after-segments K    raise SIGTERM after K segments of a run (tests it inside one)\n"
    "  --stop-after-iterations K  raise SIGTERM after K Newton iterations of a statics run\n"
    "                             (tests the stop inside one)\n"
    "  --help                     this text\n";

constexpr const char* kCheckpointFormat = "catena-scale 2";  // 2: with the end record

struct Options {
  ScalingStudy study;
  bool restart = false;
  int stop_after = -1;
  int stop_after_segments = -1;
  int stop_after_iterations = -1;
};

/// The options of catena-scale (the parser's table; kUsage describes them).
const std::vector<cli::CommandSpec>& program() {
  static const std::vector<cli::CommandSpec> p = [] {
    cli::CommandSpec c{"catena-scale", {}};
    for (const char* name :
         {"--study", "--family", "--input", "--sizes", "--analysis", "--modes", "--t-end", "--rtol",
          "--segment", "--linear-solver", "--repeats", "--json", "--checkpoint", "--stop-after",
          "--stop-after-segments", "--stop-after-iterations"})
      c.options.push_back({name, true});
    for (const char* name : {"--reproducible", "--restart"}) c.options.push_back({name, false});
    return std::vector<cli::CommandSpec>{c};
  }();
  return p;
}

/// The study from the parsed command line: the study file's settings (--study), overridden by
/// the options given. Throws cli::UsageError for a bad option value, catena::Error for a bad
/// study file or combination of settings.
Options readOptions(const cli::CommandLine& line) {
  using cli::parseInteger;
  using cli::parseReal;
  using cli::RealRange;
  if (!line.arguments.empty())
    throw cli::UsageError("unexpected argument '" + line.arguments[0] + "'");
  Options o;
  for (const auto& [k, v] : line.options)
    if (k == "--study") o.study = readScalingStudy(v);
  if (line.has("--input")) {  // an input replaces the study file's family and sizes
    if (!line.has("--family")) o.study.family = "model";
    if (line.has("--sizes"))
      throw cli::UsageError(
          "--sizes does not apply to --input: the model's size is its number of bodies");
    o.study.sizes.clear();
  }
  for (const auto& [k, v] : line.options) {
    if (k == "--family") o.study.family = v;
    if (k == "--input") o.study.input = v;
    if (k == "--sizes") {
      o.study.sizes.clear();
      for (long long n : cli::parseIntegerList(k, v, 1, kMaxChainLinks)) o.study.sizes.push_back(n);
    }
    if (k == "--analysis") o.study.analysis = v;
    if (k == "--repeats") o.study.repeats = static_cast<int>(parseInteger(k, v, 1, 1000000));
    if (k == "--json") o.study.json = v;
    if (k == "--checkpoint") o.study.checkpoint = v;
    if (k == "--stop-after") o.stop_after = static_cast<int>(parseInteger(k, v, 0, 1000000));
    if (k == "--stop-after-segments")
      o.stop_after_segments = static_cast<int>(parseInteger(k, v, 0, 1000000));
    if (k == "--stop-after-iterations")
      o.stop_after_iterations = static_cast<int>(parseInteger(k, v, 0, 1000000));
    if (k == "--segment")
      o.study.segment = parseReal(k, v, RealRange::atLeast(0.0, "s", "0: one segment"));
    if (k == "--modes") o.study.modes = static_cast<int>(parseInteger(k, v, 1, 1000000));
    if (k == "--t-end") o.study.t_end = parseReal(k, v, RealRange::greaterThan(0.0, "s"));
    if (k == "--rtol") o.study.rtol = parseReal(k, v, RealRange::open(0.0, 1.0));
    if (k == "--linear-solver") o.study.linear_solver = v;
    if (k == "--reproducible") o.study.reproducible = true;
    if (k == "--restart") o.restart = true;
  }
  checkScalingStudy(o.study);
  if (o.stop_after_iterations >= 0 && o.study.analysis == "dynamics")
    throw cli::UsageError(
        "--stop-after-iterations applies to statics and modal; dynamics stops "
        "at segments (--stop-after-segments)");
  if (o.study.checkpoint.empty() && !o.study.json.empty())
    o.study.checkpoint = o.study.json + ".ckpt";
  CATENA_CHECK(!o.restart || !o.study.checkpoint.empty(),
               "--restart needs a checkpoint file (--checkpoint, or --json)");
  return o;
}

/// Whether this process prints the messages of the command line, read before MPI starts: rank
/// 0 as the launcher numbers the processes (Open MPI, PMI as MPICH and Slurm, PMIx), or a
/// process started alone.
bool firstProcess() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char* rank = std::getenv(name)) return std::string_view(rank) == "0";
  return true;
}

/// What identifies a study's runs: a checkpoint may only be continued by the same study.
std::string signature(const Options& o, int ranks, int threads) {
  const ScalingStudy& s = o.study;
  std::ostringstream os;
  os << "family=" << s.family;
  if (!s.input.empty()) os << " input=" << s.input;
  os << " analysis=" << s.analysis << " sizes=";
  for (std::size_t k = 0; k < s.sizes.size(); ++k) os << (k ? "," : "") << s.sizes[k];
  os << " repeats=" << s.repeats << " ranks=" << ranks << " threads=" << threads;
  if (s.analysis == "modal") os << " modes=" << s.modes;
  if (s.analysis == "dynamics") os << " t_end=" << s.t_end << " rtol=" << s.rtol;
  if (s.segment > 0.0) os << " segment=" << s.segment;
  if (s.reproducible) os << " reproducible";
  if (s.linear_solver != "direct") os << " linear_solver=" << s.linear_solver;
  return os.str();
}

/// The measured memory of a study's runs (io/memory_estimate.hpp); an input model's bodies are
/// taken as a chain's links, the only measure for any model.
MemoryModel studyMemoryModel(const ScalingStudy& s) {
  MemoryModel m =
      scalingMemoryModel(s.family == "lattice" ? "lattice" : "chain", s.analysis, s.linear_solver);
  if (s.family == "model") m.unit = "body";
  return m;
}
/// The units of studyMemoryModel at `size`: links or bodies, or the lattice's K x K cells.
double memoryUnits(const ScalingStudy& s, long size) {
  const double n = static_cast<double>(size);
  return s.family == "lattice" ? n * n : n;
}

/// The message for a run that ran out of memory: what it needs per rank (io/memory_estimate),
/// the limit, and how many ranks would give each rank that much. `detail`: the exception's.
std::string outOfMemoryMessage(const ScalingStudy& s, long size, int ranks,
                               const std::string& detail) {
  const MemoryModel m = studyMemoryModel(s);
  const double units = memoryUnits(s, size);
  const MemoryLimit limit = memoryLimit();
  std::ostringstream os;
  if (detail != std::bad_alloc().what()) os << detail << "; ";
  os << "a " << s.family << " " << s.analysis << " of " << static_cast<long long>(units) << " "
     << m.unit << "s needs about " << formatBytes(m.perRank(units, ranks)) << " per rank on "
     << ranks << (ranks == 1 ? " rank" : " ranks") << " (" << formatBytes(m.base_bytes) << " + "
     << std::lround(m.bytes_per_unit / 100.0) / 10.0 << " kB per " << m.unit
     << " / ranks, measured: " << m.source << ")";
  if (limit.bytes > 0.0) {
    os << "; " << limit.what << " is " << formatBytes(limit.bytes);
    const double room = limit.bytes - m.base_bytes;
    if (room > 0.0)
      os << ": use at least " << static_cast<long long>(std::ceil(m.bytes_per_unit * units / room))
         << " ranks with that much memory each (more nodes), or a smaller size";
    else
      os << ": too little for any run";
  }
  return os.str();
}

/// The JSON line of a run that ran out of memory on `rank`.
std::string outOfMemoryLine(const ScalingStudy& s, long size, int repeat, int ranks, int rank,
                            const std::string& detail) {
  const MemoryModel m = studyMemoryModel(s);
  const double units = memoryUnits(s, size);
  std::ostringstream os;
  JsonWriter j(os);
  j.beginObject();
  writeRunHead(j, s.family, s.analysis, size, repeat, ranks);
  j.key("status").value(std::string("out_of_memory"));
  j.key("message").value(outOfMemoryMessage(s, size, ranks, detail));
  j.key("rank_out_of_memory").value(rank);
  j.key("estimated_bytes_per_rank").value(m.perRank(units, ranks));
  j.key("memory_limit_bytes").value(memoryLimit().bytes);
  j.key("check_memory_pass").value(false);
  j.endObject();
  return os.str();
}

void writeLines(const std::string& file, const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  writeFileAtomically(file, text);
}

}  // namespace

int main(int argc, char** argv) {
  // OpenBLAS's own threads ignore OMP_NUM_THREADS and change the round-off of the eigensolver's
  // orthogonalization: one BLAS thread, before anything initializes it (as catena does).
  catena::pinBlasToOneThread();
  // 1. Options, before MPI starts: every process parses the same command line, so all stop
  //    together on an error, and only the first prints it.
  cli::CommandLine line;
  Options o;
  try {
    line = cli::parseCommandLine(argc, argv, 1, "catena-scale", program());
    if (line.help) {
      if (firstProcess()) std::cout << kUsage;
      return 0;
    }
    o = readOptions(line);
  } catch (const std::exception& e) {  // cli::UsageError, catena::Error (the study file)
    if (firstProcess()) std::cerr << "catena-scale: " << e.what() << " (see --help)\n";
    return 2;
  }
  std::vector<char*> petsc = line.petsc;  // PETSc may reorder its argv
  int pargc = line.petscArgc();
  char** pargv = petsc.data();
  installTerminationHandler();  // a signal during the start is remembered, not fatal
  PetscSession session(&pargc, &pargv);
  const int rank = session.rank(), ranks = session.size();
  const int threads = omp_get_max_threads();
  const cli::UnusedPetscOptionsWarning warn("catena-scale", [&] {
    return rank == 0 ? session.unusedOptions() : std::vector<std::string>{};
  });
  const ScalingStudy& s = o.study;
  installTerminationHandler();  // after PETSc's, which would abort on SIGTERM

  // 2. Restart: the finished runs' lines from the checkpoint (read on rank 0, count broadcast).
  const std::string sig = signature(o, ranks, threads);
  std::vector<std::string> lines;
  int failed = 0;
  if (o.restart && rank == 0) {
    try {
      const Checkpoint c = readCheckpoint(s.checkpoint, kCheckpointFormat);
      if (c.get("study") != sig)
        throw Error("checkpoint '" + s.checkpoint + "' is of the study '" + c.get("study") +
                    "', not of this one, '" + sig + "'");
      lines = c.all("run");
      std::cerr << "catena-scale: restart from " << s.checkpoint << ": " << lines.size()
                << " runs done\n";
    } catch (const Error& e) {
      std::cerr << "catena-scale: " << e.what() << "\n";
      failed = 1;
    }
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (failed) return 1;
  int done = static_cast<int>(lines.size());
  MPI_Bcast(&done, 1, MPI_INT, 0, MPI_COMM_WORLD);

  // 3. The temporaries that a killed run of this study left next to its files (each rank its
  //    own dynamics checkpoints, rank 0 the rest).
  const std::filesystem::path inside_stem =
      s.checkpoint.empty() ? std::filesystem::path{} : std::filesystem::path(s.checkpoint + ".run");
  {
    std::vector<std::filesystem::path> mine;
    if (!inside_stem.empty()) mine.push_back(inside_stem.string() + ".r" + std::to_string(rank));
    if (rank == 0)
      for (const std::string& f : {s.json, s.checkpoint})
        if (!f.empty()) mine.emplace_back(f);
    // Each rank writes its lines whole (one insertion into the unbuffered stderr is one write),
    // so that two ranks' messages do not interleave within a line.
    for (const std::filesystem::path& f : mine)
      for (const std::filesystem::path& t : removeStaleTemporaries(f))
        std::cerr << "catena-scale: removed '" + t.string() + "', left by a killed run\n";
  }

  // 4. The runs. The checkpoint is written at the start (so that a restart after a kill in the
  //    first run finds the study) and after every run; a signal is acted on after a run.
  const int total = static_cast<int>(s.input.empty() ? s.sizes.size() : 1) * s.repeats;
  InputModel input;  // the family "model": loaded once, by every rank
  // Rank 0 writes; the others learn whether it succeeded (and stop with it if not).
  auto write = [&](const std::vector<std::string>& json_lines,
                   const std::vector<std::string>& runs) {
    if (!s.json.empty()) writeLines(s.json, json_lines);
    if (!s.checkpoint.empty()) {
      Checkpoint c;
      c.format = kCheckpointFormat;
      c.add("study", sig);
      for (const std::string& l : runs) c.add("run", l);
      writeCheckpoint(s.checkpoint, c);
    }
  };
  auto save = [&] {
    int ok = 1;
    if (rank == 0) try {
        write(lines, lines);
      } catch (const Error& e) {
        std::cerr << "catena-scale: " << e.what() << "\n";
        ok = 0;
      }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) throw Error("the results could not be written");
  };
  // What rank 0 says at once when a signal arrives during run k (the process may be killed
  // before its safe point: mpiexec sends SIGKILL odls_base_sigkill_timeout s after SIGTERM).
  auto notice = [&](int run, const char* step) {
    if (rank != 0) return;
    std::ostringstream os;
    os << " during run " << run + 1 << " of " << total << "; stopping at the end of the " << step
       << " in progress";
    if (!s.checkpoint.empty())
      os << " (the checkpoint '" << s.checkpoint << "' holds the " << run << " runs done)";
    setTerminationNotice("catena-scale", os.str());
  };
  // ... and between run k and the next, until run k's line is saved.
  auto between = [&](int run) {
    if (rank != 0) return;
    std::ostringstream os;
    os << " after run " << run + 1 << " of " << total << "; stopping once its line is saved";
    setTerminationNotice("catena-scale", os.str());
  };
  int all_pass = 1;
  try {
    if (!s.input.empty()) input = loadInputModel(s.input);
    const InputModel* model = s.input.empty() ? nullptr : &input;
    save();
    for (int run = done; run < total; ++run) {
      const long N =
          model ? static_cast<long>(model->model.bodies.size()) : s.sizes[run / s.repeats];
      // (an input model's partition says so itself, naming the file)
      CATENA_CHECK(model || N >= ranks, "size " << N
                                                << ": a model needs at least one body per rank ("
                                                << ranks << " ranks)");
      // A dynamics run checkpoints inside itself too; a restart resumes the first pending run.
      SegmentOptions inside;
      inside.segment = s.segment;
      inside.checkpoint = inside_stem;
      inside.run = sig;
      inside.restart = o.restart && run == done && !s.checkpoint.empty();
      inside.stop_after = o.stop_after_segments;
      // A statics run stops before its next Newton iteration (a 10^6-link statics takes longer
      // than Slurm's 30 s between SIGTERM and SIGKILL); its modes, once started, run to the end.
      notice(run, s.analysis == "dynamics" ? (s.segment > 0.0 ? "segment" : "run")
                                           : "Newton iteration (or the modes)");
      StaticsStop stop;
      stop.on_signal = true;
      stop.raise_after = o.stop_after_iterations;
      RunResult result;
      // Written if a library ends the process with exit() inside the run.
      const UnexpectedExitNotice exit_notice("catena-scale", [&] {
        std::ostringstream os;
        os << "the process was ended by exit() inside a library during run " << run + 1 << " of "
           << total << " on rank " << rank << " (" << kLibraryExitCause
           << "); this run wrote no line";
        if (!s.checkpoint.empty())
          os << "; the checkpoint '" << s.checkpoint << "' holds the runs done before it: "
             << "restart with --restart, with more memory per rank or more ranks";
        return os.str();
      }());
      try {
        result = s.analysis == "dynamics"
                     ? runDynamics(s, model, N, run % s.repeats, ranks, rank, inside)
                     : runStatics(s, model, N, run % s.repeats, ranks, rank, nullptr, stop);
      } catch (const std::bad_alloc& e) {
        // Out of memory on this rank; the others may wait for it in a collective call. It writes
        // the run's line (after the lines the checkpoint holds) and ends the job.
        setTerminationNotice("catena-scale", "");  // MPI_Abort sends SIGTERM to the others
        const std::string l = outOfMemoryLine(s, N, run % s.repeats, ranks, rank, e.what());
        std::cerr << "catena-scale: out of memory in run " << run + 1 << " of " << total
                  << " on rank " << rank << ": " << outOfMemoryMessage(s, N, ranks, e.what())
                  << "\n";
        try {
          std::vector<std::string> done_lines = lines;
          if (rank != 0 && !s.checkpoint.empty() && std::filesystem::exists(s.checkpoint))
            done_lines = readCheckpoint(s.checkpoint, kCheckpointFormat).all("run");
          std::vector<std::string> json_lines = done_lines;
          json_lines.push_back(l);
          // The checkpoint keeps the finished runs only: a restart retries this one.
          if (!s.json.empty())
            writeLines(s.json, json_lines);
          else
            std::cout << l << std::endl;
          if (!s.checkpoint.empty())
            std::cerr << "catena-scale: the checkpoint '" << s.checkpoint << "' holds the "
                      << done_lines.size() << " runs done; --restart retries this one\n";
        } catch (const std::exception& w) {
          std::cerr << "catena-scale: " << w.what() << "\n";
        }
        if (ranks > 1) MPI_Abort(MPI_COMM_WORLD, 4);
        return 4;
      }
      if (result.interrupted) {
        save();
        const int signal = static_cast<int>(maxOver(terminationSignal()));
        if (rank == 0) {
          std::cerr << "catena-scale: stopped by " << signalName(signal) << " in run " << run + 1
                    << " of " << total;
          if (s.analysis == "dynamics")
            std::cerr << " at t = " << result.t << " s";
          else
            std::cerr << " after " << result.iterations << " Newton iterations";
          if (s.checkpoint.empty())
            std::cerr << "; no checkpoint (give --json or --checkpoint)\n";
          else if (s.analysis == "dynamics")
            std::cerr << "; checkpoints written to '" << s.checkpoint << "' and '"
                      << inside.checkpoint.string() << ".r*'; restart with --restart\n";
          else
            std::cerr << "; the checkpoint '" << s.checkpoint << "' holds the " << run
                      << " runs done; restart with --restart, which runs this one again\n";
        }
        return 3;
      }
      between(run);
      if (rank == 0) {
        lines.push_back(result.line);
        if (!result.pass) all_pass = 0;
        std::cerr << "catena-scale: run " << run + 1 << "/" << total << " (N = " << N << ", "
                  << ranks << " ranks, " << threads << " threads) done\n";
      }
      if (o.stop_after >= 0 && run + 1 - done == o.stop_after) std::raise(SIGTERM);
      const int signal = static_cast<int>(maxOver(terminationSignal()));
      save();
      if (signal && run + 1 < total) {
        if (rank == 0 && s.checkpoint.empty())
          std::cerr << "catena-scale: stopped by " << signalName(signal) << " after run " << run + 1
                    << " of " << total << "; no checkpoint (give --json or --checkpoint)\n";
        else if (rank == 0)
          std::cerr << "catena-scale: stopped by " << signalName(signal) << " after run " << run + 1
                    << " of " << total << "; checkpoint '" << s.checkpoint
                    << "' written; restart with the same options and --restart\n";
        return 3;
      }
    }
  } catch (const Error& e) {
    if (rank == 0) std::cerr << "catena-scale: " << e.what() << "\n";
    return 1;
  }
  setTerminationNotice("catena-scale", "");
  if (rank == 0 && s.json.empty())
    for (const std::string& l : lines) std::cout << l << "\n";
  MPI_Bcast(&all_pass, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!all_pass && rank == 0)
    std::cerr << "catena-scale: some runs failed their check (check_weight_pass, "
                 "check_modes_pass, check_energy_pass, check_constraint_pass or "
                 "check_small_motion_pass: false)\n";
  return all_pass ? 0 : 1;
}
