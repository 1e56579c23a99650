#define BOOST_TEST_MODULE suitesparse_memory
// SuiteSparse's allocator with large blocks handed from one factorization to the next
// (solvers/suitesparse_memory.hpp): inside a scope a freed large block goes to the next request
// it fits and is unmapped at the scope's end; a zeroed request gets zeroed memory even after a
// block was freed; realloc keeps the contents when it grows and the block when it shrinks;
// small blocks stay with the C library; threads keep their own blocks; a large block starts on
// a huge-page boundary and asks for transparent huge pages, also after it grew. End to end: KLU on
// a matrix whose factors are mapped blocks gives the same bits on a new factorization that reuses
// the previous one's pages.
#include <SuiteSparse_config.h>
#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/huge_pages.hpp"
#include "solvers/klu_lu.hpp"
#include "solvers/suitesparse_memory.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {

constexpr std::size_t kBig = 2 * kLargeBlock;

/// Whether the page at p is mapped (mincore fails with ENOMEM on an unmapped range).
bool mapped(void* p) {
  unsigned char resident = 0;
  return mincore(p, 4096, &resident) == 0;
}

/// The VmFlags of the mapping that holds p (/proc/self/smaps), empty if none does.
std::string mappingFlags(const void* p) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= at && at < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return {};
}

void fill(void* p, std::size_t n, unsigned char seed) {
  auto* b = static_cast<unsigned char*>(p);
  for (std::size_t k = 0; k < n; k += 4096) b[k] = static_cast<unsigned char>(seed + k / 4096);
}

bool filled(const void* p, std::size_t n, unsigned char seed) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t k = 0; k < n; k += 4096)
    if (b[k] != static_cast<unsigned char>(seed + k / 4096)) return false;
  return true;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_freed_large_block_goes_to_the_next_request_in_the_scope) {
  void* first = nullptr;
  {
    const SuiteSparseBlockReuse reuse;
    first = SuiteSparse_malloc(kBig, 1);
    BOOST_REQUIRE(first != nullptr);
    fill(first, kBig, 7);
    SuiteSparse_free(first);
    BOOST_TEST(mapped(first));  // kept
    void* again = SuiteSparse_malloc(kBig - 4096, 1);
    BOOST_TEST(again == first);
    BOOST_TEST(filled(again, kBig - 4096, 7));  // the same pages, not fresh ones
    SuiteSparse_free(again);
  }
  BOOST_TEST(!mapped(first));  // unmapped at the scope's end
}

BOOST_AUTO_TEST_CASE(outside_a_scope_a_freed_block_is_unmapped_at_once) {
  installSuiteSparseAllocator();
  void* p = SuiteSparse_malloc(kBig, 1);
  BOOST_REQUIRE(p != nullptr);
  fill(p, kBig, 1);
  SuiteSparse_free(p);
  BOOST_TEST(!mapped(p));
}

BOOST_AUTO_TEST_CASE(a_zeroed_request_is_zero_after_a_block_was_freed) {
  const SuiteSparseBlockReuse reuse;
  void* p = SuiteSparse_malloc(kBig, 1);
  BOOST_REQUIRE(p != nullptr);
  std::memset(p, 0xab, kBig);
  SuiteSparse_free(p);
  auto* z = static_cast<unsigned char*>(SuiteSparse_calloc(kBig, 1));
  BOOST_REQUIRE(z != nullptr);
  bool zero = true;
  for (std::size_t k = 0; k < kBig; ++k) zero = zero && z[k] == 0;
  BOOST_TEST(zero);
  SuiteSparse_free(z);
}

BOOST_AUTO_TEST_CASE(realloc_keeps_the_contents_and_a_shrinking_block) {
  const SuiteSparseBlockReuse reuse;
  int ok = 0;
  // Small to large: out of the C library into a mapping, contents kept.
  auto* p = static_cast<unsigned char*>(SuiteSparse_malloc(1000, 1));
  BOOST_REQUIRE(p != nullptr);
  for (int k = 0; k < 1000; ++k) p[k] = static_cast<unsigned char>(k);
  p = static_cast<unsigned char*>(SuiteSparse_realloc(kBig, 1000, 1, p, &ok));
  BOOST_REQUIRE(ok == 1);
  bool same = true;
  for (int k = 0; k < 1000; ++k) same = same && p[k] == static_cast<unsigned char>(k);
  BOOST_TEST(same);
  // Growing a mapping: contents kept.
  fill(p, kBig, 3);
  p = static_cast<unsigned char*>(SuiteSparse_realloc(3 * kBig, kBig, 1, p, &ok));
  BOOST_REQUIRE(ok == 1);
  BOOST_TEST(filled(p, kBig, 3));
  // Shrinking: the same block.
  void* q = SuiteSparse_realloc(kBig, 3 * kBig, 1, p, &ok);
  BOOST_TEST(ok == 1);
  BOOST_TEST(q == static_cast<void*>(p));
  BOOST_TEST(filled(q, kBig, 3));
  SuiteSparse_free(q);
}

BOOST_AUTO_TEST_CASE(a_large_block_is_aligned_and_advised_for_huge_pages) {
  installSuiteSparseAllocator();
  int ok = 0;
  void* p = SuiteSparse_malloc(kBig + 4096, 1);
  BOOST_REQUIRE(p != nullptr);
  BOOST_TEST(reinterpret_cast<std::uintptr_t>(p) % (std::uintptr_t{2} << 20) == 0);
  // "hg": MADV_HUGEPAGE (proc(5)), set whatever the THP mode, on a kernel built with THP.
  const bool thp = std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good();
  BOOST_TEST((!thp || mappingFlags(p).find(" hg") != std::string::npos), mappingFlags(p));
  fill(p, kBig, 5);
  void* q = SuiteSparse_realloc(4 * kBig, kBig + 4096, 1, p, &ok);
  BOOST_REQUIRE(ok == 1);
  BOOST_TEST(filled(q, kBig, 5));
  BOOST_TEST((!thp || mappingFlags(q).find(" hg") != std::string::npos), mappingFlags(q));
  SuiteSparse_free(q);
}

// core/huge_pages.hpp, tested here beside the allocator's own huge-page advice.
BOOST_AUTO_TEST_CASE(a_large_vector_is_advised_for_huge_pages_before_it_is_written) {
  const bool thp = std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good();
  // "hg" on the first whole 2 MiB page inside the array: set by the advice, whatever THP mode.
  const auto advised = [thp](const void* data) {
    const auto at = reinterpret_cast<std::uintptr_t>(data);
    const void* page =
        reinterpret_cast<const void*>((at + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes);
    return !thp || mappingFlags(page).find(" hg") != std::string::npos;
  };
  std::vector<double> v;
  resizeHuge(v, kBig / sizeof(double));
  BOOST_TEST(v.size() == kBig / sizeof(double));
  BOOST_TEST(std::all_of(v.begin(), v.end(), [](double x) { return x == 0.0; }));
  BOOST_TEST(advised(v.data()), mappingFlags(v.data()));
  std::vector<int> w;
  reserveHuge(w, kBig / sizeof(int));
  BOOST_TEST(w.capacity() >= kBig / sizeof(int));
  BOOST_TEST(advised(w.data()), mappingFlags(w.data()));
  std::vector<double> u(10, 1.0);
  assignHuge(u, kBig / sizeof(double), 2.5);
  BOOST_TEST(u.size() == kBig / sizeof(double));
  BOOST_TEST(std::all_of(u.begin(), u.end(), [](double x) { return x == 2.5; }));
  BOOST_TEST(advised(u.data()), mappingFlags(u.data()));
  assignHuge(u, 3, -1.0);  // shrinking keeps the storage and writes the values
  BOOST_TEST(u.size() == 3u);
  BOOST_TEST(u[2] == -1.0);
}

BOOST_AUTO_TEST_CASE(threads_keep_their_own_blocks) {
  installSuiteSparseAllocator();
  std::vector<int> reused(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, &reused] {
      const SuiteSparseBlockReuse reuse;
      for (int round = 0; round < 5; ++round) {
        void* p = SuiteSparse_malloc(kBig + 4096 * t, 1);
        if (!p) return;
        fill(p, kBig, static_cast<unsigned char>(t));
        SuiteSparse_free(p);
        void* q = SuiteSparse_malloc(kBig + 4096 * t, 1);
        reused[t] += q == p && filled(q, kBig, static_cast<unsigned char>(t)) ? 1 : 0;
        SuiteSparse_free(q);
      }
    });
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < 4; ++t) BOOST_TEST(reused[t] == 5, "thread " << t);
}

// A tridiagonal matrix of 2·10^6 rows: KLU's factors (about 70 MB) are mapped blocks. A new
// factorization (new pivots) writes into the previous one's pages and solves to the same bits.
BOOST_AUTO_TEST_CASE(klu_factors_anew_into_the_same_pages_with_the_same_bits) {
  const int n = 2'000'000;
  std::vector<int> start(n + 1), col;
  std::vector<double> val;
  for (int i = 0; i < n; ++i) {
    start[i] = static_cast<int>(col.size());
    for (int j = std::max(0, i - 1); j <= std::min(n - 1, i + 1); ++j) {
      col.push_back(j);
      val.push_back(j == i ? 4.0 + (i % 7) * 0.1 : -1.0 - (i % 3) * 0.2);
    }
  }
  start[n] = static_cast<int>(col.size());
  KluLu klu(n, start.data(), col.data());
  std::vector<double> b(n), x1, x2;
  for (int i = 0; i < n; ++i) b[i] = std::sin(0.001 * i);
  BOOST_REQUIRE(klu.factor(val.data()).ok());
  x1 = b;
  BOOST_REQUIRE(klu.solve(x1.data()).ok());
  klu.forgetPivots();
  BOOST_REQUIRE(klu.factor(val.data()).ok());
  BOOST_TEST(klu.fullFactorizations() == 2);
  x2 = b;
  BOOST_REQUIRE(klu.solve(x2.data()).ok());
  BOOST_TEST(std::memcmp(x1.data(), x2.data(), sizeof(double) * n) == 0);
  // The solution solves the system (A^T: KLU factors the transpose of the CSR pattern).
  double worst = 0.0;
  for (int i = 0; i < n; ++i) {
    double r = -b[i];
    for (int a = start[i]; a < start[i + 1]; ++a) r += val[a] * x1[col[a]];
    worst = std::max(worst, std::abs(r));
  }
  BOOST_TEST(worst < 1e-12);
}
