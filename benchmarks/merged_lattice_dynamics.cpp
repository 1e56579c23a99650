/// @file merged_lattice_dynamics.cpp
/// Benchmark (issue 28, item 3, serial): over-constrained mechanisms integrated through the
/// public integrators, which leave the redundant rows out (integrators/redundant_rows.hpp,
/// withIndependentRows) and report the minimum-norm multipliers of every row.
///
///   1. Merged four-bar lattices of L levels of K cells (buildFourBarLattice, merged_couplers,
///      leaningFourBarLattice: every level leaning from hanging down, released at rest; K - 1
///      redundant rows per level), 10^2 to 10^4 cells, by generalized-alpha (library defaults,
///      local error 1e-5) and, up to --ida-max-cells cells, IDA index 2 (rtol 1e-6).
///   2. The catenary chain of N links (buildCatenaryChain) with its support at B doubled: a
///      second spherical joint "end_b_twin" at the same point (3 redundant rows), swinging from
///      its static equilibrium with gravity turned by 30 degrees about AB (the 'swing' of
///      chain_dynamics.cpp), by generalized-alpha.
/// Per run: bodies, coordinates, rows, rows left out, steps, CPU seconds (process CPU time of
/// the whole integrate call: the failed first run, the selection, the reduced run, the
/// minimum-norm multipliers at every output and the watch of the rows left out), per step and per
/// step and body; the row selection (independentRows) and the minimum-norm multipliers
/// (minimumNormMultipliers) timed by separate calls at the start; peak resident set (VmHWM, reset
/// before each case) and its growth over the resident set before the case per body; the largest
/// |C| of the rows left out and of the kept rows at the end. The log-log slopes against bodies
/// come from the CSV of all cases (benchmarks/studies/merged_lattice_dynamics.sh). Output: Markdown
/// on stdout, CSV (--csv). One process, run with OMP_NUM_THREADS=1.
///
///   bench_merged_lattice_dynamics --lattices 10x10,10x30 --chain-links 1000 --csv out.csv
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "assembly/assemble.hpp"
#include "integrators/generalized_alpha.hpp"
#include "integrators/ida_dynamics.hpp"
#include "integrators/initial_state.hpp"
#include "mobility/independent_rows.hpp"
#include "model/four_bar_lattice.hpp"
#include "model/generators.hpp"
#include "parallel/petsc_session.hpp"
#include "statics/statics.hpp"
#include "support/markdown_table.hpp"
#include "support/options.hpp"
#include "support/stamp.hpp"
#include "support/timing.hpp"

using namespace catena;
using bench::fixed;
using bench::sci;

namespace {

struct Options {
  std::vector<std::string> lattices = {"10x10", "10x30"};  ///< LxK: levels x cells
  double t_end = 2.0;                                      ///< s, lattices
  double output_interval = 0.01;                           ///< s
  double lean = 0.2;                                       ///< rad, leaningFourBarLattice
  double tolerance = GeneralizedAlphaOptions{}.error_tolerance;
  long ida_max_cells = 300;  ///< IDA index 2 on lattices of at most this many cells
  double ida_rtol = 1e-6;
  std::vector<int> chain_links = {1000};
  double chain_t_end = 0.05;  ///< s
  double budget = 0.0;        ///< s of wall time per run; 0: none
  /// The sparse and dense minimum-norm multipliers compared up to this many coordinates.
  long compare_max_coordinates = 3000;
  std::string csv;
  bench::PetscArgs petsc;
};

/// One integration of one over-constrained case.
struct Run {
  std::string kind, shape, integrator;
  Index bodies = 0, coordinates = 0, rows = 0, rows_left_out = 0;
  long steps = 0, outputs = 0;
  double t_end = 0.0, t_reached = 0.0;
  bool ok = false, over_budget = false;
  double cpu = 0.0, wall = 0.0;
  double select = 0.0, multipliers = 0.0;  ///< CPU s of one call each, at the start
  long peak_kib = 0, base_kib = 0;
  double c_left_out = 0.0, c_kept = 0.0;  ///< largest |C| at the end, m
  /// At the start, lambda_r = 1: |C_q^T lambda - C_qr^T lambda_r| / |C_qr^T lambda_r|, and
  /// |sparse - dense| / |dense| of the multipliers (-1: not compared, too large).
  double force_residual = 0.0, sparse_vs_dense = -1.0;
  std::string message;
  double perStep() const { return cpu / static_cast<double>(std::max(1L, steps)); }
  double perStepBody() const { return perStep() / static_cast<double>(bodies); }
  /// perStep() without the minimum-norm multipliers (outputs + 1 calls: every output and the
  /// final state), estimated with the time of one call at the start.
  double perStepNet() const {
    const double net = cpu - static_cast<double>(outputs + 1) * multipliers;
    return std::max(0.0, net) / static_cast<double>(std::max(1L, steps));
  }
  double bytesPerBody() const {
    return 1024.0 * static_cast<double>(peak_kib - base_kib) / static_cast<double>(bodies);
  }
};

/// CPU seconds of one call of f: the mean over repeats until 0.2 s or 20 calls.
template <class F>
double cpuPerCall(F&& f) {
  const double t0 = bench::cpuSeconds();
  int calls = 0;
  do {
    f();
    ++calls;
  } while (bench::cpuSeconds() - t0 < 0.2 && calls < 20);
  return (bench::cpuSeconds() - t0) / calls;
}

/// The model, its plan and its consistent start.
struct Case {
  std::string kind, shape;
  Model model;
  AssemblyPlan plan;
  State start;
  long cells = 0;  ///< lattices: L K
};

Case latticeCase(const std::string& shape, double lean) {
  const auto x = shape.find('x');
  if (x == std::string::npos) throw std::invalid_argument("lattice " + shape + " is not LxK");
  const int levels = std::stoi(shape.substr(0, x)), cells = std::stoi(shape.substr(x + 1));
  FourBarLatticeOptions o = leaningFourBarLattice(levels, cells, lean);
  o.merged_couplers = true;
  Case c{"lattice", shape, buildFourBarLattice(o), {}, {}, long{levels} * cells};
  c.plan = buildAssemblyPlan(c.model);
  // The generator places every body on the parallelogram: the start is assembled already.
  c.start = initialState(c.model);
  VecX C(c.model.nc);
  assembleConstraints(c.model, c.plan, c.start.q, c.start.t, &C, nullptr);
  if (C.lpNorm<Eigen::Infinity>() > 1e-10)
    throw std::runtime_error("lattice " + shape + ": the generated start is not assembled");
  return c;
}

/// The chain with its support at B doubled, at the equilibrium of the plain chain (the same
/// bodies in the same order), gravity turned by 30 degrees about AB.
Case chainCase(int links) {
  CatenaryChainOptions co;
  co.links = links;
  const Model plain = buildCatenaryChain(co);
  const StaticsResult eq = solveStatics(plain, buildAssemblyPlan(plain), initialState(plain));
  if (!eq.status.ok()) throw std::runtime_error("statics failed: " + eq.status.message);
  ModelBuilder b(3, "chain_doubled_support");
  addCatenaryChain(b, co);
  Joint twin;
  twin.name = "end_b_twin";
  twin.type = JointType::kSpherical;
  twin.marker1 = b.findMarker("link_" + std::to_string(links - 1) + "/end");
  twin.marker2 = b.findMarker("ground/b");
  b.addJoint(twin);
  const double g = 9.81, turn = M_PI / 6.0;
  b.setGravity(Vec3(0.0, g * std::sin(turn), -g * std::cos(turn)));
  Case c{"chain", std::to_string(links), b.finalize(), {}, {}, 0};
  c.plan = buildAssemblyPlan(c.model);
  c.start = initialState(c.model);
  c.start.q = eq.state.q;
  c.start.v.setZero();
  return c;
}

/// Largest |C| over `rows` of C.
double largest(const VecX& C, const std::vector<Index>& rows) {
  double out = 0.0;
  for (Index r : rows) out = std::max(out, std::abs(C[r]));
  return out;
}

Run integrate(const Case& c, const std::string& integrator, double t_end, const Options& o,
              long base_kib) {
  const Model& m = c.model;
  Run run;
  run.kind = c.kind;
  run.shape = c.shape;
  run.integrator = integrator;
  run.bodies = static_cast<Index>(m.bodies.size());
  run.coordinates = m.nq;
  run.rows = m.nc;
  run.t_end = t_end;
  run.base_kib = base_kib;
  // 1. The selection and the multipliers alone, at the start.
  IndependentRows rows;
  run.select = cpuPerCall([&] { rows = independentRows(m, c.plan, c.start.q, c.start.t); });
  const VecX lambda_r = VecX::Ones(rows.model.nc);
  VecX lambda;
  run.multipliers = cpuPerCall(
      [&] { lambda = minimumNormMultipliers(m, c.plan, rows, c.start.q, c.start.t, lambda_r); });
  SparseMatrixCSR Cq = makeConstraintMatrix(c.plan);
  assembleConstraints(m, c.plan, c.start.q, c.start.t, nullptr, &Cq);
  VecX padded = VecX::Zero(m.nc);
  for (std::size_t k = 0; k < rows.kept.size(); ++k) padded[rows.kept[k]] = lambda_r[k];
  const VecX force = Cq.transpose() * padded;
  run.force_residual = (VecX(Cq.transpose() * lambda) - force).norm() / force.norm();
  if (m.nv <= o.compare_max_coordinates) {
    // Both paths: the sparse one forced (dense_limit 0), the dense one (complete orthogonal
    // decomposition) forced above its default limit.
    const VecX sparse = minimumNormMultipliers(m, c.plan, rows, c.start.q, c.start.t, lambda_r, 0);
    const VecX dense =
        minimumNormMultipliers(m, c.plan, rows, c.start.q, c.start.t, lambda_r, m.nv);
    run.sparse_vs_dense = (sparse - dense).norm() / dense.norm();
  }
  // 2. The run through the public integrator; the observer counts outputs and checks the budget.
  const auto w0 = bench::Clock::now();
  auto observer = [&](const State&) {
    ++run.outputs;
    run.over_budget = o.budget > 0.0 && bench::secondsSince(w0) > o.budget;
    return !run.over_budget;
  };
  const double c0 = bench::cpuSeconds();
  DynamicsResult r;
  if (integrator == "generalized-alpha") {
    GeneralizedAlphaOptions go;
    go.t_end = c.start.t + t_end;
    go.output_interval = std::min(o.output_interval, t_end);
    go.error_tolerance = o.tolerance;
    r = integrateGeneralizedAlpha(m, c.plan, c.start, go, observer);
  } else {
    IdaOptions io;
    io.t_end = c.start.t + t_end;
    io.output_interval = std::min(o.output_interval, t_end);
    io.rtol = o.ida_rtol;
    io.atol = o.ida_rtol / 100.0;
    r = integrateIda(m, c.plan, c.start, io, observer);
  }
  run.cpu = bench::cpuSeconds() - c0;
  run.wall = bench::secondsSince(w0);
  run.peak_kib = bench::statusKiB("VmHWM");
  run.steps = r.stats.steps;
  run.t_reached = r.state.t - c.start.t;
  run.rows_left_out = static_cast<Index>(r.redundant_rows.size());
  run.ok = r.status.ok() && !run.over_budget && run.t_reached >= t_end * (1.0 - 1e-12);
  run.message =
      run.over_budget ? "over the budget of " + fixed(o.budget, 0) + " s" : r.status.message;
  // 3. The rows left out (the selection of step 1, the same state) against the kept ones.
  VecX C(m.nc);
  assembleConstraints(m, c.plan, r.state.q, r.state.t, &C, nullptr);
  run.c_left_out = largest(C, rows.dropped);
  run.c_kept = largest(C, rows.kept);
  if (static_cast<Index>(rows.dropped.size()) != run.rows_left_out)
    run.message +=
        " (the separate selection left out " + std::to_string(rows.dropped.size()) + " rows)";
  return run;
}

constexpr const char* kCsvHeader =
    "kind,shape,integrator,bodies,coordinates,rows,rows_left_out,t_end_s,t_reached_s,ok,steps,"
    "outputs,cpu_s,wall_s,cpu_per_step_s,cpu_per_step_body_s,cpu_per_step_net_s,select_s,"
    "multipliers_s,peak_rss_kib,"
    "base_rss_kib,bytes_per_body,c_left_out_m,c_kept_m,force_residual,sparse_vs_dense";

std::string row(const Run& r) {
  std::string reached = r.ok ? fixed(r.t_reached, 3)
                             : "**" + fixed(r.t_reached, 4) + " of " + fixed(r.t_end, 2) + "**";
  return bench::markdownRow({r.shape,
                             r.integrator,
                             std::to_string(r.bodies),
                             std::to_string(r.coordinates),
                             std::to_string(r.rows),
                             std::to_string(r.rows_left_out),
                             reached,
                             std::to_string(r.steps),
                             bench::formatNumber("%.3g", r.cpu),
                             sci(r.perStep(), 3),
                             sci(r.perStepBody(), 3),
                             sci(r.perStepNet(), 3),
                             sci(r.select, 2),
                             sci(r.multipliers, 2),
                             std::to_string(r.outputs),
                             fixed(r.peak_kib / 1024.0, 1),
                             fixed(r.bytesPerBody(), 0),
                             sci(r.c_left_out, 1),
                             sci(r.c_kept, 1),
                             sci(r.force_residual, 1),
                             r.sparse_vs_dense < 0.0 ? "-" : sci(r.sparse_vs_dense, 1)});
}

constexpr const char* kUsage =
    "usage: bench_merged_lattice_dynamics [--lattices LxK,...] [--t-end T] [--output-interval S] "
    "[--lean RAD] [--tolerance E] [--ida-max-cells N] [--ida-rtol R] [--chain-links N,...] "
    "[--chain-t-end T] [--budget S] [--compare-max-coordinates N] [--csv PATH] [PETSc options]\n";

Options parse(int argc, char** argv) {
  Options o;
  bench::OptionReader r(argc, argv, kUsage, bench::OptionReader::kPetscOptions);
  r.readAll({bench::option("--lattices", o.lattices), bench::option("--t-end", o.t_end),
             bench::option("--output-interval", o.output_interval), bench::option("--lean", o.lean),
             bench::option("--tolerance", o.tolerance),
             bench::option("--ida-max-cells", o.ida_max_cells),
             bench::option("--ida-rtol", o.ida_rtol), bench::option("--chain-links", o.chain_links),
             bench::option("--chain-t-end", o.chain_t_end), bench::option("--budget", o.budget),
             bench::option("--compare-max-coordinates", o.compare_max_coordinates),
             bench::option("--csv", o.csv)});
  o.petsc = r.petsc();
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  PetscSession session(o.petsc.argc(), o.petsc.argv());
  std::ofstream csv = bench::openCsv(o.csv, kCsvHeader);
  std::cout << "# Over-constrained mechanisms by the saddle-point integrators, redundant rows "
               "left out\n\n"
            << "Program: `" << bench::commandLine(argc, argv) << "` (" << bench::buildType()
            << "), " << bench::localDate() << ", OMP_NUM_THREADS "
            << bench::envOr("OMP_NUM_THREADS") << ".\n"
            << "Lattices: leaning " << o.lean << " rad, released at rest, t_end " << o.t_end
            << " s; chain: swing (gravity turned 30 deg), t_end " << o.chain_t_end
            << " s. Generalized-alpha: local error " << o.tolerance
            << ", other settings the library's; IDA index 2: rtol " << o.ida_rtol
            << ", atol rtol/100. Output every " << o.output_interval
            << " s (at most t_end), where the minimum-norm multipliers are computed and the budget "
               "checked."
            << (o.budget > 0.0 ? " Budget " + fixed(o.budget, 0) + " s of wall time per run." : "")
            << "\n\n";
  const std::vector<std::string> columns = {"case",
                                            "integrator",
                                            "bodies",
                                            "coordinates",
                                            "rows",
                                            "rows left out",
                                            "t reached, s",
                                            "steps",
                                            "CPU s",
                                            "CPU s / step",
                                            "CPU s / step / body",
                                            "CPU s / step without multipliers",
                                            "selection s",
                                            "multipliers s",
                                            "outputs",
                                            "peak RSS MiB",
                                            "bytes / body",
                                            "max abs C left out, m",
                                            "max abs C kept, m",
                                            "C_q^T lambda residual",
                                            "sparse vs dense lambda"};
  bool all_ok = true;
  std::vector<Run> runs;
  auto record = [&](const Run& r) {
    runs.push_back(r);
    all_ok = all_ok && r.ok;
    std::cout << row(r) << std::flush;
    if (!r.ok)
      std::cerr << r.kind << " " << r.shape << " " << r.integrator << ": " << r.message << "\n";
    if (csv)
      csv << r.kind << ',' << r.shape << ',' << r.integrator << ',' << r.bodies << ','
          << r.coordinates << ',' << r.rows << ',' << r.rows_left_out << ',' << r.t_end << ','
          << r.t_reached << ',' << r.ok << ',' << r.steps << ',' << r.outputs << ',' << r.cpu << ','
          << r.wall << ',' << r.perStep() << ',' << r.perStepBody() << ',' << r.perStepNet() << ','
          << r.select << ',' << r.multipliers << ',' << r.peak_kib << ',' << r.base_kib << ','
          << r.bytesPerBody() << ',' << r.c_left_out << ',' << r.c_kept << ',' << r.force_residual
          << ',' << r.sparse_vs_dense << '\n'
          << std::flush;
  };
  auto table = [&](const char* title) {
    std::cout << "\n## " << title << "\n\n"
              << bench::markdownHeader(columns, "ll" + std::string(columns.size() - 2, 'r'));
  };

  // 1. Merged lattices, smallest first.
  if (!o.lattices.empty()) table("Merged four-bar lattices (levels x cells)");
  for (const std::string& shape : o.lattices) {
    bench::resetPeakResident();
    const long base = bench::statusKiB("VmRSS");
    const Case c = latticeCase(shape, o.lean);
    record(integrate(c, "generalized-alpha", o.t_end, o, base));
    if (c.cells <= o.ida_max_cells) record(integrate(c, "IDA index 2", o.t_end, o, base));
  }
  // 2. The chain with a doubled support.
  if (!o.chain_links.empty()) table("Catenary chain with its support at B doubled (links)");
  for (int links : o.chain_links) {
    bench::resetPeakResident();
    const long base = bench::statusKiB("VmRSS");
    const double c0 = bench::cpuSeconds();
    const Case c = chainCase(links);
    std::cerr << "chain " << links << ": model and statics " << fixed(bench::cpuSeconds() - c0, 1)
              << " s CPU\n";
    record(integrate(c, "generalized-alpha", o.chain_t_end, o, base));
  }

  std::cout << "\nAll runs reached t_end: " << (all_ok ? "yes" : "no") << "\n";
  return all_ok ? 0 : 1;
}
