/// @file chain_statics_modal.cpp
/// Benchmark: static equilibrium plus the lowest modes of the catenary chain of N slender rigid
/// links (buildCatenaryChain: A(0,0,0), sag point C(5,0,-6), B(10,0,0), 1 kg/m, gravity 9.81
/// m/s^2 along -z), end to end as `catena modal` runs them, for N = 1e2..1e5: wall time, Newton
/// iterations, time in factorizations and solves, peak memory, and check values that a wrong
/// answer cannot pass.
///
/// What is measured, per N (--sizes), in this order:
///   1. buildCatenaryChain + buildAssemblyPlan (wall time: "build").
///   2. --repetitions times: solveStatics from the generator's 'V' (initialState; Newton with K_c,
///      SaddlePointSolver, PETSc options prefix statics_), then solveModal at the equilibrium
///      (--modes modes nearest 0 Hz, SLEPc Krylov-Schur + shift-and-invert, prefix modal_). Wall
///      time of each call (steady_clock); from the results: Newton iterations, the time in the
///      saddle-point factorizations and solves (StaticsResult::factor_seconds, ...), the modal
///      assembly, set-up (factorization of the shifted pencil) and iteration times
///      (ModalResult::assembly_seconds, ...). Reported: best and median wall time; the
///      components are medians over the repetitions.
///   3. Peak resident memory (VmHWM of /proc/self/status) of each phase: the peak is reset
///      (/proc/self/clear_refs, "5") before the build, before each statics and each modal call,
///      so each figure is the largest resident size of the whole process during that phase
///      (what came before and is still allocated, e.g. the model, is included).
///   4. Checks, on the last repetition (exit status 1 if one fails, and the table says so):
///      - statics and modal converged (their messages are printed otherwise);
///      - mid-span sag (depth of link_{N/2}/start) and horizontal reaction H (x-force of end_a
///        on link_0) against the exact equilibrium of the discrete chain: a uniform rigid link is
///        parallel to the force it transmits at its mid-point, so tan(theta_k) = c (k + 1/2 -
///        N/2) with c = w l / H (w = 9.81 N/m, l = L / N, L = 2 sqrt(61) m), c from
///        sum_k l cos(theta_k) = 10 m (bisection); relative error <= 1e-6 for both;
///      - first frequency within 1 % of 0.2434 Hz (the out-of-plane swing; independent thin-rod
///        model in inputs/catenary_chain.yaml: 0.2435 Hz at N = 20, 0.2434 Hz at N = 40) and
///        every mode's relative residual <= 1e-8.
///
/// Output: machine and configuration lines and a markdown table on stdout, progress on stderr
/// (only on a terminal), CSV (--csv; --append adds rows to an existing file, so a script can run
/// every N in its own process and get a per-size peak memory).
///
/// Sample runs:
///   bench_chain_statics_modal                                      # N = 1e2, 1e3, 1e4, 1e5
///   bench_chain_statics_modal --sizes 1000,10000 --repetitions 5 --csv out.csv
///   bench_chain_statics_modal --sizes 10000 --label mumps-amd
///       -statics_pc_factor_mat_solver_type mumps -modal_st_pc_factor_mat_solver_type mumps
///       -statics_mat_mumps_icntl_7 0 -modal_st_mat_mumps_icntl_7 0   # PETSc options pass through
///   benchmarks/run.sh chain_statics_modal                          # the study, results/ files
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "modal/modal.hpp"
#include "model/generators.hpp"
#include "parallel/petsc_session.hpp"
#include "report/run_report.hpp"
#include "statics/statics.hpp"
#include "support/markdown_table.hpp"
#include "support/options.hpp"
#include "support/references.hpp"
#include "support/stamp.hpp"
#include "support/timing.hpp"

using namespace catena;
using namespace catena::bench;

namespace {

constexpr double kGravity = 9.81;           // m/s^2, buildCatenaryChain's
constexpr double kSpan = 10.0;              // m, |AB|
constexpr double kFirstFrequency = 0.2434;  // Hz, see the header
constexpr double kCheckTolerance = 1e-6;    // relative, sag and H
constexpr double kFrequencyTolerance = 0.01;
constexpr double kResidualTolerance = 1e-8;

struct Options {
  std::vector<int> sizes = {100, 1000, 10000, 100000};
  int modes = 10;
  int repetitions = 3;
  int max_iterations = StaticsOptions{}.max_iterations;
  std::string csv, label = "default";
  bool append = false;
  PetscArgs petsc;  ///< program name plus every argument that is not ours
};

/// The usage text; the Newton limit's default is the library's.
std::string usageText() {
  return R"(usage: bench_chain_statics_modal [options] [PETSc/SLEPc options]
  --sizes N1,N2,...    chain links (even, >= 2)          default 100,1000,10000,100000
  --modes K            modes per size                    default 10
  --repetitions R      statics + modal runs per size     default 3
  --max-iterations I   Newton iteration limit            default )" +
         std::to_string(StaticsOptions{}.max_iterations) + R"(
  --label TEXT         configuration name for the table and the CSV  default 'default'
  --csv PATH           write one row per size as CSV
  --append             add the rows to PATH (header only if PATH is new or empty)
  --help
PETSc/SLEPc options: -statics_* (Newton's linear solver), -modal_* (eigensolver), e.g.
  -statics_pc_factor_mat_solver_type mumps -modal_st_pc_factor_mat_solver_type mumps
  -statics_mat_mumps_icntl_7 0 -modal_st_mat_mumps_icntl_7 0 (MUMPS, ordering AMD).
)";
}

Options parseOptions(int argc, char** argv) {
  Options o;
  OptionReader r(argc, argv, usageText(), OptionReader::kPetscOptions);
  r.readAll({option("--sizes", o.sizes), option("--modes", o.modes),
             option("--repetitions", o.repetitions), option("--max-iterations", o.max_iterations),
             option("--label", o.label), option("--csv", o.csv), flag("--append", o.append)});
  o.petsc = r.petsc();
  bool ok = !o.sizes.empty() && o.modes >= 1 && o.repetitions >= 1 && o.max_iterations >= 1 &&
            o.label.find_first_of(",\"\n") == std::string::npos;
  for (int n : o.sizes) ok = ok && n >= 2 && n % 2 == 0;
  if (!ok)
    r.fail(
        "invalid options: sizes even and >= 2, modes, repetitions and max-iterations >= 1, no "
        "comma or quote in the label");
  return o;
}

/// Peak resident set (VmHWM) in MiB; -1 if unavailable.
double peakMiB() {
  const long kib = statusKiB("VmHWM");
  return kib < 0 ? -1.0 : static_cast<double>(kib) / 1024.0;
}

/// The BLAS and LAPACK files this process has mapped (after the alternatives' symlinks), e.g.
/// "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3": the BLAS that is really used.
std::string loadedBlas() {
  std::ifstream in("/proc/self/maps");
  std::string line;
  std::set<std::string> files;
  while (std::getline(in, line)) {
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    const std::string name = std::filesystem::path(path).filename().string();
    if (name.find("blas") != std::string::npos || name.find("lapack") != std::string::npos)
      if (name.find("scalapack") == std::string::npos) files.insert(path);
  }
  std::ostringstream out;
  for (const std::string& f : files) out << (f == *files.begin() ? "" : ", ") << f;
  return files.empty() ? "none found" : out.str();
}

/// Exact equilibrium of the discrete chain (see the header): mid-span sag and H.
struct Reference {
  double sag = 0.0, horizontal = 0.0;
};

Reference discreteChain(int N) {
  const DiscreteChain d = solveDiscreteChain(N, kSpan, 2.0 * std::sqrt(61.0));
  return {-d.z[N / 2], kGravity * d.h_over_w};
}

/// One size's results: medians of the components, best and median wall times.
struct Row {
  int links = 0;
  long unknowns = 0;  ///< n_v + m: size of the saddle-point system
  double build_s = 0.0;
  std::vector<double> statics_s, modal_s;
  // Medians over the repetitions.
  int newton = 0, factorizations = 0, solves = 0, eps_iterations = 0, eps_solves = 0;
  double factor_s = 0.0, solve_s = 0.0, modal_assembly_s = 0.0, modal_factor_s = 0.0,
         modal_solve_s = 0.0;
  double peak_build_mib = 0.0, peak_statics_mib = 0.0, peak_modal_mib = 0.0;
  double sag = 0.0, sag_ref = 0.0, h = 0.0, h_ref = 0.0, f1 = 0.0, worst_residual = 0.0;
  int modes = 0;
  std::string linear_solver, eigen_method;
  std::vector<std::string> failures;
  bool ok() const { return failures.empty(); }
};

double relErr(double a, double b) {
  return std::abs(a - b) / std::max(std::abs(b), 1e-300);
}

std::string fmt(double x, int digits, bool fixed_notation = true) {
  return fixed_notation ? fixed(x, digits) : sci(x, digits);
}

Row runSize(int N, const Options& o, bool progress) {
  Row row;
  row.links = N;
  resetPeakResident();
  auto t0 = Clock::now();
  CatenaryChainOptions co;
  co.links = N;
  const Model m = buildCatenaryChain(co);
  const AssemblyPlan plan = buildAssemblyPlan(m);
  row.build_s = secondsSince(t0);
  row.peak_build_mib = peakMiB();
  row.unknowns = static_cast<long>(m.nv + m.nc);
  const Reference ref = discreteChain(N);
  row.sag_ref = ref.sag;
  row.h_ref = ref.horizontal;

  StaticsOptions so;
  so.max_iterations = o.max_iterations;
  ModalOptions mo;
  mo.modes = o.modes;
  // Per repetition: Newton iterations, factorizations, solves, factor and solve seconds of the
  // statics; assembly, factor and solve seconds, iterations and solves of the modal analysis.
  std::vector<std::array<double, 5>> statics_parts, modal_parts;
  // False (and the failure recorded) if `status` is not ok.
  auto ok = [&row](const Status& status, const char* what) {
    if (!status.ok()) row.failures.push_back(std::string(what) + ": " + status.message);
    return status.ok();
  };
  for (int rep = 0; rep < o.repetitions; ++rep) {
    if (progress)
      std::cerr << "[N = " << N << "] repetition " << rep + 1 << "/" << o.repetitions
                << ": statics ... " << std::flush;
    resetPeakResident();
    t0 = Clock::now();
    const StaticsResult st = solveStatics(m, plan, initialState(m), so);
    row.statics_s.push_back(secondsSince(t0));
    row.peak_statics_mib = std::max(row.peak_statics_mib, peakMiB());
    statics_parts.push_back({static_cast<double>(st.history.size()) - 1.0,
                             static_cast<double>(st.factorizations), static_cast<double>(st.solves),
                             st.factor_seconds, st.solve_seconds});
    row.linear_solver = st.linear_solver;
    if (!ok(st.status, "statics")) break;
    if (progress) std::cerr << fmt(row.statics_s.back(), 2) << " s; modal ... " << std::flush;
    resetPeakResident();
    t0 = Clock::now();
    const ModalResult mr = solveModal(m, plan, st.state, mo);
    row.modal_s.push_back(secondsSince(t0));
    row.peak_modal_mib = std::max(row.peak_modal_mib, peakMiB());
    if (progress) std::cerr << fmt(row.modal_s.back(), 2) << " s\n";
    modal_parts.push_back({mr.assembly_seconds, mr.factor_seconds, mr.solve_seconds,
                           static_cast<double>(mr.iterations), static_cast<double>(mr.solves)});
    row.eigen_method = mr.method;
    if (!ok(mr.status, "modal")) break;
    if (rep + 1 < o.repetitions) continue;
    // 4. Checks on the last repetition.
    const EquilibriumSummary eq = summarizeEquilibrium(m, plan, st.state);
    const Index mid = m.findMarker("link_" + std::to_string(N / 2) + "/start");
    const Marker& k = m.markers[mid];
    const VecX& q = st.state.q;
    const Index qo = m.qOffset(k.body);
    const Quat rot(q(qo + 3), q(qo + 4), q(qo + 5), q(qo + 6));
    row.sag = -(q.segment<3>(qo) + rot.normalized() * k.position).z();
    for (std::size_t j = 0; j < m.joints.size(); ++j)
      if (m.joints[j].name == "end_a") row.h = -eq.reactions[j].force_world.x();
    row.modes = static_cast<int>(mr.modes.size());
    row.f1 = mr.modes.empty() ? 0.0 : mr.modes.front().frequency_hz;
    for (const Mode& md : mr.modes) row.worst_residual = std::max(row.worst_residual, md.residual);
    if (relErr(row.sag, row.sag_ref) > kCheckTolerance)
      row.failures.push_back("sag " + fmt(row.sag, 9) + " m differs from the exact discrete " +
                             fmt(row.sag_ref, 9) + " m");
    if (relErr(row.h, row.h_ref) > kCheckTolerance)
      row.failures.push_back("H " + fmt(row.h, 9) + " N differs from the exact discrete " +
                             fmt(row.h_ref, 9) + " N");
    if (relErr(row.f1, kFirstFrequency) > kFrequencyTolerance)
      row.failures.push_back("first frequency " + fmt(row.f1, 5) + " Hz is not within 1 % of " +
                             fmt(kFirstFrequency, 4) + " Hz");
    if (row.worst_residual > kResidualTolerance || row.modes < o.modes)
      row.failures.push_back(std::to_string(row.modes) + " modes, worst residual " +
                             fmt(row.worst_residual, 1, false));
  }
  // Median of part k over the repetitions.
  auto med = [](const std::vector<std::array<double, 5>>& parts, int k) {
    std::vector<double> v;
    for (const auto& p : parts) v.push_back(p[k]);
    return median(v);
  };
  row.newton = static_cast<int>(med(statics_parts, 0));
  row.factorizations = static_cast<int>(med(statics_parts, 1));
  row.solves = static_cast<int>(med(statics_parts, 2));
  row.factor_s = med(statics_parts, 3);
  row.solve_s = med(statics_parts, 4);
  row.modal_assembly_s = med(modal_parts, 0);
  row.modal_factor_s = med(modal_parts, 1);
  row.modal_solve_s = med(modal_parts, 2);
  row.eps_iterations = static_cast<int>(med(modal_parts, 3));
  row.eps_solves = static_cast<int>(med(modal_parts, 4));
  return row;
}

constexpr const char* kCsvHeader =
    "label,links,unknowns,repetitions,build_s,statics_best_s,statics_median_s,newton_iterations,"
    "factorizations,solves,factor_s,solve_s,modal_best_s,modal_median_s,modal_assembly_s,"
    "modal_factor_s,modal_solve_s,eps_iterations,eps_solves,peak_build_mib,peak_statics_mib,"
    "peak_modal_mib,sag_m,sag_ref_m,h_n,h_ref_n,f1_hz,worst_residual,modes,ok";

void writeCsv(std::ostream& os, const std::string& label, const Row& r, int reps) {
  os << std::setprecision(10) << label << ',' << r.links << ',' << r.unknowns << ',' << reps << ','
     << r.build_s << ',' << best(r.statics_s) << ',' << median(r.statics_s) << ',' << r.newton
     << ',' << r.factorizations << ',' << r.solves << ',' << r.factor_s << ',' << r.solve_s << ','
     << best(r.modal_s) << ',' << median(r.modal_s) << ',' << r.modal_assembly_s << ','
     << r.modal_factor_s << ',' << r.modal_solve_s << ',' << r.eps_iterations << ',' << r.eps_solves
     << ',' << r.peak_build_mib << ',' << r.peak_statics_mib << ',' << r.peak_modal_mib << ','
     << r.sag << ',' << r.sag_ref << ',' << r.h << ',' << r.h_ref << ',' << r.f1 << ','
     << r.worst_residual << ',' << r.modes << ',' << (r.ok() ? 1 : 0) << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parseOptions(argc, argv);
  PetscSession session(o.petsc.argc(), o.petsc.argv());
  const bool progress = isatty(STDERR_FILENO);

  // 1. What ran where.
  std::cout << "# catenary chain: statics from the 'V' plus " << o.modes << " modes\n\n"
            << "- command: `" << commandLine(argc, argv) << "`\n"
            << "- configuration: " << o.label << "; PETSc/SLEPc options: ";
  if (o.petsc.count() == 0)
    std::cout << "(none)\n";
  else
    std::cout << '`' << o.petsc.joined() << "`\n";
  std::cout << "- date: " << localDate() << "; CPU: " << cpuModel()
            << "; logical CPUs: " << sysconf(_SC_NPROCESSORS_ONLN) << "\n"
            << "- BLAS/LAPACK mapped: " << loadedBlas() << "\n"
            << "- OMP_NUM_THREADS=" << envOr("OMP_NUM_THREADS")
            << ", OPENBLAS_NUM_THREADS=" << envOr("OPENBLAS_NUM_THREADS")
            << "; build type: " << buildType() << "\n"
            << "- " << o.repetitions << " repetition(s) per size; times are wall seconds, best "
            << "and median of the statics and modal calls, components are medians\n\n";

  // 2. The sizes.
  std::vector<Row> rows;
  for (int N : o.sizes) rows.push_back(runSize(N, o, progress));

  // 3. Table, failures, CSV.
  std::cout << "| N | n_v + m | Newton its | statics best / median s | factor s (count) | "
               "solve s (count) | modal best / median s | modal asm / factor / iterate s | "
               "EPS its | peak MiB build / statics / modal | sag m (rel. err.) | H N (rel. "
               "err.) | f1 Hz | checks |\n"
            << "|---:|---:|---:|---|---|---|---|---|---:|---|---|---|---:|---|\n";
  for (const Row& r : rows) {
    const double smed = median(r.statics_s);
    const double mmed = median(r.modal_s);
    std::cout << "| " << r.links << " | " << r.unknowns << " | " << r.newton << " | "
              << fmt(best(r.statics_s), 3) << " / " << fmt(smed, 3) << " | " << fmt(r.factor_s, 3)
              << " (" << r.factorizations << ") | " << fmt(r.solve_s, 3) << " (" << r.solves
              << ") | " << fmt(best(r.modal_s), 3) << " / " << fmt(mmed, 3) << " | "
              << fmt(r.modal_assembly_s, 3) << " / " << fmt(r.modal_factor_s, 3) << " / "
              << fmt(r.modal_solve_s, 3) << " | " << r.eps_iterations << " | "
              << fmt(r.peak_build_mib, 0) << " / " << fmt(r.peak_statics_mib, 0) << " / "
              << fmt(r.peak_modal_mib, 0) << " | " << fmt(r.sag, 6) << " ("
              << fmt(relErr(r.sag, r.sag_ref), 0, false) << ") | " << fmt(r.h, 5) << " ("
              << fmt(relErr(r.h, r.h_ref), 0, false) << ") | " << fmt(r.f1, 5) << " | "
              << (r.ok() ? "pass" : "**FAIL**") << " |\n";
  }
  bool all_ok = true;
  for (const Row& r : rows) {
    if (r.ok()) continue;
    all_ok = false;
    std::cout << "\nN = " << r.links << " FAILED:\n";
    for (const std::string& f : r.failures) std::cout << "- " << f << "\n";
  }
  if (!rows.empty())
    std::cout << "\nlinear solver: " << rows.back().linear_solver
              << "; eigensolver: " << rows.back().eigen_method << "\n";

  if (!o.csv.empty()) {
    const bool header =
        !o.append || !std::filesystem::exists(o.csv) || std::filesystem::file_size(o.csv) == 0;
    std::ofstream csv(o.csv, o.append ? std::ios::app : std::ios::trunc);
    if (!csv) {
      std::cerr << "cannot write " << o.csv << "\n";
      return 1;
    }
    if (header) csv << kCsvHeader << "\n";
    for (const Row& r : rows) writeCsv(csv, o.label, r, o.repetitions);
  }
  return all_ok ? 0 : 1;
}
