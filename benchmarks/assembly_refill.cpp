/// @file assembly_refill.cpp
/// Benchmark: in-place refill of the constraint Jacobian C_q and the tangent stiffness of
/// constraints K_c (assembleConstraintJacobianAndStiffness, the hot path of Newton iterations)
/// for a spatial catenary chain of N links (N + 1 joints: N - 1 universal, 2 spherical ends),
/// against a plain memory copy of the same number of bytes measured in the same run.
///
/// What is measured, per (N, threads):
///   1. The chain, its AssemblyPlan, C_q and K_c (makeConstraintMatrix / makeBodyMatrix) are
///      built once per N; the state is the model's initial q, t = 0, and seeded uniform random
///      multipliers lambda in [-1, 1] (the chain has no rheonomic joints).
///   2. Refill: omp_set_num_threads(threads); two warm-up refills; one measurement repeats the
///      refill until >= --min-time seconds have passed (steady_clock) and divides by the count.
///   3. Bytes counted = matrix values of one refill = (nnz(C_q) + nnz(K_c)) * 8. This is what
///      the refill must store at least; indices, the state, the plan, the multipliers and the
///      reads of K_c's accumulation are NOT counted. Refill GB/s = bytes / best time (GB = 1e9 B).
///   4. Reference: std::memcpy of the same number of bytes from a source buffer into a
///      destination buffer (both allocated and first-touched beforehand by the same threads),
///      with the same thread count: one contiguous chunk per OpenMP thread. Warm-up and
///      measurements as for the refill. Copy GB/s = bytes / best time, i.e. bytes written per
///      second (a copy also reads them).
///   5. --measurements measurements of each, interleaved (refill, copy, refill, copy, ...) so
///      that both see the same conditions on a shared machine; best and median per call.
///   6. Ratio = refill GB/s / copy GB/s (best against best). The target of the issue is >= 0.5.
///   The refilled values of every thread count are hashed and compared: they must be bitwise
///   identical (the exit status is 1 otherwise).
///
/// Output: machine info and a markdown table on stdout, progress on stderr, CSV (--csv).
///
/// Sample runs:
///   bench_assembly_refill                                    # N = 1e3..1e6, threads 1,2
///   bench_assembly_refill --sizes 1000,10000 --threads 1 --min-time 0.2 --csv out.csv
///   OMP_PROC_BIND=close bench_assembly_refill --sizes 1000000 --threads 1,2 --measurements 5
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "assembly/assemble.hpp"
#include "model/generators.hpp"
#include "model/state.hpp"
#include "support/markdown_table.hpp"
#include "support/options.hpp"
#include "support/stamp.hpp"
#include "support/timing.hpp"

using namespace catena;
using namespace catena::bench;

namespace {

struct Options {
  std::vector<long> sizes = {1000, 10000, 100000, 1000000};
  std::vector<int> threads = {1, 2};
  double min_time = 0.5;  ///< s, per measurement
  int measurements = 5;   ///< timed measurements per (N, threads), best and median reported
  long reps = 0;          ///< calls per measurement; 0: as many as fit in min_time
  unsigned seed = 12345;
  std::string csv;
};

constexpr const char* kUsage = R"(usage: bench_assembly_refill [options]
  --sizes N1,N2,...     chain links (even, >= 2)        default 1000,10000,100000,1000000
  --threads T1,T2,...   OpenMP thread counts            default 1,2
  --min-time S          seconds per measurement         default 0.5
  --measurements K      measurements per case           default 5
  --reps R              calls per measurement (0: until --min-time) default 0
  --seed S              seed of the random multipliers  default 12345
  --csv PATH            write the results as CSV
  --help
)";

Options parseOptions(int argc, char** argv) {
  Options o;
  OptionReader r(argc, argv, kUsage);
  r.readAll({option("--sizes", o.sizes), option("--threads", o.threads),
             option("--min-time", o.min_time), option("--measurements", o.measurements),
             option("--reps", o.reps), option("--seed", o.seed), option("--csv", o.csv)});
  bool ok = !o.sizes.empty() && !o.threads.empty() && o.min_time > 0.0 && o.measurements >= 1 &&
            o.reps >= 0;
  for (long n : o.sizes) ok = ok && n >= 2 && n % 2 == 0 && n <= 200000000;
  for (int t : o.threads) ok = ok && t >= 1;
  if (!ok)
    r.fail(
        "invalid options: sizes must be even and >= 2, threads >= 1, min-time > 0, "
        "measurements >= 1, reps >= 0");
  return o;
}

std::string readFirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

/// "L1d 32K, L2 1024K, L3 36608K" from sysfs (empty if unavailable).
std::string cacheSizes() {
  std::string out;
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string size = readFirstLine(dir + "size");
    if (size.empty()) break;
    const std::string type = readFirstLine(dir + "type"), level = readFirstLine(dir + "level");
    if (type == "Instruction") continue;
    if (!out.empty()) out += ", ";
    out += "L" + level + (type == "Data" ? "d " : " ") + size;
  }
  return out;
}

struct Timing {
  long reps = 0;                    ///< fewest calls in one measurement
  double best = 0.0, median = 0.0;  ///< s per call
};

/// One measurement: f called o.reps times, or (o.reps = 0) until at least o.min_time seconds
/// have passed. Returns the number of calls and the seconds per call.
template <typename F>
std::pair<long, double> measure(F&& f, const Options& o) {
  const auto a = Clock::now();
  long calls = 0;
  double s = 0.0;
  do {
    f();
    ++calls;
    s = secondsSince(a);
  } while (o.reps > 0 ? calls < o.reps : s < o.min_time);
  return {calls, s / static_cast<double>(calls)};
}

/// Times f and g alike, their measurements interleaved (f, g, f, g, ...) so that both see the
/// same machine conditions on a shared machine; best and median seconds per call of each, and
/// the fewest calls in one measurement.
template <typename F, typename G>
std::pair<Timing, Timing> timeInterleaved(F&& f, G&& g, const Options& o) {
  for (int i = 0; i < 2; ++i) {  // warm-up: page tables, caches, the OpenMP thread pool
    f();
    g();
  }
  Timing tf, tg;
  tf.reps = tg.reps = std::numeric_limits<long>::max();
  std::vector<double> sf, sg;
  for (int m = 0; m < o.measurements; ++m) {
    const auto [calls_f, per_call_f] = measure(f, o);
    const auto [calls_g, per_call_g] = measure(g, o);
    tf.reps = std::min(tf.reps, calls_f);
    tg.reps = std::min(tg.reps, calls_g);
    sf.push_back(per_call_f);
    sg.push_back(per_call_g);
  }
  for (auto [t, v] : {std::pair{&tf, &sf}, std::pair{&tg, &sg}}) {
    t->best = *std::min_element(v->begin(), v->end());
    t->median = median(*v);
  }
  return {tf, tg};
}

/// Page-aligned buffer of bytes, first-touched by the current OpenMP threads in the same
/// contiguous chunks that the copy uses.
struct Buffer {
  std::unique_ptr<char, decltype(&std::free)> p{nullptr, &std::free};
  std::size_t size = 0;
};

Buffer makeBuffer(std::size_t bytes, char fill) {
  Buffer b;
  const std::size_t rounded = (bytes + 4095) / 4096 * 4096;
  b.p.reset(static_cast<char*>(std::aligned_alloc(4096, rounded)));
  if (!b.p) {
    std::cerr << "out of memory allocating " << bytes << " bytes\n";
    std::exit(1);
  }
  b.size = bytes;
  char* data = b.p.get();
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const std::size_t lo = bytes * t / nt, hi = bytes * (t + 1) / nt;
    std::memset(data + lo, fill, hi - lo);
  }
  return b;
}

/// The reference: memcpy split into one contiguous chunk per OpenMP thread.
void parallelCopy(char* dst, const char* src, std::size_t bytes) {
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    // Chunk edges on 64-byte boundaries so no cache line is shared between threads.
    const std::size_t lo = (bytes * t / nt) & ~std::size_t(63);
    const std::size_t hi = t + 1 == nt ? bytes : (bytes * (t + 1) / nt) & ~std::size_t(63);
    std::memcpy(dst + lo, src + lo, hi - lo);
  }
}

/// FNV-1a over the bytes of the values (for the bitwise comparison across thread counts).
std::uint64_t hashValues(const SparseMatrixCSR& A, std::uint64_t h) {
  const auto* p = reinterpret_cast<const unsigned char*>(A.valuePtr());
  const std::size_t n = static_cast<std::size_t>(A.nonZeros()) * sizeof(double);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

struct Row {
  long links = 0, joints = 0;
  int threads = 0;
  long nnz_cq = 0, nnz_kc = 0;
  double bytes = 0.0;
  Timing refill, copy;
  std::uint64_t hash = 0;
  double refillGBs() const { return bytes / refill.best * 1e-9; }
  double copyGBs() const { return bytes / copy.best * 1e-9; }
  double nsPerJoint(double s) const { return s * 1e9 / static_cast<double>(joints); }
};

}  // namespace

int main(int argc, char** argv) {
  const Options o = parseOptions(argc, argv);

  // ---- 1. Machine and build ----------------------------------------------------------------
  std::cout
      << "# assembly refill benchmark: C_q and K_c of a spatial catenary chain\n\n"
      << "- command: `" << commandLine(argc, argv) << "`\n"
      << "- date: " << localDate() << "\n"
      << "- CPU: " << cpuModel() << "; logical CPUs: " << omp_get_num_procs()
      << "; caches: " << cacheSizes() << "\n"
      << "- compiler: GCC " << __VERSION__ << "; build type: " << buildType() << "; flags: `"
      << cxxFlags() << "`"
#ifdef NDEBUG
      << " (NDEBUG)"
#endif
      << "; OpenMP " << _OPENMP << "; Eigen " << EIGEN_WORLD_VERSION << "." << EIGEN_MAJOR_VERSION
      << "." << EIGEN_MINOR_VERSION << "\n"
      << "- OMP_PROC_BIND=" << envOr("OMP_PROC_BIND") << ", OMP_PLACES=" << envOr("OMP_PLACES")
      << "\n"
      << "- timing: " << o.measurements << " measurements of R calls each, R chosen so one "
      << "measurement lasts >= " << o.min_time << " s; refill and copy measurements "
      << "interleaved; best and median per call\n"
      << "- bytes counted per refill: matrix values only, (nnz(C_q) + nnz(K_c)) * 8 B "
      << "(no indices, no reads); GB = 1e9 B\n"
      << "- copy: std::memcpy of the same byte count, one contiguous chunk per OpenMP "
      << "thread, buffers first-touched beforehand; best of the measurements\n"
      << "- ratio: refill GB/s / copy GB/s, both from the best measurement (target >= 0.5)\n\n";

  // ---- 2. Cases ------------------------------------------------------------------------------
  std::vector<Row> rows;
  std::map<long, bool> identical;
  std::mt19937 rng(o.seed);
  for (const long n : o.sizes) {
    const auto t0 = Clock::now();
    CatenaryChainOptions chain;
    chain.links = static_cast<int>(n);
    const Model model = buildCatenaryChain(chain);
    const AssemblyPlan plan = buildAssemblyPlan(model);
    State state = initialState(model);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    for (Index i = 0; i < model.nc; ++i) state.lambda(i) = uniform(rng);
    SparseMatrixCSR Cq = makeConstraintMatrix(plan);
    SparseMatrixCSR Kc = makeBodyMatrix(plan);
    std::cerr << "N = " << n << ": model, plan and matrices built in " << fixed(secondsSince(t0), 2)
              << " s\n";

    for (const int threads : o.threads) {
      omp_set_num_threads(threads);
      Row r;
      r.links = n;
      r.joints = static_cast<long>(model.joints.size());
      r.threads = threads;
      r.nnz_cq = Cq.nonZeros();
      r.nnz_kc = Kc.nonZeros();
      r.bytes = static_cast<double>(r.nnz_cq + r.nnz_kc) * sizeof(double);

      // The refill and the memcpy of the same bytes with the same threads, interleaved.
      const std::size_t bytes = static_cast<std::size_t>(r.bytes);
      Buffer src = makeBuffer(bytes, 1), dst = makeBuffer(bytes, 0);
      std::tie(r.refill, r.copy) = timeInterleaved(
          [&] {
            assembleConstraintJacobianAndStiffness(model, plan, state.q, state.t, state.lambda, Cq,
                                                   Kc);
          },
          [&] { parallelCopy(dst.p.get(), src.p.get(), bytes); }, o);
      if (dst.p.get()[bytes / 2] != 1) std::cerr << "copy check failed\n";
      r.hash = hashValues(Kc, hashValues(Cq, 14695981039346656037ULL));
      std::cerr << "  threads " << threads << ": " << fixed(r.nsPerJoint(r.refill.best), 1)
                << " ns/joint, refill " << fixed(r.refillGBs(), 2) << " GB/s, copy "
                << fixed(r.copyGBs(), 2) << " GB/s\n";
      if (!identical.count(n)) identical[n] = true;
      if (!rows.empty() && rows.back().links == n && rows.back().hash != r.hash)
        identical[n] = false;
      rows.push_back(r);
    }
  }

  // ---- 3. Report ------------------------------------------------------------------------------
  std::cout << "| N links | joints | threads | MB written/refill | refill ms (best) | "
               "ns/joint (best) | ns/joint (median) | refill GB/s | copy GB/s | refill/copy |\n"
            << "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const Row& r : rows)
    std::cout << "| " << r.links << " | " << r.joints << " | " << r.threads << " | "
              << fixed(r.bytes * 1e-6, 2) << " | " << fixed(r.refill.best * 1e3, 3) << " | "
              << fixed(r.nsPerJoint(r.refill.best), 1) << " | "
              << fixed(r.nsPerJoint(r.refill.median), 1) << " | " << fixed(r.refillGBs(), 2)
              << " | " << fixed(r.copyGBs(), 2) << " | " << fixed(r.refillGBs() / r.copyGBs(), 2)
              << " |\n";
  std::cout << "\nBitwise identical C_q and K_c across thread counts:";
  bool all = true;
  for (const auto& [n, same] : identical) {
    std::cout << " N=" << n << (same ? " yes" : " NO") << ";";
    all = all && same;
  }
  std::cout << "\n";

  if (!o.csv.empty()) {
    std::ofstream csv(o.csv);
    if (!csv) {
      std::cerr << "cannot write " << o.csv << "\n";
      return 1;
    }
    csv << "links,joints,threads,nnz_cq,nnz_kc,bytes_per_refill,refill_reps,refill_best_s,"
           "refill_median_s,ns_per_joint_best,ns_per_joint_median,refill_gbs_best,copy_reps,"
           "copy_best_s,copy_median_s,copy_gbs_best,ratio_best,values_fnv1a\n";
    csv << std::setprecision(9);
    for (const Row& r : rows)
      csv << r.links << ',' << r.joints << ',' << r.threads << ',' << r.nnz_cq << ',' << r.nnz_kc
          << ',' << static_cast<long>(r.bytes) << ',' << r.refill.reps << ',' << r.refill.best
          << ',' << r.refill.median << ',' << r.nsPerJoint(r.refill.best) << ','
          << r.nsPerJoint(r.refill.median) << ',' << r.refillGBs() << ',' << r.copy.reps << ','
          << r.copy.best << ',' << r.copy.median << ',' << r.copyGBs() << ','
          << r.refillGBs() / r.copyGBs() << ',' << std::hex << r.hash << std::dec << '\n';
  }
  return all ? 0 : 1;
}
