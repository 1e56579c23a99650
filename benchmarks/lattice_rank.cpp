/// @file lattice_rank.cpp
/// Benchmark: rank and redundancy detection of C_q for four-bar lattices L x K (issue 5) by
///   - the block-wise QRCP (mobility/blockwise_rank.hpp) with 1 and 2 OpenMP threads,
///   - a global SuiteSparseQR of C_q^T and of C_q (solvers/sparse_qr.hpp, same threshold),
///   - for small sizes the dense Eigen QRCP (mobility/constraint_rank.hpp),
/// from about 10^2 to about 10^6 constraint rows. Every rank is checked against the closed form
/// of docs/lattice-mobility.md; a wrong rank is a FAIL in the table and the exit status is 1.
///
/// What is measured, per case (kind, L, K, pose):
///   1. The lattice (buildFourBarLattice), its AssemblyPlan and C_q at the initial configuration
///      are built once (times reported, not part of any method's time). The threshold is
///      kDefaultRankTolerance * max_i |C_q(i, :)| for every method.
///   2. Block-wise: the lattice's tree (blockTreeForFourBarLattice, --block-unmerged or
///      --block-merged cells per block, the defaults of `catena mobility`) plus
///      analyzeBlockwiseRank; omp_set_num_threads(T) for each T of --threads. Runs are repeated
///      until --min-time seconds have passed (at least --min-runs, at most 50); best and median
///      of the total (tree + analysis), and the split of the best run: setup, blocks (phase 1),
///      interface (phase 2). The rank and the redundant rows of every T must be equal.
///   3. SuiteSparseQR: sparseQrRank(C_q^T, threshold) (the orientation of the QRCP paper) and
///      sparseQrRank(C_q, threshold) (SPQR_ORDERING_DEFAULT both), --spqr-runs runs, best. Each
///      is skipped ("> budget") when the time extrapolated from the previous sizes of the same
///      kind, pose and orientation (power law fitted to the last two, exponent at least 1)
///      exceeds --spqr-budget seconds, or its extrapolated memory --spqr-memory-budget MB (the
///      machine is shared: CHOLMOD's peak for the merged lattice's C_q^T grows like m^2). SPQR's
///      dense fronts go to the BLAS (the Debian alternative in use, reported), with its default
///      threads.
///   4. Dense: analyzeConstraintRank(MatX(C_q)) when n <= --dense-max-n; one run (plus more
///      up to --min-time).
///   Memory: the method's own count (BlockwiseRank::peak_bytes: bases and workspaces;
///   SparseQrRank::peak_bytes: CHOLMOD's peak) and the process's peak resident set during the
///   method above the resident set before it (malloc_trim, then VmHWM after resetting it
///   through /proc/self/clear_refs; "n/a" where the kernel does not allow the reset). Repeated
///   runs reuse pages, so the RSS figure is that of the first run, the others add nothing.
///
/// Output: machine and build on stdout, then a markdown table (one line per case); CSV (--csv)
/// with one line per (case, method, threads); progress on stderr.
///
/// Sample runs:
///   bench_lattice_rank                                       # the default study (~4 min)
///   bench_lattice_rank --cases u:10x10,m:10x10:s --threads 1,2 --csv out.csv
///   bench_lattice_rank --cases u:408x408 --threads 1,2 --spqr-budget 0   # block-wise only
///
/// Case syntax: KIND:LxK[:POSE], KIND u (unmerged couplers) or m (merged), POSE g (generic,
/// every crank at 1.1 rad; the default), s (levels 0, 3, 6, ... horizontal: a singular
/// configuration with s K (unmerged) or s (merged) more redundant rows) or h (all horizontal).
#include <dlfcn.h>
#include <malloc.h>
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "assembly/assemble.hpp"
#include "mobility/blockwise_rank.hpp"
#include "mobility/constraint_rank.hpp"
#include "model/generators.hpp"
#include "model/state.hpp"
#include "solvers/sparse_qr.hpp"
#include "support/options.hpp"
#include "support/stamp.hpp"
#include "support/timing.hpp"

using namespace catena;
using namespace catena::bench;

namespace {

double since(Clock::time_point t0) {
  return secondsSince(t0);
}

struct Case {
  bool merged = false;
  int L = 1, K = 1;
  char pose = 'g';
  std::string label() const {
    return std::string(merged ? "m" : "u") + ":" + std::to_string(L) + "x" + std::to_string(K) +
           ":" + pose;
  }
};

struct Options {
  std::vector<Case> cases;
  std::vector<int> threads = {1, 2};
  int block_unmerged = 2, block_merged = 8;
  double parallel_work = BlockwiseRankOptions{}.parallel_work;  ///< see BlockwiseRankOptions
  double min_time = 1.0;               ///< s of repeated runs per (case, method, threads)
  int min_runs = 2;                    ///< block-wise runs at least
  int spqr_runs = 1;                   ///< SuiteSparseQR runs (best)
  double spqr_budget = 120.0;          ///< s: skip SuiteSparseQR when extrapolated above
  double spqr_memory_budget = 3000.0;  ///< MB of CHOLMOD's peak: skip when extrapolated above
  std::vector<bool> spqr_orientations = {true, false};  ///< factor C_q^T (true), C_q (false)
  Index dense_max_n = 3300;                             ///< dense QRCP up to this many coordinates
  std::string csv;
};

/// The default study: square lattices of both kinds from ~1e2 to ~1e6 rows (generic), plus
/// the singular pose (every third level horizontal) at a few sizes.
std::vector<Case> defaultCases() {
  std::vector<Case> c;
  for (int L : {4, 7, 13, 23, 41, 72, 129, 229, 408}) c.push_back({false, L, L, 'g'});
  for (int L : {5, 9, 16, 28, 50, 89, 158, 281, 500}) c.push_back({true, L, L, 'g'});
  for (int L : {13, 129, 408}) c.push_back({false, L, L, 's'});
  for (int L : {16, 158, 500}) c.push_back({true, L, L, 's'});
  return c;
}

constexpr const char* kUsage = R"(usage: bench_lattice_rank [options]
  --cases C1,C2,...      KIND:LxK[:POSE], KIND u|m, POSE g|s|h   default: the study
  --threads T1,T2,...    OpenMP threads of the block-wise runs   default 1,2
  --block-unmerged C     cells per block side, unmerged          default 2
  --block-merged C       cranks per block, merged                default 8
  --parallel-work W      BlockwiseRankOptions::parallel_work      default 1.6e7
  --min-time S           seconds of repeated runs per method     default 1
  --min-runs R           block-wise runs at least                default 2
  --spqr-runs R          SuiteSparseQR runs (best)               default 1
  --spqr-budget S        skip SuiteSparseQR above S (predicted)  default 120
  --spqr-memory-budget M skip SuiteSparseQR above M MB (pred.)  default 3000
  --spqr-of At,A         SuiteSparseQR of C_q^T and/or of C_q     default At,A
  --dense-max-n N        dense QRCP up to N coordinates          default 3300
  --csv PATH             write one line per (case, method, threads)
  --help
)";

Case parseCase(const std::string& s) {
  Case c;
  std::istringstream in(s);
  std::string kind, size, pose;
  std::getline(in, kind, ':');
  std::getline(in, size, ':');
  std::getline(in, pose, ':');
  const auto x = size.find('x');
  if ((kind != "u" && kind != "m") || x == std::string::npos ||
      (!pose.empty() && pose != "g" && pose != "s" && pose != "h"))
    throw std::runtime_error("bad case '" + s + "' (KIND:LxK[:POSE], KIND u|m, POSE g|s|h)");
  c.merged = kind == "m";
  c.L = std::stoi(size.substr(0, x));
  c.K = std::stoi(size.substr(x + 1));
  c.pose = pose.empty() ? 'g' : pose[0];
  if (c.L < 1 || c.K < 1) throw std::runtime_error("bad case '" + s + "': L, K >= 1");
  return c;
}

Options parseOptions(int argc, char** argv) {
  Options o;
  bool cases_given = false;
  OptionReader r(argc, argv, kUsage);
  while (r.next()) {
    if (r.read({option("--threads", o.threads), option("--block-unmerged", o.block_unmerged),
                option("--block-merged", o.block_merged),
                option("--parallel-work", o.parallel_work), option("--min-time", o.min_time),
                option("--min-runs", o.min_runs), option("--spqr-runs", o.spqr_runs),
                option("--spqr-budget", o.spqr_budget),
                option("--spqr-memory-budget", o.spqr_memory_budget),
                option("--dense-max-n", o.dense_max_n), option("--csv", o.csv)}))
      continue;
    if (r.is("--cases")) {
      o.cases.clear();
      for (const std::string& item : r.stringList()) o.cases.push_back(parseCase(item));
      cases_given = true;
    } else if (r.is("--spqr-of")) {
      o.spqr_orientations.clear();
      for (const std::string& v : r.stringList()) {
        if (v != "At" && v != "A") r.fail("--spqr-of takes At and A, not " + v);
        o.spqr_orientations.push_back(v == "At");
      }
    } else {
      r.other();
    }
  }
  if (!cases_given) o.cases = defaultCases();
  if (o.threads.empty() || o.min_runs < 1 || o.spqr_runs < 1)
    r.fail("invalid options: threads, min-runs >= 1, spqr-runs >= 1");
  return o;
}

/// Closed forms of docs/lattice-mobility.md, s levels horizontal.
struct Counts {
  Index n, m, rank;
};
Counts closedForm(const Case& c, int s) {
  const Index L = c.L, K = c.K;
  if (c.merged) return {3 * L * (K + 2), 4 * L * (K + 1), L * (3 * K + 5) - s};
  return {3 * L * (2 * K + 1), 2 * L * (3 * K + 1), 2 * L * (3 * K + 1) - s * K};
}

FourBarLatticeOptions latticeOptions(const Case& c, int& horizontal) {
  FourBarLatticeOptions o;
  o.levels = c.L;
  o.cells = c.K;
  o.merged_couplers = c.merged;
  o.crank_angle = c.pose == 'h' ? 0.0 : 1.1;
  horizontal = c.pose == 'h' ? c.L : 0;
  if (c.pose == 's')
    for (int l = 0; l < c.L; ++l) {
      o.level_angles.push_back(l % 3 == 0 ? 0.0 : (l % 3 == 1 ? 1.1 : 2.0));
      horizontal += l % 3 == 0;
    }
  return o;
}

// ---- Memory ------------------------------------------------------------------------------------

/// Peak resident set of one method: MB above the resident set before it (or -1).
struct RssProbe {
  bool ok = false;
  long base_kb = 0;
  void start() {
    malloc_trim(0);  // return the freed heap of earlier runs: the base is what is in use
    ok = resetPeakResident();
    base_kb = statusKiB("VmRSS");
  }
  double extraMb() const {
    if (!ok) return -1.0;
    const long hwm = statusKiB("VmHWM");
    return hwm < 0 || base_kb < 0 ? -1.0 : std::max(0L, hwm - base_kb) / 1024.0;
  }
};

// ---- BLAS threads (SuiteSparseQR's fronts) -----------------------------------------------------

using SetThreads = void (*)(int);
using GetThreads = int (*)();

std::string blasDescription() {
  Dl_info info{};
  void* f = dlsym(RTLD_DEFAULT, "dgemm_");
  std::string lib = f && dladdr(f, &info) && info.dli_fname ? info.dli_fname : "unknown";
  auto get = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  if (get) lib += " (OpenBLAS, " + std::to_string(get()) + " threads by default)";
  return lib;
}

/// Sets the BLAS threads when the BLAS is OpenBLAS; returns the count in effect (0: unknown).
int setBlasThreads(int t) {
  auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  auto get = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  if (set) set(t);
  return get ? get() : 0;
}

// ---- Results -----------------------------------------------------------------------------------

struct Run {
  std::string method;  ///< blockwise, spqr, dense
  int threads = 1;
  std::string status;  ///< ok, FAIL, skipped
  std::string note;
  Index rank = -1;
  int runs = 0;
  double best = 0.0, med = 0.0;
  double tree = 0.0, setup = 0.0, blocks = 0.0, interface = 0.0;  ///< block-wise, best run
  double own_mb = -1.0, rss_mb = -1.0;
  Index block_count = 0, merge_steps = 0, largest_step_cols = 0;
};

struct CaseResult {
  Case c;
  int horizontal = 0;
  Counts cf{};
  Index nnz = 0;
  double build_s = 0.0, assemble_s = 0.0;
  std::vector<Run> runs;
};

std::string fmtSeconds(double s) {
  std::ostringstream os;
  if (s >= 100)
    os << std::fixed << std::setprecision(0) << s;
  else if (s >= 10)
    os << std::fixed << std::setprecision(1) << s;
  else if (s >= 0.1)
    os << std::fixed << std::setprecision(2) << s;
  else
    os << std::setprecision(2) << s;
  return os.str();
}

std::string fmtMb(double mb) {
  if (mb < 0) return "n/a";
  std::ostringstream os;
  os << std::fixed << std::setprecision(mb >= 100 ? 0 : 1) << mb;
  return os.str();
}

/// Repeats f() (which returns its own seconds) until min_time has passed: at least min_runs,
/// at most 50 runs. Returns the times.
template <class F>
std::vector<double> repeat(double min_time, int min_runs, F&& f) {
  std::vector<double> t;
  double total = 0.0;
  while (static_cast<int>(t.size()) < min_runs || (total < min_time && t.size() < 50)) {
    t.push_back(f());
    total += t.back();
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    o = parseOptions(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }

  // ---- 1. Machine and build ----------------------------------------------------------------
  const int default_threads = omp_get_max_threads();
  const std::string blas = blasDescription();
  std::cout << "# Rank of C_q for four-bar lattices: block-wise QRCP, SuiteSparseQR, dense QRCP\n\n"
            << "- command: `" << commandLine(argc, argv) << "`\n"
            << "- date: " << localDate() << "\n"
            << "- CPU: " << cpuModel() << "; logical CPUs: " << omp_get_num_procs() << "\n"
            << "- compiler: GCC " << __VERSION__ << "; build type: " << buildType()
#ifdef NDEBUG
            << " (NDEBUG)"
#endif
            << "; OpenMP " << _OPENMP << "; Eigen " << EIGEN_WORLD_VERSION << "."
            << EIGEN_MAJOR_VERSION << "." << EIGEN_MINOR_VERSION << "\n"
            << "- BLAS (SuiteSparseQR's fronts): " << blas << "\n"
            << "- rank threshold: " << kDefaultRankTolerance
            << " x the largest row norm of C_q, on every |R_ii|, for every method\n"
            << "- block-wise trees: unmerged blocks of " << o.block_unmerged << " x "
            << o.block_unmerged << " cells, merged blocks of " << o.block_merged
            << " cranks (+ the coupler); parallel_work " << o.parallel_work
            << "; time = tree + analysis, best of >= " << o.min_runs
            << " runs and >= " << o.min_time << " s\n"
            << "- SuiteSparseQR: QR of C_q^T ('A^T', the QRCP paper's orientation) and of C_q "
               "('A'), SPQR_ORDERING_DEFAULT, best of "
            << o.spqr_runs
            << " run(s), skipped when the time or memory extrapolated from the previous sizes "
               "exceeds "
            << o.spqr_budget << " s or " << o.spqr_memory_budget
            << " MB; dense Eigen QRCP for n <= " << o.dense_max_n << "\n"
            << "- memory: 'own' = the method's count (block-wise: bases and workspaces; SPQR: "
               "CHOLMOD's peak); 'RSS' = peak resident set during the method above the resident "
               "set before it (the model and C_q not included)\n\n";
  std::cout.flush();

  // ---- 2. Cases ----------------------------------------------------------------------------
  std::vector<CaseResult> results;
  bool all_ok = true;
  for (const Case& c : o.cases) {
    CaseResult res;
    res.c = c;
    std::cerr << "case " << c.label() << ": building\n";
    Clock::time_point t0 = Clock::now();
    const FourBarLatticeOptions lo = latticeOptions(c, res.horizontal);
    const Model model = buildFourBarLattice(lo);
    const AssemblyPlan plan = buildAssemblyPlan(model);
    res.build_s = since(t0);
    t0 = Clock::now();
    const State state = initialState(model);
    SparseMatrixCSR A = makeConstraintMatrix(plan);
    assembleConstraints(model, plan, state.q, state.t, nullptr, &A);
    res.assemble_s = since(t0);
    res.cf = closedForm(c, res.horizontal);
    res.nnz = A.nonZeros();
    if (model.nv != res.cf.n || model.nc != res.cf.m) {
      std::cerr << "case " << c.label() << ": the model has n = " << model.nv
                << ", m = " << model.nc << ", the closed form n = " << res.cf.n
                << ", m = " << res.cf.m << "\n";
      all_ok = false;
    }
    double largest = 0.0;
    for (Index i = 0; i < A.rows(); ++i) largest = std::max(largest, A.row(i).norm());
    const double threshold = kDefaultRankTolerance * largest;
    auto verdict = [&](Run& r) {
      r.status = r.rank == res.cf.rank ? "ok" : "FAIL";
      if (r.status != "ok") {
        all_ok = false;
        std::cerr << "case " << c.label() << ": " << r.method << " (" << r.threads
                  << " threads) rank " << r.rank << ", closed form " << res.cf.rank << "\n";
      }
    };

    // Block-wise, each thread count.
    std::vector<Index> first_redundant;
    for (std::size_t ti = 0; ti < o.threads.size(); ++ti) {
      const int T = o.threads[ti];
      omp_set_num_threads(T);
      Run r;
      r.method = "blockwise";
      r.threads = T;
      BlockwiseRank best;
      double best_t = std::numeric_limits<double>::infinity(), best_tree = 0.0;
      RssProbe rss;
      rss.start();
      const std::vector<double> times = repeat(o.min_time, o.min_runs, [&]() {
        const Clock::time_point s = Clock::now();
        const BlockTree tree =
            blockTreeForFourBarLattice(lo, c.merged ? o.block_merged : o.block_unmerged);
        const double tree_s = since(s);
        BlockwiseRankOptions bo;
        bo.parallel_work = o.parallel_work;
        BlockwiseRank br = analyzeBlockwiseRank(model, A, tree, bo);
        const double total = since(s);
        if (total < best_t) {
          best_t = total;
          best_tree = tree_s;
          best = std::move(br);
        }
        return total;
      });
      r.rss_mb = rss.extraMb();
      r.runs = static_cast<int>(times.size());
      r.best = *std::min_element(times.begin(), times.end());
      r.med = median(times);
      r.rank = best.rank;
      r.tree = best_tree;
      r.setup = best.setup_seconds;
      r.blocks = best.block_seconds;
      r.interface = best.interface_seconds;
      r.own_mb = best.peak_bytes / 1048576.0;
      r.block_count = best.blocks;
      r.merge_steps = best.merge_steps;
      r.largest_step_cols = best.largest_step_cols;
      verdict(r);
      if (ti == 0) {
        first_redundant = best.redundant_rows;
      } else if (best.redundant_rows != first_redundant) {
        r.status = "FAIL";
        r.note = "redundant rows differ from " + std::to_string(o.threads[0]) + " thread(s)";
        all_ok = false;
        std::cerr << "case " << c.label() << ": " << r.note << "\n";
      }
      std::cerr << "case " << c.label() << ": block-wise, " << T << " thread(s): " << r.best
                << " s, rank " << r.rank << " (" << r.status << ")\n";
      res.runs.push_back(r);
    }
    omp_set_num_threads(default_threads);

    // SuiteSparseQR of C_q^T and of C_q: skipped when the time extrapolated from the previous
    // sizes of the same kind, pose and orientation exceeds the budget.
    for (const bool transpose : o.spqr_orientations) {
      Run r;
      r.method = transpose ? "spqr_At" : "spqr_A";
      r.threads = setBlasThreads(default_threads);
      // (m, seconds, MB) of the earlier sizes; a power law through the last two, exponent >= 1.
      std::vector<std::tuple<double, double, double>> prev;
      for (const CaseResult& p : results)
        if (p.c.merged == c.merged && p.c.pose == c.pose && p.cf.m < res.cf.m)
          for (const Run& q : p.runs)
            if (q.method == r.method && q.status != "skipped")
              prev.emplace_back(p.cf.m, q.best, q.own_mb);
      std::sort(prev.begin(), prev.end());
      auto extrapolate = [&](auto get) {
        if (prev.empty()) return 0.0;
        const double m2 = std::get<0>(prev.back()), y2 = get(prev.back());
        double p = 1.0;
        if (prev.size() >= 2) {
          const double m1 = std::get<0>(prev[prev.size() - 2]), y1 = get(prev[prev.size() - 2]);
          if (y1 > 0.0 && y2 > y1) p = std::max(1.0, std::log(y2 / y1) / std::log(m2 / m1));
        }
        return y2 * std::pow(res.cf.m / m2, p);
      };
      // Times below 10 ms say little about the growth: the exponent then comes out as 1.
      const double predicted =
          extrapolate([](const auto& e) { return std::get<1>(e) < 0.01 ? 0.01 : std::get<1>(e); });
      const double predicted_mb = extrapolate([](const auto& e) { return std::get<2>(e); });
      if (o.spqr_budget <= 0.0 || predicted > o.spqr_budget ||
          predicted_mb > o.spqr_memory_budget) {
        r.status = "skipped";
        std::ostringstream os;
        if (predicted_mb > o.spqr_memory_budget)
          os << "predicted " << fmtMb(predicted_mb) << " MB > budget " << o.spqr_memory_budget
             << " MB";
        else
          os << "predicted " << fmtSeconds(predicted) << " s > budget " << o.spqr_budget << " s";
        r.note = os.str();
        std::cerr << "case " << c.label() << ": " << r.method << " " << r.note << "\n";
      } else {
        std::vector<double> times;
        RssProbe rss;
        rss.start();
        SparseQrRank q;
        for (int i = 0; i < o.spqr_runs; ++i) {
          const Clock::time_point s = Clock::now();
          q = sparseQrRank(A, threshold, transpose);
          times.push_back(since(s));
        }
        r.rss_mb = rss.extraMb();
        r.runs = o.spqr_runs;
        r.best = *std::min_element(times.begin(), times.end());
        r.med = median(times);
        r.rank = q.rank;
        r.own_mb = q.peak_bytes / 1048576.0;
        verdict(r);
        std::cerr << "case " << c.label() << ": " << r.method << ": " << r.best << " s, rank "
                  << r.rank << " (" << r.status << ")\n";
      }
      res.runs.push_back(r);
    }

    // Dense QRCP for the small ones.
    if (res.cf.n <= o.dense_max_n) {
      Run r;
      r.method = "dense";
      r.threads = default_threads;
      const MatX D(A);
      ConstraintRank cr;
      RssProbe rss;
      rss.start();
      const std::vector<double> times = repeat(o.min_time, 1, [&]() {
        const Clock::time_point s = Clock::now();
        cr = analyzeConstraintRank(D);
        return since(s);
      });
      r.rss_mb = rss.extraMb();
      r.runs = static_cast<int>(times.size());
      r.best = *std::min_element(times.begin(), times.end());
      r.med = median(times);
      r.rank = cr.rank;
      verdict(r);
      std::cerr << "case " << c.label() << ": dense QRCP: " << r.best << " s, rank " << r.rank
                << " (" << r.status << ")\n";
      res.runs.push_back(r);
    }
    results.push_back(std::move(res));
  }
  setBlasThreads(default_threads);

  // ---- 3. Report ---------------------------------------------------------------------------
  auto find = [](const CaseResult& res, const std::string& method, int threads) -> const Run* {
    for (const Run& r : res.runs)
      if (r.method == method && (threads < 0 || r.threads == threads)) return &r;
    return nullptr;
  };
  std::cout << "| lattice | pose | n | m | rank (closed form) | redundant |";
  for (int T : o.threads) std::cout << " block-wise " << T << "T s |";
  std::cout
      << " split " << o.threads.back()
      << "T: tree/setup/blocks/interface s | block-wise MB own / RSS | SPQR A^T s | SPQR A^T MB "
         "own / RSS | SPQR A s | SPQR A MB own / RSS | dense s | ranks |\n"
         "|---|---|---:|---:|---:|---:|";
  for (std::size_t i = 0; i < o.threads.size(); ++i) std::cout << "---:|";
  std::cout << "---|---|---:|---|---:|---|---:|---|\n";
  for (const CaseResult& res : results) {
    const Case& c = res.c;
    std::cout << "| " << (c.merged ? "merged " : "unmerged ") << c.L << " x " << c.K << " | "
              << (c.pose == 'g'   ? "generic"
                  : c.pose == 'h' ? "all horizontal"
                                  : "s = ")
              << (c.pose == 's' ? std::to_string(res.horizontal) + " horizontal" : "") << " | "
              << res.cf.n << " | " << res.cf.m << " | " << res.cf.rank << " | "
              << res.cf.m - res.cf.rank << " |";
    for (int T : o.threads) {
      const Run* r = find(res, "blockwise", T);
      std::cout << " " << (r ? fmtSeconds(r->best) : "-") << " |";
    }
    const Run* last = find(res, "blockwise", o.threads.back());
    std::cout << " " << fmtSeconds(last->tree) << " / " << fmtSeconds(last->setup) << " / "
              << fmtSeconds(last->blocks) << " / " << fmtSeconds(last->interface) << " | "
              << fmtMb(last->own_mb) << " / " << fmtMb(last->rss_mb) << " |";
    for (const char* method : {"spqr_At", "spqr_A"}) {
      const Run* sp = find(res, method, -1);
      if (!sp)
        std::cout << " - | - |";
      else if (sp->status == "skipped")
        std::cout << " skipped (" << sp->note << ") | - |";
      else
        std::cout << " " << fmtSeconds(sp->best) << " | " << fmtMb(sp->own_mb) << " / "
                  << fmtMb(sp->rss_mb) << " |";
    }
    const Run* de = find(res, "dense", -1);
    std::cout << " " << (de ? fmtSeconds(de->best) : "-") << " |";
    std::string ranks;
    bool ok = true;
    for (const Run& r : res.runs)
      if (r.status == "FAIL") {
        ok = false;
        ranks += " FAIL: " + r.method + " " + std::to_string(r.threads) + "T rank " +
                 std::to_string(r.rank) + (r.note.empty() ? "" : " (" + r.note + ")") + ";";
      }
    if (ok) {
      int checked = 0;
      for (const Run& r : res.runs) checked += r.status == "ok";
      ranks = " all " + std::to_string(checked) + " = closed form";
    }
    std::cout << ranks << " |\n";
  }
  std::cout << "\nRanks: "
            << (all_ok ? "every computed rank equals the closed form"
                       : "SOME RANKS DIFFER FROM THE CLOSED FORM (FAIL above)")
            << ".\n";

  if (!o.csv.empty()) {
    std::ofstream csv(o.csv);
    csv << "kind,L,K,pose,horizontal_levels,n,m,nnz,rank_closed_form,method,threads,status,rank,"
           "runs,seconds_best,seconds_median,tree_s,setup_s,blocks_s,interface_s,own_mb,rss_mb,"
           "blocks,merge_steps,largest_step_cols,build_s,assemble_s,note\n";
    for (const CaseResult& res : results)
      for (const Run& r : res.runs)
        csv << (res.c.merged ? "merged" : "unmerged") << "," << res.c.L << "," << res.c.K << ","
            << res.c.pose << "," << res.horizontal << "," << res.cf.n << "," << res.cf.m << ","
            << res.nnz << "," << res.cf.rank << "," << r.method << "," << r.threads << ","
            << r.status << "," << r.rank << "," << r.runs << "," << r.best << "," << r.med << ","
            << r.tree << "," << r.setup << "," << r.blocks << "," << r.interface << "," << r.own_mb
            << "," << r.rss_mb << "," << r.block_count << "," << r.merge_steps << ","
            << r.largest_step_cols << "," << res.build_s << "," << res.assemble_s << ",\"" << r.note
            << "\"\n";
  }
  return all_ok ? 0 : 1;
}
