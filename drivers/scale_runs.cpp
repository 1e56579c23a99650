/// @file scale_runs.cpp
/// One run of catena-scale (drivers/scale_runs.hpp): the model's part, the analysis, the checks
/// and the JSON line.

#include "scale_runs.hpp"

#include <mpi.h>
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <iostream>
#include <limits>
#include <numbers>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/reactions.hpp"
#include "analysis/scales.hpp"
#include "core/check.hpp"
#include "core/termination.hpp"
#include "integrators/distributed_dynamics.hpp"
#include "integrators/redundant_rows.hpp"
#include "io/checkpoint.hpp"
#include "io/json_writer.hpp"
#include "kernels/pose.hpp"
#include "modal/distributed_modal.hpp"
#include "model/generators.hpp"
#include "parallel/lattice_part.hpp"
#include "parallel/message_counters.hpp"
#include "statics/distributed_statics.hpp"
#include "statics/redundant_statics.hpp"

namespace catena {

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
/// The fields that identify a run: family, analysis, size, repeat, ranks, threads.
void writeRunHead(JsonWriter& j, const std::string& family, const std::string& analysis, long size,
                  int repeat, int ranks) {
  j.key("family").value(family).key("analysis").value(analysis);
  j.key("size").value(size).key("repeat").value(repeat);
  j.key("ranks").value(ranks).key("threads").value(omp_get_max_threads());
}

namespace {

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
  if (!st.ok() && rank == 0)
    std::cerr << s.program << ": " << s.input << ": " << st.message << "\n";
}

/// Peak resident set of the ranks so far (MiB): the largest, the smallest, the sum and rank 0's.
/// Collective.
void writePeakMemory(JsonWriter& j) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double rss = usage.ru_maxrss / 1024.0;  // KiB on Linux
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  j.key("max_rss_mib_max").value(maxOver(rss)).key("max_rss_mib_sum").value(sumOver(rss));
  j.key("max_rss_mib_min").value(-maxOver(-rss));
  j.key("max_rss_mib_rank0").value(maxOver(rank == 0 ? rss : 0.0));
}

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
/// joints went), the chain of `size` links (contiguous ranges) or the given lattice (PT-Scotch
/// graph partition), and the partitioner's name. halo: for bitwise reproducible dynamics
/// (contiguous ranges and the halo; the generated lattice has none).
DistributedLatticePart buildStudyPart(const ScalingStudy& study, const Model* whole, long size,
                                      const FourBarLatticeOptions& lattice, int rank, int ranks,
                                      bool halo = false, InputNumbering* numbering = nullptr) {
  if (whole) return partitionInputModel(*whole, study.input, numbering, halo);
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

/// Gathers on rank 0 a vector of n entries that the ranks hold between them: each rank's
/// values[i] is entry index[i]. Empty on the other ranks. Collective.
VecX gatherOnRoot(const VecX& values, const std::vector<long long>& index, Index n) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int count = static_cast<int>(index.size());
  std::vector<int> counts(ranks, 0), starts(ranks, 0);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int k = 1; k < ranks; ++k) starts[k] = starts[k - 1] + counts[k - 1];
  const int total = rank == 0 ? starts.back() + counts.back() : 0;
  std::vector<double> all_values(total);
  std::vector<long long> all_index(total);
  MPI_Gatherv(values.data(), count, MPI_DOUBLE, all_values.data(), counts.data(), starts.data(),
              MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Gatherv(index.data(), count, MPI_LONG_LONG, all_index.data(), counts.data(), starts.data(),
              MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  if (rank != 0) return {};
  VecX whole = VecX::Zero(n);
  for (int k = 0; k < total; ++k) whole(all_index[k]) = all_values[k];
  return whole;
}

/// Where the owned entries of this rank's local vectors go in the whole model's: positions,
/// velocity coordinates, rows (numbering: an input model's, from partitionInputModel, with its
/// partitioned model `whole`; null: the distributed global numbering).
struct OwnedEntries {
  std::vector<Index> q_local, v_local;  // local indices of the owned positions and velocities
  std::vector<long long> q, v, rows;    // their global indices; rows: of every local row
};
OwnedEntries ownedEntries(const DistributedModel& dm, const InputNumbering* numbering,
                          const Model* whole) {
  const Model& m = dm.local();
  const ModelPart& part = dm.part();
  OwnedEntries e;
  for (Index b = 0; b < part.owned_bodies; ++b) {
    const Index g = numbering ? numbering->body[b] : part.first_body + b;
    for (Index k = 0; k < m.nq_body; ++k) {
      e.q_local.push_back(m.qOffset(b) + k);
      e.q.push_back(static_cast<long long>(numbering ? whole->qOffset(g) : g * m.nq_body) + k);
    }
    for (Index k = 0; k < m.nv_body; ++k) {
      e.v_local.push_back(m.vOffset(b) + k);
      e.v.push_back(static_cast<long long>(numbering ? whole->vOffset(g) : g * m.nv_body) + k);
    }
  }
  for (std::size_t j = 0; j < m.joints.size(); ++j) {
    const Index first = m.joint_row_offset[j], rows = m.joint_row_offset[j + 1] - first;
    const Index global =
        numbering ? whole->joint_row_offset[numbering->joint[j]] : dm.firstRow() + first;
    for (Index k = 0; k < rows; ++k) e.rows.push_back(static_cast<long long>(global) + k);
  }
  return e;
}

/// The entries `local` of x (zeros where x is shorter).
VecX pick(const VecX& x, const std::vector<Index>& local) {
  VecX y = VecX::Zero(static_cast<Index>(local.size()));
  for (std::size_t k = 0; k < local.size(); ++k)
    if (local[k] < x.size()) y(static_cast<Index>(k)) = x(local[k]);
  return y;
}

/// Fills `arrays` (RunArrays) from a run's final local state s and its modes. Collective.
void keepArrays(RunArrays& arrays, const DistributedModel& dm, const InputNumbering* numbering,
                const Model* whole, const State& s, const std::vector<DistributedMode>& modes) {
  arrays.local = s;
  arrays.owned_bodies = dm.part().owned_bodies;
  if (!arrays.gather) return;
  const OwnedEntries e = ownedEntries(dm, numbering, whole);
  arrays.whole.t = s.t;
  arrays.whole.q = gatherOnRoot(pick(s.q, e.q_local), e.q, dm.globalNq());
  arrays.whole.v = gatherOnRoot(pick(s.v, e.v_local), e.v, dm.globalNv());
  const VecX lambda = s.lambda.size() == dm.ownedRows() ? s.lambda : VecX::Zero(dm.ownedRows());
  arrays.whole.lambda = gatherOnRoot(lambda, e.rows, dm.globalNc());
  std::vector<Index> owned(e.v_local.size());
  for (std::size_t k = 0; k < owned.size(); ++k) owned[k] = static_cast<Index>(k);
  arrays.mode_shapes.resize(arrays.whole.v.size(), static_cast<Index>(modes.size()));
  for (std::size_t k = 0; k < modes.size(); ++k) {
    const VecX shape = gatherOnRoot(pick(modes[k].shape, owned), e.v, dm.globalNv());
    if (shape.size() > 0) arrays.mode_shapes.col(static_cast<Index>(k)) = shape;
  }
}

}  // namespace

/// The family's model of the given size released at rest (the chain from its 'V', the lattice
/// a little off hanging: both assembled, v = 0), or the input model from its initial state
/// (which must be consistent), integrated by distributed IDA (GGL) to t_end in the study's
/// segments; the JSON line, or no line if a signal interrupted the run. inside: the run's
/// checkpoints (integrators/segmented_dynamics.hpp), its `run` the study's signature, to which
/// the size and repeat are added here.
RunResult runDynamics(const ScalingStudy& study, const InputModel* input, long size, int repeat,
                      int ranks, int rank, SegmentOptions inside, RunArrays* arrays) {
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
  if (study.reproducible) o.linear_solver = IdaLinearSolver::kGatheredKlu;
  if (study.linear_solver == "schur") o.linear_solver = IdaLinearSolver::kSchur;
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
    std::cerr << study.program + ": warning: " + w + "\n";
  if (rank == 0 && !r.note.empty())
    std::cerr << study.program << ": N = " << size << ": " << r.note << "\n";
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
  if (arrays) keepArrays(*arrays, dm, input ? &numbering : nullptr, &rows.model, r.state, {});
  return {os.str(), energy_pass && constraint_pass && motion_pass};
}

/// One distributed statics of the family's model of the given size, and with modes > 0 the
/// lowest modes at its equilibrium; the JSON line (meaningful on rank 0).
RunResult runStatics(const ScalingStudy& study, const InputModel* input, long size, int repeat,
                     int ranks, int rank, RunArrays* arrays, StaticsStop stop) {
  const std::string& family = study.family;
  const int modes = study.analysis == "modal" ? study.modes : 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  const MessageCounters sent_before_setup = petscMessageCounters();
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
  const MessageCounters sent_before_statics = petscMessageCounters();

  // 2. Newton (assembly, factorization, solves are timed inside).
  SaddlePointSolverOptions linear;
  if (study.linear_solver == "iterative")
    linear.method = SaddlePointSolverOptions::Method::kAugmentedLagrangian;
  if (study.linear_solver == "schur") linear.method = SaddlePointSolverOptions::Method::kSchur;
  StaticsOptions so;
  if (stop.on_signal)
    so.stop_requested = [&stop](int done) {
      if (done == stop.raise_after) std::raise(SIGTERM);
      return maxOver(terminationSignal()) != 0.0;  // the same answer on every rank
    };
  const double statics_start = MPI_Wtime();
  DistributedStaticsResult r = solveDistributedStatics(as, so, linear);
  const double statics_seconds = MPI_Wtime() - statics_start;
  if (r.status.code == Status::Code::kInterrupted) {
    RunResult interrupted;
    interrupted.interrupted = true;
    interrupted.iterations = static_cast<int>(r.history.size()) - 1;
    return interrupted;
  }
  const MessageCounters sent_setup = sent_before_statics - sent_before_setup;
  const MessageCounters sent_statics = petscMessageCounters() - sent_before_statics;
  State whole_state;  // an input model's equilibrium, gathered
  if (input) whole_state = gatherWholeState(dm, numbering, rows.model, r.state);
  if (whole_plan && r.status.ok())
    checkRowsLeftOut(input->model, *whole_plan, rows, whole_state, r);

  // 3. Modal: the lowest modes at the equilibrium (pencil, factorization, Krylov-Schur).
  DistributedModalResult modal;
  if (modes > 0 && r.status.ok()) {
    ModalOptions mo;
    mo.modes = modes;
    mo.schur_decomposition = linear.method == SaddlePointSolverOptions::Method::kSchur;
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
  // The statics' own clock, as `catena statics` measures it: the whole Newton solve, the
  // linear solver's set-up (its matrix pattern, here counted in time_setup_s too) included.
  j.key("time_statics_s").value(maxOver(statics_seconds));
  j.key("time_solver_setup_s").value(maxOver(r.setup_seconds));
  j.key("time_assembly_s").value(maxOver(r.assembly_seconds));
  j.key("time_factorization_s").value(maxOver(r.factor_seconds));
  j.key("time_solve_s").value(maxOver(r.solve_seconds));
  // Traffic per rank that PETSc counts (parallel/message_counters.hpp: MUMPS' own is not):
  // the largest rank's and the mean, for the set-up and the statics.
  j.key("bytes_sent_setup_max").value(maxOver(sent_setup.bytes));
  j.key("bytes_sent_statics_max").value(maxOver(sent_statics.bytes));
  j.key("bytes_sent_statics_mean").value(sumOver(sent_statics.bytes) / ranks);
  j.key("messages_sent_statics_max").value(maxOver(sent_statics.messages));
  j.key("reductions_statics_max").value(maxOver(sent_statics.reductions));
  if (r.schur.parts > 0) {
    // The decomposition's per-rank work (CPU seconds): the spread is the imbalance.
    const SchurStats& d = r.schur;
    const double interior = static_cast<double>(d.interior);
    j.key("schur_interface_unknowns").value(d.interface_total);
    j.key("schur_parts").value(d.parts);
    j.key("schur_moved_unknowns").value(static_cast<long>(sumOver(static_cast<double>(d.moved))));
    j.key("schur_interior_unknowns_max").value(static_cast<long>(maxOver(interior)));
    j.key("schur_interior_unknowns_min").value(static_cast<long>(-maxOver(-interior)));
    j.key("cpu_schur_analysis_s_max").value(maxOver(d.analysis_seconds));
    j.key("cpu_interior_factorization_s_max").value(maxOver(d.interior_seconds));
    j.key("cpu_interior_factorization_s_min").value(-maxOver(-d.interior_seconds));
    j.key("schur_window_max").value(static_cast<long>(maxOver(static_cast<double>(d.window))));
    j.key("cpu_schur_part_s_max").value(maxOver(d.schur_seconds));
    j.key("time_interface_factorization_s_max").value(maxOver(d.interface_seconds));
    // S factored by KLU on every rank (-dd_interface klu): that local work alone, without the
    // gather (0 with MUMPS on S).
    j.key("cpu_interface_factorization_s_max").value(maxOver(d.interface_cpu_seconds));
    // Iterative-refinement steps over the statics' solves (the same on every rank).
    j.key("schur_refinements").value(d.refinements);
    // Fill-reducing orderings of interior blocks (all ranks; one per block unless moved rows
    // made an order unusable).
    j.key("schur_orderings").value(static_cast<long>(sumOver(static_cast<double>(d.orderings))));
    // Interior factorizations with new pivots (each about 4 refactorizations' work) and
    // refactorizations, the largest rank's: KLU refuses a refactorization whose pivots went bad.
    j.key("schur_full_factorizations_max")
        .value(static_cast<long>(maxOver(static_cast<double>(d.full_factorizations))));
    j.key("schur_refactorizations_max")
        .value(static_cast<long>(maxOver(static_cast<double>(d.refactorizations))));
    // Solves whose refinement failed with kept pivots and were factored anew (every rank).
    j.key("schur_repivoted_solves").value(d.repivoted_solves);
  }
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
  if (arrays) {
    keepArrays(*arrays, dm, input ? &numbering : nullptr, &rows.model, r.state, modal.modes);
    if (arrays->gather) {
      arrays->statics = std::move(r);
      arrays->modal = std::move(modal);
      if (!rows.dropped.empty()) arrays->rows = rows;
      arrays->partitioner = partitioner;
    }
  }
  return {os.str(), statics_pass && modes_pass};
}

}  // namespace catena
