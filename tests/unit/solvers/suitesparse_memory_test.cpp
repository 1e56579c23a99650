#define BOOST_TEST_MODULE suitesparse_memory
// The cache of SuiteSparse's large blocks (solvers/suitesparse_memory.hpp): a freed block
// serves the next request it fits (its content is not promised, its size is), smaller blocks
// and zeroed ones bypass it, a block that a large request passes over is released, realloc
// keeps the content, concurrent threads are safe, and KLU factors through it as before.
#include <SuiteSparse_config.h>
#include <omp.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "solvers/klu_lu.hpp"
#include "solvers/suitesparse_memory.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

struct Installed {
  Installed() { installSuiteSparseBlockCache(); }
};

/// A block of `bytes` written in full (its pages touched), as KLU's factors are.
void* written(std::size_t bytes, unsigned char value) {
  auto* p = static_cast<unsigned char*>(SuiteSparse_malloc(bytes, 1));
  BOOST_REQUIRE(p != nullptr);
  std::memset(p, value, bytes);
  return p;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(block_cache, Installed)

BOOST_AUTO_TEST_CASE(a_freed_block_serves_the_next_request_it_fits) {
  const SuiteSparseBlockCacheStats s0 = suiteSparseBlockCacheStats();
  void* p = written(64 * kMiB, 1);
  SuiteSparse_free(p);
  BOOST_TEST(suiteSparseBlockCacheStats().cached_blocks == s0.cached_blocks + 1);
  // 48 MiB: within twice the held 64 MiB, so the block is taken (and trimmed to 48 MiB).
  auto* q = static_cast<unsigned char*>(SuiteSparse_malloc(48 * kMiB, 1));
  const SuiteSparseBlockCacheStats s1 = suiteSparseBlockCacheStats();
  BOOST_TEST(s1.reused == s0.reused + 1);
  BOOST_TEST(s1.cached_blocks == s0.cached_blocks);
  std::memset(q, 2, 48 * kMiB);
  // Grown in place of a fresh one: a 100 MiB request takes the largest smaller block.
  SuiteSparse_free(q);
  auto* r = static_cast<unsigned char*>(SuiteSparse_malloc(100 * kMiB, 1));
  BOOST_TEST(suiteSparseBlockCacheStats().reused == s0.reused + 2);
  std::memset(r, 3, 100 * kMiB);
  SuiteSparse_free(r);
}

BOOST_AUTO_TEST_CASE(small_and_zeroed_blocks_bypass_the_cache) {
  const SuiteSparseBlockCacheStats s0 = suiteSparseBlockCacheStats();
  void* small = written(kCachedBlockBytes - 1, 4);
  SuiteSparse_free(small);
  BOOST_TEST(suiteSparseBlockCacheStats().cached_blocks == s0.cached_blocks);
  void* p = written(40 * kMiB, 5);
  SuiteSparse_free(p);
  auto* z = static_cast<unsigned char*>(SuiteSparse_calloc(40 * kMiB, 1));
  BOOST_REQUIRE(z != nullptr);
  std::size_t nonzero = 0;
  for (std::size_t i = 0; i < 40 * kMiB; i += 4096) nonzero += z[i] != 0;
  BOOST_TEST(nonzero == 0u);
  BOOST_TEST(suiteSparseBlockCacheStats().reused == s0.reused);
  SuiteSparse_free(z);
}

BOOST_AUTO_TEST_CASE(a_block_passed_over_is_released) {
  // Empty the cache: a request fitting nothing passes every held block over.
  SuiteSparse_free(SuiteSparse_malloc(kCachedBlockBytes, 1));
  SuiteSparse_free(SuiteSparse_malloc(1000 * kMiB, 1));
  void* big = written(200 * kMiB, 6);
  SuiteSparse_free(big);
  BOOST_TEST(suiteSparseBlockCacheStats().cached_blocks >= 1u);
  // 40 MiB: the 200 MiB block is more than twice it, and not smaller: passed over, released.
  void* p = SuiteSparse_malloc(40 * kMiB, 1);
  const SuiteSparseBlockCacheStats s = suiteSparseBlockCacheStats();
  BOOST_TEST(s.cached_blocks == 0u);
  BOOST_TEST(s.cached_bytes == 0u);
  SuiteSparse_free(p);
}

BOOST_AUTO_TEST_CASE(realloc_keeps_the_content) {
  const std::size_t n = 40 * kMiB / sizeof(std::uint32_t);
  auto* p = static_cast<std::uint32_t*>(SuiteSparse_malloc(n, sizeof(std::uint32_t)));
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<std::uint32_t>(i * 2654435761u);
  int ok = 0;
  p = static_cast<std::uint32_t*>(SuiteSparse_realloc(3 * n, n, sizeof(std::uint32_t), p, &ok));
  BOOST_REQUIRE(ok == 1);
  bool same = true;
  for (std::size_t i = 0; i < n; ++i)
    same = same && p[i] == static_cast<std::uint32_t>(i * 2654435761u);
  BOOST_TEST(same);
  p = static_cast<std::uint32_t*>(SuiteSparse_realloc(n / 2, 3 * n, sizeof(std::uint32_t), p, &ok));
  BOOST_REQUIRE(ok == 1);
  for (std::size_t i = 0; i < n / 2; ++i)
    same = same && p[i] == static_cast<std::uint32_t>(i * 2654435761u);
  BOOST_TEST(same);
  SuiteSparse_free(p);
}

BOOST_AUTO_TEST_CASE(threads_share_the_cache) {
  std::vector<int> good(64, 0);
#pragma omp parallel for num_threads(4) schedule(dynamic, 1)
  for (int k = 0; k < 64; ++k) {
    const std::size_t bytes = (33 + k % 5) * kMiB;
    auto* p = static_cast<unsigned char*>(SuiteSparse_malloc(bytes, 1));
    if (!p) continue;
    std::memset(p, k, bytes);
    good[k] =
        p[0] == static_cast<unsigned char>(k) && p[bytes - 1] == static_cast<unsigned char>(k);
    SuiteSparse_free(p);
  }
  int all = 0;
  for (int g : good) all += g;
  BOOST_TEST(all == 64);
}

// KLU through the cache: a sequence of new factorizations of one 1-D Laplacian-like matrix
// (large enough for 32 MiB factors) reuses the freed factors and solves as before.
BOOST_AUTO_TEST_CASE(klu_factors_through_the_cache) {
  const int n = 1 << 21;
  std::vector<int> start(n + 1), col;
  std::vector<double> val;
  for (int i = 0; i < n; ++i) {
    for (int j : {i - 1, i, i + 1})
      if (j >= 0 && j < n) {
        col.push_back(j);
        val.push_back(j == i ? 4.0 : -1.0);
      }
    start[i + 1] = static_cast<int>(col.size());
  }
  KluLu klu(n, start.data(), col.data());
  const long reused0 = suiteSparseBlockCacheStats().reused;
  for (int k = 0; k < 3; ++k) {
    klu.forgetPivots();
    BOOST_REQUIRE(klu.factor(val.data()).ok());
  }
  BOOST_TEST(suiteSparseBlockCacheStats().reused > reused0);
  std::vector<double> x(n, 0.0);
  x[n / 2] = 1.0;  // K x = e: x decays away from n / 2
  std::vector<double> b = x;
  BOOST_REQUIRE(klu.solve(b.data()).ok());
  double residual = 0.0;
  for (int i = 0; i < n; ++i) {
    double r = -x[i];
    for (int a = start[i]; a < start[i + 1]; ++a) r += val[a] * b[col[a]];
    residual = std::max(residual, std::abs(r));
  }
  BOOST_TEST(residual < 1e-14);
}

BOOST_AUTO_TEST_SUITE_END()
