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
//   it before the time limit; mpiexec forwards it) stops it at the end of the run (or segment)
//   in progress with status 3; --restart skips the finished runs and appends the rest. A run
//   that runs out of memory writes its line with "status": "out_of_memory", the estimated need
//   and the limit, and stops the study with status 4 (docs/reliability.md). PETSc and SLEPc options
//   pass through
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
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <new>
#include <numbers>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/reactions.hpp"
#include "analysis/scales.hpp"
#include "core/check.hpp"
#include "integrators/distributed_dynamics.hpp"
#include "integrators/redundant_rows.hpp"
#include "integrators/segmented_dynamics.hpp"
#include "io/checkpoint.hpp"
#include "io/json_writer.hpp"
#include "io/memory_estimate.hpp"
#include "io/output_file.hpp"
#include "io/scaling_study.hpp"
#include "kernels/pose.hpp"
#include "modal/distributed_modal.hpp"
#include "model/generators.hpp"
#include "options.hpp"
#include "parallel/lattice_part.hpp"
#include "parallel/petsc_session.hpp"
#include "scale_model.hpp"
#include "solvers/blas_threads.hpp"
#include "solvers/redundant_klu.hpp"
#include "statics/distributed_statics.hpp"
#include "statics/redundant_statics.hpp"

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
    "  --reproducible             chain dynamics: bitwise the same on any rank count and any\n"
    "                             thread count (halo parts; the Newton systems by a KLU of the\n"
    "                             gathered matrix on every rank: for checks, not for speed;\n"
    "                             study file: reproducible: true)\n"
    "  --linear-solver direct|iterative\n"
    "                             statics (and modal's statics): the saddle-point systems by\n"
    "                             MUMPS (default) or by FGMRES + PCFIELDSPLIT on the augmented\n"
    "                             Lagrangian (no global factor; PETSc options -statics_...)\n"
    "  --repeats K                runs per size (default 1)\n"
    "  --json FILE                JSON lines, rewritten atomically after every run (default:\n"
    "                             stdout at the end)\n"
    "  --checkpoint FILE          restartable state, written at the start and after every run\n"
    "                             (default: <json>.ckpt; none without --json)\n"
    "  --restart                  continue the study of the checkpoint file: skip its runs\n"
    "  --stop-after K             raise SIGTERM after K runs (tests the signal path)\n"
    "  --stop-after-segments K    raise SIGTERM after K segments of a run (tests it inside one)\n"
    "  --help                     this text\n";

constexpr const char* kCheckpointFormat = "catena-scale 2";  // 2: with the end record

struct Options {
  ScalingStudy study;
  bool restart = false;
  int stop_after = -1;
  int stop_after_segments = -1;
};

/// The options of catena-scale (the parser's table; kUsage describes them).
const std::vector<cli::CommandSpec>& program() {
  static const std::vector<cli::CommandSpec> p = [] {
    cli::CommandSpec c{"catena-scale", {}};
    for (const char* name : {"--study", "--family", "--input", "--sizes", "--analysis", "--modes",
                             "--t-end", "--rtol", "--segment", "--linear-solver", "--repeats",
                             "--json", "--checkpoint", "--stop-after", "--stop-after-segments"})
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

double maxOver(double x) {
  double y = 0.0;
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return y;
}
double sumOver(double x) {
  double y = 0.0;
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return y;
}

/// Largest mode residual (force or constraint rows, DistributedMode) that passes the modal
/// check. SLEPc stops at a relative residual of 1e-10 of the shifted-inverted operator; the
/// measured residuals of the pencil are 1e-14..1e-10 (docs/parallel.md), a wrong pair's O(1).
constexpr double kModeResidualBound = 1e-8;
/// Relative residual of the supports' vertical reactions against the weight (and of the
/// lattice's lowest point against its closed form) that passes: Newton's tolerances are 1e-10.
constexpr double kWeightTolerance = 1e-8;
/// Relative difference of a lattice's frequencies from the closed form that passes (SLEPc's
/// tolerance 1e-10 on omega^2; measured 1e-15 on the 6 x 8 lattice).
constexpr double kFrequencyTolerance = 1e-8;

/// The fields that identify a run: family, analysis, size, repeat, ranks, threads.
void writeRunHead(JsonWriter& j, const std::string& family, const std::string& analysis, long size,
                  int repeat, int ranks) {
  j.key("family").value(family).key("analysis").value(analysis);
  j.key("size").value(size).key("repeat").value(repeat);
  j.key("ranks").value(ranks).key("threads").value(omp_get_max_threads());
}

/// The fields of an input model's run: the file, the seconds its loading took (once per study,
/// the slowest rank), the model's counts. A failed status is said on stderr with the file.
void writeInput(JsonWriter& j, const ScalingStudy& s, const InputModel& input, const Status& st) {
  const Model& m = input.model;
  j.key("input").value(s.input).key("model").value(m.name);
  j.key("bodies").value(static_cast<long>(m.bodies.size()));
  j.key("joints").value(static_cast<long>(m.joints.size()));
  j.key("time_load_s").value(input.load_seconds);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (!st.ok() && rank == 0) std::cerr << "catena-scale: " << s.input << ": " << st.message << "\n";
}

/// Peak resident set of the ranks so far (MiB): the largest and the sum. Collective.
void writePeakMemory(JsonWriter& j) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double rss = usage.ru_maxrss / 1024.0;  // KiB on Linux
  j.key("max_rss_mib_max").value(maxOver(rss)).key("max_rss_mib_sum").value(sumOver(rss));
}

/// A run's JSON line and whether its checks passed (both meaningful on rank 0).
struct RunResult {
  std::string line;
  bool pass = false;
  bool interrupted = false;  ///< dynamics stopped by a signal at a segment's end: no line
  double t = 0.0;            ///< s, where an interrupted run stopped
};

/// Bound of the energy check at IDA's relative tolerance rtol (docs/scaling.md): neither model
/// has damping, so |E(t_end) - E(0)| is the integration error (BDF damps a little), measured
/// against the largest kinetic energy at 100 output times. Measured at rtol 1e-6: the chain
/// 6e-7..3e-6 (t_end = 0.1 s), the lattice 1.4e-5..2.9e-5 (K = 6, t_end = 3..10 s, hand runs).
double energyDriftBound(double rtol) {
  return 100.0 * rtol;
}

/// The start of link `link` at the local state s, on every rank (its owner's value).
Vec3 linkStart(const DistributedModel& dm, const State& s, long link) {
  const ModelPart& part = dm.part();
  const Index local = static_cast<Index>(link) - part.first_body;
  Vec3 p = Vec3::Zero();
  if (local >= 0 && local < part.owned_bodies) {
    const Model& m = dm.local();
    p = markerPosition(m, s.q.data(), m.findMarker(m.bodies[local].name + "/start"));
  }
  return dm.sum(p);
}

/// The lattice of a scaling study of size K: K x K cells (K levels of K cells, 2 K (3 K + 1)
/// constraints), every level leaning from hanging by its own angle of at most 0.02 rad so that
/// Newton swings each one down (from much farther, 0.5 rad, Newton finds no equilibrium of a
/// 24-level lattice: tests/mpi/distributed_lattice_test.cpp).
FourBarLatticeOptions studyLattice(long K) {
  return leaningFourBarLattice(static_cast<int>(K), static_cast<int>(K), 0.02);
}

/// This rank's part of a study's model: the input model (whole: not null, the input's model or
/// that model without its redundant rows; graph partition; numbering: where its bodies and
/// joints went), the chain of `size` links (contiguous ranges; with its halo for bitwise
/// dynamics) or the given lattice (PT-Scotch graph partition), and the partitioner's name.
DistributedLatticePart buildStudyPart(const ScalingStudy& study, const Model* whole, long size,
                                      const FourBarLatticeOptions& lattice, int rank, int ranks,
                                      bool halo = false, InputNumbering* numbering = nullptr) {
  if (whole) return partitionInputModel(*whole, study.input, numbering);
  if (study.family == "lattice") return buildDistributedFourBarLattice(lattice);
  CatenaryChainOptions o;
  o.links = static_cast<int>(size);
  return {buildCatenaryChainPart(o, rank, ranks, halo), "contiguous"};
}

/// The largest initial angle of a released lattice, rad.
constexpr double kReleaseAmplitude = 0.02;

/// Largest deviation of a released lattice's level angles from the closed-form small
/// oscillations, relative to the amplitude. Linear theory is off by O(theta^2) of it: released
/// in its slowest mode's shape from 0.02 rad: 1.5e-5 .. 2e-5 for K = 25 .. 100 at 2 s
/// (benchmarks/results/scaling_lattice_dynamics.md); by hand, 1.2e-5 .. 1.1e-4 for K = 6 .. 40
/// over 1 to 10 s, the same at rtol 1e-6 and 1e-8 (so not the integration error). 1e-3 allows
/// 9x over the largest.
constexpr double kSmallMotionTolerance = 1e-3;

/// The lattice of a dynamics study of size K: K x K cells at rest in the shape of their slowest
/// small oscillation (hangingFourBarLatticeLowestMode), kReleaseAmplitude at most, so that the
/// linear theory stays accurate for any K (a mix of modes from the same amplitude departs
/// from it by about 0.15 K^2 theta^2 of the amplitude: 0.07 .. 0.14 at K = 40, hand runs).
FourBarLatticeOptions releaseLattice(long K) {
  FourBarLatticeOptions o;
  o.levels = o.cells = static_cast<int>(K);
  const std::vector<double> shape = hangingFourBarLatticeLowestMode(o, 9.81);
  for (int l = 0; l < o.levels; ++l)
    o.level_angles.push_back(-0.5 * std::numbers::pi + kReleaseAmplitude * shape[l]);
  return o;
}

/// Every level's angle from hanging straight down (rad), on every rank.
std::vector<double> levelAngles(const DistributedModel& dm, const VecX& q, int levels) {
  const std::vector<double> local =
      fourBarLatticeLevelAngles(dm.local(), q, dm.part().owned_bodies, levels);
  std::vector<double> theta(levels, 0.0);
  MPI_Allreduce(local.data(), theta.data(), levels, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return theta;
}

/// The check values of a released lattice at t_end: its level angles against the closed-form
/// small oscillations of the hanging lattice from the same start.
bool latticeMotionChecks(JsonWriter& j, const DistributedModel& dm, const State& s,
                         const FourBarLatticeOptions& o, bool ok) {
  const std::vector<double> theta0 = fourBarLatticeInitialAngles(o);
  double amplitude = 0.0;
  for (double x : theta0) amplitude = std::max(amplitude, std::abs(x));
  const std::vector<double> theta = levelAngles(dm, s.q, o.levels);
  const std::vector<double> linear =
      hangingFourBarLatticeSmallMotion(o, dm.local().gravity.norm(), theta0, s.t);
  double deviation = 0.0;
  for (int l = 0; l < o.levels; ++l)
    deviation = std::max(deviation, std::abs(theta[l] - linear[l]));
  deviation /= amplitude;
  const double slowest = hangingFourBarLatticeFrequencies(o, dm.local().gravity.norm(), 1)[0];
  j.key("slowest_period_s").value(1.0 / slowest);
  j.key("top_level_angle_rad").value(theta.back());
  j.key("closed_form_top_level_angle_rad").value(linear.back());
  j.key("initial_amplitude_rad").value(amplitude);
  j.key("check_small_motion_residual").value(deviation);
  const bool pass = ok && deviation <= kSmallMotionTolerance;
  j.key("check_small_motion_pass").value(pass);
  return pass;
}

/// Bodies whose final positions (body frame origins, world basis) a dynamics run of an input
/// model reports: its first ones.
constexpr Index kReportedBodies = 64;

/// The family's model of the given size released at rest (the chain from its 'V', the lattice
/// a little off hanging: both assembled, v = 0), or the input model from its initial state
/// (which must be consistent), integrated by distributed IDA (GGL) to t_end in the study's
/// segments; the JSON line, or no line if a signal interrupted the run. inside: the run's
/// checkpoints (integrators/segmented_dynamics.hpp), its `run` the study's signature, to which
/// the size and repeat are added here.
RunResult runDynamics(const ScalingStudy& study, const InputModel* input, long size, int repeat,
                      int ranks, int rank, SegmentOptions inside) {
  const bool chain = study.family == "chain", lattice_family = study.family == "lattice";
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  // 1. Set-up: the rank's part of the model, its numbering and ghosts, the assembly plan.
  //    An input model runs without its redundant constraint rows (the saddle-point matrices are
  //    singular on them), selected as `catena simulate` selects them, on the whole model that
  //    every rank holds; the rows left out are watched at every output on the gathered state.
  const FourBarLatticeOptions lattice =
      lattice_family ? releaseLattice(size) : FourBarLatticeOptions{};
  const double selection_start = MPI_Wtime();
  const IndependentRows rows = input ? independentInputRows(input->model) : IndependentRows{};
  const double selection = MPI_Wtime() - selection_start;
  const bool redundant = !rows.dropped.empty();
  InputNumbering numbering;
  const auto [part, partitioner] =
      buildStudyPart(study, input ? &rows.model : nullptr, size, lattice, rank, ranks,
                     study.reproducible, &numbering);
  const DistributedModel dm(part);
  const DistributedAssembly as(dm);
  std::optional<AssemblyPlan> whole_plan;
  std::optional<RedundancyWatch> watch;
  if (redundant) {
    whole_plan.emplace(buildAssemblyPlan(input->model));
    watch.emplace(input->model, *whole_plan, rows);
  }
  const double setup = MPI_Wtime() - start;

  // 2. The integration (v' and lambda at t0, then IDA's steps; phases timed inside).
  const State s0 = initialState(part.model);
  IdaOptions o;
  o.t_end = study.t_end;
  o.rtol = study.rtol;
  o.atol = 1e-2 * study.rtol;
  o.output_interval = study.t_end / 100.0;  // outputs interpolated: the steps are IDA's own
  if (study.reproducible) useRedundantKlu(o.petsc_prefix);
  double kinetic_max = 0.0;  // over the outputs: the scale of the energy check
  inside.run += " size=" + std::to_string(size) + " repeat=" + std::to_string(repeat);
  inside.save = [&](Checkpoint& c) { c.add("kinetic_max", exactNumber(kinetic_max)); };
  inside.load = [&](const Checkpoint& c) { kinetic_max = parseExactNumber(c.get("kinetic_max")); };
  SegmentedDynamicsResult r =
      integrateDistributedIdaInSegments(as, s0, o, inside, [&](const State& s) {
        kinetic_max = std::max(kinetic_max, distributedEnergy(as, s).kinetic);
        // The same bits on every rank, so the same answer.
        return !watch || watch->holds(gatherWholeState(dm, numbering, rows.model, s));
      });
  if (watch && !watch->status().ok()) {
    r.status = watch->status();
    r.worst_rows = watch->rows();
  }
  for (const std::string& w : r.warnings)  // every rank its own damaged files, a line in one write
    std::cerr << "catena-scale: warning: " + w + "\n";
  if (rank == 0 && !r.note.empty())
    std::cerr << "catena-scale: N = " << size << ": " << r.note << "\n";
  if (r.interrupted) return {"", false, true, r.state.t};
  MPI_Barrier(MPI_COMM_WORLD);
  const double total = MPI_Wtime() - start;

  // 3. Check values: energy and constraint drift (their scale: the chain's span, the lattice's
  // width or height).
  const Energy e0 = distributedEnergy(as, s0), e1 = distributedEnergy(as, r.state);
  const double drift =
      std::abs(e1.total() - e0.total()) / std::max(kinetic_max, std::numeric_limits<double>::min());
  const ConstraintDrift c = distributedConstraintDrift(as, r.state);
  const double span =
      input   ? lengthScale(input->model)
      : chain ? (CatenaryChainOptions{}.end_b - CatenaryChainOptions{}.end_a).norm()  // as built
              : std::max(lattice.cells * lattice.cell_width, lattice.levels * lattice.crank_length);
  const bool energy_pass = r.status.ok() && drift <= energyDriftBound(study.rtol);
  // C = 0 and C_q v + C_t = 0 are equations of the DAE, held to IDA's Newton tolerance, a
  // fraction of rtol of the positions and velocities (measured: |C| <= 2e-12 m and
  // |C_q v| <= 3e-8 m/s at rtol 1e-6).
  const double speed = std::max(1.0, dm.maxAbs(r.state.v));
  const bool constraint_pass =
      r.status.ok() && c.position <= study.rtol * span && c.velocity <= study.rtol * speed;

  const DistributedDynamicsTimings& t = r.timings;

  std::ostringstream os;
  JsonWriter j(os);
  j.beginObject();
  writeRunHead(j, study.family, "dynamics", size, repeat, ranks);
  if (input) writeInput(j, study, *input, r.status);
  j.key("unknowns").value(r.unknowns);
  j.key("constraints").value(static_cast<long>(dm.globalNc()));
  j.key("partitioner").value(partitioner);
  j.key("status").value(r.status.ok() ? std::string("ok") : r.status.message);
  j.key("linear_solver").value(r.linear_solver);
  j.key("t_end_s").value(study.t_end).key("rtol").value(study.rtol);
  j.key("reproducible").value(study.reproducible);
  j.key("segment_s").value(study.segment).key("segments_run").value(r.segments);
  j.key("resumed_at_s").value(r.resumed_at);  // null: not restarted
  j.key("steps").value(r.stats.steps).key("rejected_steps").value(r.stats.rejected_steps);
  j.key("newton_iterations").value(r.stats.newton_iterations);
  j.key("factorizations").value(r.stats.factorizations).key("solves").value(r.stats.linear_solves);
  // Phase times: the maximum over the ranks of each rank's time in the phase.
  j.key("time_total_s").value(total);
  j.key("time_setup_s").value(dm.max(setup + t.setup));
  j.key("time_initial_s").value(dm.max(t.initial));
  j.key("time_integration_s").value(dm.max(t.integration));
  j.key("time_assembly_s").value(dm.max(t.assembly));
  j.key("time_factorization_s").value(dm.max(t.factorization));
  j.key("time_solve_s").value(dm.max(t.solve));
  writePeakMemory(j);
  bool motion_pass = true;
  if (chain) {
    // The state at t_end: midpoint, sag, support reactions.
    const long N = size;
    const Vec3 midpoint = linkStart(dm, r.state, N / 2);
    const double sag = -lowestMarkerHeight(dm, r.state.q);
    const JointReaction a = distributedJointReaction(as, r.state.q, r.state.t, r.state.lambda, 0);
    const JointReaction b = distributedJointReaction(as, r.state.q, r.state.t, r.state.lambda, N);
    const double weight = totalMass(dm) * part.model.gravity.norm();
    j.key("midpoint_m").array(midpoint).key("sag_m").value(sag);
    j.key("reaction_a_n").array(a.force_world).key("reaction_b_n").array(b.force_world);
    j.key("weight_n").value(weight);
  } else if (lattice_family) {
    motion_pass = latticeMotionChecks(j, dm, r.state, lattice, r.status.ok());
  } else {
    // The state at t_end: lowest marker, the ground joints' (dynamic) support, the weight, the
    // rows left out and the positions of the first bodies (the whole state gathered).
    const State w = gatherWholeState(dm, numbering, rows.model, r.state);
    j.key("lowest_point_m").value(lowestMarkerHeight(dm, r.state.q));
    if (!r.status.ok()) j.key("worst_rows").array(r.worst_rows);
    // With rows left out, the reactions of every row's minimum-norm multipliers (the reduced
    // model's C_q^T lambda), as `catena simulate` reports them.
    if (!writeRedundantRows(j, input->model, whole_plan ? &*whole_plan : nullptr, rows, w,
                            dm.max(selection)))
      writeSupportReactions(j, as, input->model, r.state.q, r.state.t, r.state.lambda);
    j.key("body_positions_m").beginObject();
    const Model& whole = input->model;
    for (Index b = 0; b < static_cast<Index>(whole.bodies.size()) && b < kReportedBodies; ++b) {
      const double* origin = w.q.data() + whole.qOffset(b);  // the body frame's origin
      j.key(whole.bodies[b].name).array(std::vector<double>(origin, origin + whole.dimension));
    }
    j.endObject();
    j.key("ground_reactions_n").value(groundSupportForce(as, r.state.q, r.state.t, r.state.lambda));
    j.key("weight_n").value(totalMass(dm) * part.model.gravity.norm());
  }
  j.key("kinetic_energy_j").value(e1.kinetic);
  j.key("check_energy_drift").value(drift);
  j.key("check_energy_pass").value(energy_pass);
  j.key("check_constraint_position_m").value(c.position);
  j.key("check_constraint_velocity_m_s").value(c.velocity);
  j.key("check_constraint_pass").value(constraint_pass);
  j.endObject();
  return {os.str(), energy_pass && constraint_pass && motion_pass};
}

/// The check values of a chain's equilibrium: sag, support reactions and whether the vertical
/// reactions carry the chain's weight.
bool chainChecks(JsonWriter& j, const DistributedAssembly& as, const DistributedStaticsResult& r,
                 long N) {
  const DistributedModel& dm = as.distributedModel();
  const double sag = -lowestMarkerHeight(dm, r.state.q);
  const JointReaction a = distributedJointReaction(as, r.state.q, 0.0, r.state.lambda, 0);
  const JointReaction b = distributedJointReaction(as, r.state.q, 0.0, r.state.lambda, N);
  const double weight = totalMass(dm) * dm.local().gravity.norm();
  const double residual = std::abs(a.force_world.z() + b.force_world.z() - weight) / weight;
  j.key("sag_m").value(sag);
  j.key("reaction_a_n").array(a.force_world).key("reaction_b_n").array(b.force_world);
  j.key("weight_n").value(weight);
  j.key("check_weight_residual").value(residual);
  const bool pass = r.status.ok() && residual <= kWeightTolerance;
  j.key("check_weight_pass").value(pass);
  return pass;
}

/// The check values of a lattice's equilibrium against the closed-form hanging lattice: the
/// lowest point K h below the ground hinges, and the ground hinges carrying the weight.
bool latticeChecks(JsonWriter& j, const DistributedAssembly& as, const DistributedStaticsResult& r,
                   const FourBarLatticeOptions& o) {
  const DistributedModel& dm = as.distributedModel();
  const Model& m = dm.local();
  const double lowest = lowestMarkerHeight(dm, r.state.q);
  const double drop = o.levels * o.crank_length;
  const double vertical = groundSupportForce(as, r.state.q, 0.0, r.state.lambda);
  const double weight = totalMass(dm) * m.gravity.norm();
  const double residual = std::abs(vertical - weight) / weight;
  const double lowest_residual = std::abs(lowest + drop) / drop;
  j.key("lowest_point_m").value(lowest).key("closed_form_lowest_point_m").value(-drop);
  j.key("ground_reactions_n").value(vertical).key("weight_n").value(weight);
  j.key("check_weight_residual").value(residual);
  j.key("check_lowest_point_residual").value(lowest_residual);
  const bool pass =
      r.status.ok() && residual <= kWeightTolerance && lowest_residual <= kWeightTolerance;
  j.key("check_weight_pass").value(pass);
  return pass;
}

/// One distributed statics of the family's model of the given size, and with modes > 0 the
/// lowest modes at its equilibrium; the JSON line (meaningful on rank 0).
RunResult runStatics(const ScalingStudy& study, const InputModel* input, long size, int repeat,
                     int ranks, int rank) {
  const std::string& family = study.family;
  const int modes = study.analysis == "modal" ? study.modes : 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  // 1. Set-up: the rank's part of the model (a contiguous range of the chain's links, a graph
  // partition of the lattice's or the input's bodies), its numbering and ghosts, the assembly plan.
  //    An input model runs without its redundant constraint rows at its initial state, as its
  //    dynamics does; they must hold at the equilibrium.
  const bool chain = family == "chain";
  const FourBarLatticeOptions lattice =
      family == "lattice" ? studyLattice(size) : FourBarLatticeOptions{};
  const double selection_start = MPI_Wtime();
  const IndependentRows rows = input ? independentInputRows(input->model) : IndependentRows{};
  const double selection = MPI_Wtime() - selection_start;
  InputNumbering numbering;
  const auto [part, partitioner] = buildStudyPart(study, input ? &rows.model : nullptr, size,
                                                  lattice, rank, ranks, false, &numbering);
  const DistributedModel dm(part);
  DistributedAssembly as(dm);
  std::optional<AssemblyPlan> whole_plan;
  if (!rows.dropped.empty()) whole_plan.emplace(buildAssemblyPlan(input->model));
  const double setup = MPI_Wtime() - start;

  // 2. Newton (assembly, factorization, solves are timed inside).
  SaddlePointSolverOptions linear;
  if (study.linear_solver == "iterative")
    linear.method = SaddlePointSolverOptions::Method::kAugmentedLagrangian;
  DistributedStaticsResult r = solveDistributedStatics(as, {}, linear);
  State whole_state;  // an input model's equilibrium, gathered
  if (input) whole_state = gatherWholeState(dm, numbering, rows.model, r.state);
  if (whole_plan && r.status.ok())
    checkRowsLeftOut(input->model, *whole_plan, rows, whole_state, r);

  // 3. Modal: the lowest modes at the equilibrium (pencil, factorization, Krylov-Schur).
  DistributedModalResult modal;
  if (modes > 0 && r.status.ok()) {
    ModalOptions mo;
    mo.modes = modes;
    modal = solveDistributedModal(as, r.state.q, r.state.lambda, mo);
  } else if (modes > 0) {
    modal.status = Status::failure(Status::Code::kNotConverged, "no equilibrium");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double total = MPI_Wtime() - start;

  std::ostringstream os;
  JsonWriter j(os);
  j.beginObject();
  writeRunHead(j, family, modes > 0 ? "modal" : "statics", size, repeat, ranks);
  if (input) writeInput(j, study, *input, r.status);
  j.key("unknowns").value(static_cast<long>(dm.globalNv() + dm.globalNc()));
  j.key("constraints").value(static_cast<long>(dm.globalNc()));
  j.key("partitioner").value(partitioner);
  j.key("ghost_bodies").value(static_cast<long>(sumOver(part.ghost_bodies.size())));
  j.key("status").value(r.status.ok() ? std::string("ok") : r.status.message);
  j.key("linear_solver").value(r.linear_solver);
  j.key("newton_iterations").value(static_cast<int>(r.history.size()) - 1);
  j.key("factorizations").value(r.factorizations).key("solves").value(r.solves);
  j.key("krylov_iterations").value(r.krylov_iterations);
  // Phase times: the maximum over the ranks of each rank's time in the phase.
  j.key("time_total_s").value(total);
  j.key("time_setup_s").value(maxOver(setup + r.setup_seconds));
  j.key("time_assembly_s").value(maxOver(r.assembly_seconds));
  j.key("time_factorization_s").value(maxOver(r.factor_seconds));
  j.key("time_solve_s").value(maxOver(r.solve_seconds));
  writePeakMemory(j);
  // 4. Check values: the equilibrium against the weight (and the lattice's closed form).
  bool statics_pass = false;
  if (input) {
    const bool written = writeRedundantRows(j, input->model, whole_plan ? &*whole_plan : nullptr,
                                            rows, whole_state, dm.max(selection));
    statics_pass = modelStaticsChecks(j, as, input->model, r, kWeightTolerance, !written);
  } else {
    statics_pass = chain ? chainChecks(j, as, r, size) : latticeChecks(j, as, r, lattice);
  }
  bool modes_pass = true;
  if (modes > 0) {
    // Modal: the statics fields above, then the eigensolver's (times: maximum over the ranks).
    std::vector<double> frequencies, residuals;
    double worst = 0.0;
    for (const DistributedMode& m : modal.modes) {
      frequencies.push_back(m.frequency_hz);
      residuals.push_back(std::max(m.residual, m.constraint_residual));
      worst = std::max(worst, residuals.back());
    }
    j.key("modes").value(modes);
    j.key("modal_status").value(modal.status.ok() ? std::string("ok") : modal.status.message);
    j.key("eigen_method").value(modal.method).key("eigen_iterations").value(modal.iterations);
    j.key("eigen_solves").value(modal.solves);
    j.key("time_eigen_s")
        .value(maxOver(modal.setup_seconds + modal.assembly_seconds + modal.factor_seconds +
                       modal.solve_seconds));
    j.key("time_eigen_factorization_s").value(maxOver(modal.factor_seconds));
    j.key("time_eigen_solve_s").value(maxOver(modal.solve_seconds));
    j.key("frequencies_hz").array(frequencies);
    j.key("mode_residuals").array(residuals);
    j.key("check_mode_residual_max").value(worst);
    modes_pass = modal.status.ok() && static_cast<int>(modal.modes.size()) == modes &&
                 worst <= kModeResidualBound;
    if (family == "lattice" && modes_pass) {
      // The closed-form hanging lattice (an independent formulation in the levels' angles).
      std::sort(frequencies.begin(), frequencies.end());
      const std::vector<double> exact = hangingFourBarLatticeFrequencies(
          lattice, dm.local().gravity.norm(), std::min(modes, lattice.levels));
      double error = 0.0;
      for (std::size_t k = 0; k < exact.size(); ++k)
        error = std::max(error, std::abs(frequencies[k] - exact[k]) / exact[k]);
      j.key("closed_form_frequencies_hz").array(exact);
      j.key("check_frequency_residual").value(error);
      modes_pass = exact.size() == frequencies.size() && error <= kFrequencyTolerance;
    }
    j.key("check_modes_pass").value(modes_pass);
  }
  j.endObject();
  return {os.str(), statics_pass && modes_pass};
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
  auto notice = [&](int run, bool segments) {
    if (rank != 0) return;
    std::ostringstream os;
    os << " during run " << run + 1 << " of " << total << "; stopping at the end of the "
       << (segments ? "segment" : "run") << " in progress";
    if (!s.checkpoint.empty())
      os << " (the checkpoint '" << s.checkpoint << "' holds the " << run << " runs done)";
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
      notice(run, s.analysis == "dynamics" && s.segment > 0.0);
      RunResult result;
      try {
        result = s.analysis == "dynamics"
                     ? runDynamics(s, model, N, run % s.repeats, ranks, rank, inside)
                     : runStatics(s, model, N, run % s.repeats, ranks, rank);
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
                    << " of " << total << " at t = " << result.t << " s";
          if (s.checkpoint.empty())
            std::cerr << "; no checkpoint (give --json or --checkpoint)\n";
          else
            std::cerr << "; checkpoints written to '" << s.checkpoint << "' and '"
                      << inside.checkpoint.string() << ".r*'; restart with --restart\n";
        }
        return 3;
      }
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
