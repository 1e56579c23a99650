#include "solvers/suitesparse_memory.hpp"

#include <SuiteSparse_config.h>
#include <malloc.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "core/huge_pages.hpp"

namespace catena {
namespace {

constexpr std::size_t kPage = 4096;

std::size_t pages(std::size_t bytes) {
  return (bytes + kPage - 1) / kPage * kPage;
}

/// The mapped blocks handed out, by address: their capacity (bytes). Shared by all threads (a
/// block may be freed on another thread than the one that allocated it); never destroyed, since
/// SuiteSparse objects may be freed during static destruction.
struct Mapped {
  std::mutex mutex;
  std::unordered_map<void*, std::size_t> capacity;
};
Mapped& mapped() {
  static Mapped* m = new Mapped;
  return *m;
}

/// A fresh mapping of `bytes` (a multiple of kPage) that starts on a huge-page boundary and
/// asks the kernel for transparent huge pages (MADV_HUGEPAGE; ignored where THP is off): a
/// factorization writes its factors once, front to back, and 2 MiB pages take 1/512 of the
/// faults of 4 KiB ones. Null if the mapping fails.
void* mapHuge(std::size_t bytes) {
  const std::size_t span = bytes + kHugePageBytes;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto at = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t start = (at + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  if (start > at) munmap(raw, start - at);
  const std::uintptr_t tail = start + bytes, end = at + span;
  if (end > tail) munmap(reinterpret_cast<void*>(tail), end - tail);
  void* p = reinterpret_cast<void*>(start);
  // The whole mapping, tail included (adviseHugePages would leave a tail that is not a whole
  // huge page in a second mapping, and mremap cannot grow a block that spans two).
  madvise(p, bytes, MADV_HUGEPAGE);
  return p;
}

/// This thread's scope: its depth and the blocks freed in it, kept (address, capacity; at most
/// kMaxKept, beyond which freed blocks are unmapped at once). Trivially destructible, so that a
/// free during the thread's or the program's end finds it intact.
constexpr int kMaxKept = 32;
struct Kept {
  int depth;
  int count;
  std::pair<void*, std::size_t> blocks[kMaxKept];
};
thread_local Kept kept{};

void unmapKept() {
  for (int k = 0; k < kept.count; ++k) munmap(kept.blocks[k].first, kept.blocks[k].second);
  kept.count = 0;
}

/// A mapped block of at least n bytes: a kept one that fits (the smallest of those within an
/// eighth above n: a larger one would keep more pages resident than the request touches) unless
/// `zeroed` (a kept block would have to be cleared, touching all of it), else a new mapping (the
/// kept ones unmapped first, so that they never add to a peak).
void* mapBlock(std::size_t n, bool zeroed) {
  int best = -1;
  for (int k = 0; k < kept.count && !zeroed; ++k) {
    const std::size_t c = kept.blocks[k].second;
    if (c >= n && c - n <= n / 8 && (best < 0 || c < kept.blocks[best].second)) best = k;
  }
  void* p = nullptr;
  std::size_t cap = 0;
  if (best >= 0) {
    std::tie(p, cap) = kept.blocks[best];
    kept.blocks[best] = kept.blocks[--kept.count];
  } else {
    unmapKept();
    cap = pages(n);
    p = mapHuge(cap);
    if (!p) return nullptr;
  }
  Mapped& m = mapped();
  const std::lock_guard<std::mutex> lock(m.mutex);
  m.capacity[p] = cap;
  return p;
}

/// The capacity of a mapped block that p starts (0: not one of ours), taken out of the table
/// when `remove`.
std::size_t mappedCapacity(void* p, bool remove) {
  Mapped& m = mapped();
  const std::lock_guard<std::mutex> lock(m.mutex);
  const auto it = m.capacity.find(p);
  if (it == m.capacity.end()) return 0;
  const std::size_t cap = it->second;
  if (remove) m.capacity.erase(it);
  return cap;
}

void* allocate(std::size_t n) {
  return n < kLargeBlock ? std::malloc(n) : mapBlock(n, false);
}

void* allocateZeroed(std::size_t count, std::size_t size) {
  if (size != 0 && count > static_cast<std::size_t>(-1) / size) return nullptr;
  const std::size_t n = count * size;
  return n < kLargeBlock ? std::calloc(count, size) : mapBlock(n, true);  // fresh pages are zero
}

void release(void* p) {
  if (!p) return;
  const std::size_t cap = mappedCapacity(p, true);
  if (cap == 0) {
    std::free(p);
  } else if (kept.depth > 0 && kept.count < kMaxKept) {
    kept.blocks[kept.count++] = {p, cap};
  } else {
    munmap(p, cap);
  }
}

void* reallocate(void* p, std::size_t n) {
  if (!p) return allocate(n);
  const std::size_t cap = mappedCapacity(p, false);
  if (cap == 0) {
    if (n < kLargeBlock) return std::realloc(p, n);
    void* q = allocate(n);
    if (q) {
      std::memcpy(q, p, malloc_usable_size(p));  // less than kLargeBlock <= n
      std::free(p);
    }
    return q;
  }
  if (n <= cap) return p;  // shrinking keeps the block (only touched pages are resident)
  const std::size_t grown = pages(n);
  void* q = mremap(p, cap, grown, MREMAP_MAYMOVE);  // moves page tables, copies nothing
  if (q == MAP_FAILED) return nullptr;              // p stays valid, as realloc's contract
  Mapped& m = mapped();
  const std::lock_guard<std::mutex> lock(m.mutex);
  m.capacity.erase(p);
  m.capacity[q] = grown;
  return q;
}

}  // namespace

void installSuiteSparseAllocator() {
  static std::once_flag once;
  std::call_once(once, [] {
    SuiteSparse_config.malloc_func = allocate;
    SuiteSparse_config.calloc_func = allocateZeroed;
    SuiteSparse_config.realloc_func = reallocate;
    SuiteSparse_config.free_func = release;
  });
}

SuiteSparseBlockReuse::SuiteSparseBlockReuse() {
  installSuiteSparseAllocator();
  ++kept.depth;
}

SuiteSparseBlockReuse::~SuiteSparseBlockReuse() {
  if (--kept.depth == 0) unmapKept();
}

}  // namespace catena
