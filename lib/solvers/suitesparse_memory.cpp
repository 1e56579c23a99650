#include "solvers/suitesparse_memory.hpp"

#include <SuiteSparse_config.h>

#include <cstdlib>
#include <deque>
#include <mutex>
#include <unordered_map>

namespace catena {

namespace {

struct Cache {
  std::mutex mutex;
  std::unordered_map<void*, std::size_t> live;  // large blocks handed out: capacity
  struct Freed {
    void* p;
    std::size_t cap;
    int skipped;  // large requests that did not take it
  };
  std::deque<Freed> freed;  // held for reuse, oldest first
  std::size_t freed_bytes = 0;
  long reused = 0, fresh = 0;
};

Cache& cache() {
  static Cache* c = new Cache;  // never destroyed: SuiteSparse may free after static teardown
  return *c;
}

/// A held block for n bytes (locked): the smallest that holds n without being twice its size,
/// else the largest smaller one; resized to n by realloc (glibc's mremap keeps the pages it
/// holds and returns those past the end). Null if none fits (a block much larger than n stays
/// for a larger request) or realloc fails.
void* takeFreed(Cache& c, std::size_t n) {
  const std::size_t none = c.freed.size();
  std::size_t fit = none, grow = none;
  for (std::size_t k = 0; k < c.freed.size(); ++k) {
    const std::size_t cap = c.freed[k].cap;
    if (cap >= n && cap / 2 <= n && (fit == none || cap < c.freed[fit].cap)) fit = k;
    if (cap < n && (grow == none || cap > c.freed[grow].cap)) grow = k;
  }
  const std::size_t k = fit != none ? fit : grow;
  void* p = nullptr;
  std::size_t cap = 0;
  if (k != none) {
    p = c.freed[k].p;
    cap = c.freed[k].cap;
    c.freed.erase(c.freed.begin() + static_cast<std::ptrdiff_t>(k));
    c.freed_bytes -= cap;
  }
  // A block that kMaxSkips large requests did not take is released (its pages with it), so
  // the cache does not hold memory that nothing reuses.
  for (std::size_t j = 0; j < c.freed.size();)
    if (++c.freed[j].skipped > kMaxSkips) {
      c.freed_bytes -= c.freed[j].cap;
      std::free(c.freed[j].p);
      c.freed.erase(c.freed.begin() + static_cast<std::ptrdiff_t>(j));
    } else {
      ++j;
    }
  if (!p) return nullptr;
  if (cap < n || cap - n > kSlackBytes) {  // grown, or shrunk so no written page idles
    void* q = std::realloc(p, n);
    if (!q) {
      std::free(p);
      return nullptr;
    }
    p = q;
    cap = n;
  }
  c.live[p] = cap;
  ++c.reused;
  return p;
}

void* cachedMalloc(std::size_t n) {
  if (n < kCachedBlockBytes) return std::malloc(n);
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  if (void* p = takeFreed(c, n)) return p;
  void* p = std::malloc(n);
  if (p) {
    c.live[p] = n;
    ++c.fresh;
  }
  return p;
}

/// Zeroed blocks come fresh: mapped pages are zero until written, where a held block would be
/// cleared in full, pages its user never touches included.
void* cachedCalloc(std::size_t count, std::size_t size) {
  void* p = std::calloc(count, size);
  if (!p || count * size < kCachedBlockBytes) return p;
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.live[p] = count * size;
  ++c.fresh;
  return p;
}

void cachedFree(void* p) {
  if (!p) return;
  Cache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    const auto it = c.live.find(p);
    if (it != c.live.end()) {
      c.freed.push_back({p, it->second, 0});
      c.freed_bytes += it->second;
      c.live.erase(it);
      if (c.freed.size() <= kMaxCachedBlocks) return;
      p = c.freed.front().p;  // the oldest leaves the cache
      c.freed_bytes -= c.freed.front().cap;
      c.freed.pop_front();
    }
  }
  std::free(p);
}

void* cachedRealloc(void* p, std::size_t n) {
  if (!p) return cachedMalloc(n);
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  const auto it = c.live.find(p);
  if (it != c.live.end() && n <= it->second && it->second - n <= kSlackBytes) return p;
  void* q = std::realloc(p, n);  // glibc: mremap for mapped blocks, pages kept
  if (!q) return nullptr;
  if (it != c.live.end()) c.live.erase(it);
  if (n >= kCachedBlockBytes) c.live[q] = n;
  return q;
}

}  // namespace

void installSuiteSparseBlockCache() {
  static std::once_flag once;
  std::call_once(once, [] {
    cache();
    SuiteSparse_config.malloc_func = &cachedMalloc;
    SuiteSparse_config.calloc_func = &cachedCalloc;
    SuiteSparse_config.realloc_func = &cachedRealloc;
    SuiteSparse_config.free_func = &cachedFree;
  });
}

SuiteSparseBlockCacheStats suiteSparseBlockCacheStats() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return {c.freed.size(), c.freed_bytes, c.reused, c.fresh};
}

}  // namespace catena
