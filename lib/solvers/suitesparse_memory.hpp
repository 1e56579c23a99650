#pragma once
/// @file suitesparse_memory.hpp
/// SuiteSparse's large blocks (KLU's factors and work arrays, CAMD's workspace) through a small
/// cache of freed blocks. Each new KLU factorization frees the last one's factors and allocates
/// its own of about the same size; glibc maps blocks of 32 MiB and more afresh and returns them
/// when freed, so every factorization faulted in and zeroed its memory page by page again.
/// The cache hands a freed block to the next request it fits (grown or shrunk in place by
/// realloc, which keeps the pages it holds), so the pages already written are reused.
/// Smaller blocks go to malloc as before. Thread-safe (the interior blocks are factored by
/// OpenMP threads). Results unchanged: only where blocks come from.

#include <cstddef>

namespace catena {

/// Points SuiteSparse_config's allocation functions at the cache (once per process; later calls
/// do nothing). Blocks allocated before stay with malloc.
void installSuiteSparseBlockCache();

/// What the cache holds and has done (for tests and measurements).
struct SuiteSparseBlockCacheStats {
  std::size_t cached_blocks = 0;  ///< freed blocks held for reuse
  std::size_t cached_bytes = 0;   ///< their capacity
  long reused = 0;                ///< requests served from a held block
  long fresh = 0;                 ///< large requests that found none
};
SuiteSparseBlockCacheStats suiteSparseBlockCacheStats();

/// Blocks of at least this size are cached (glibc's mmap threshold, petsc_session.cpp).
inline constexpr std::size_t kCachedBlockBytes = std::size_t{32} << 20;
/// At most this many freed blocks are held; past it the oldest is freed.
inline constexpr std::size_t kMaxCachedBlocks = 4;
/// A block is resized when it exceeds a request by more than this (its extra pages returned).
inline constexpr std::size_t kSlackBytes = std::size_t{1} << 20;
/// A held block that this many large requests passed over is freed.
inline constexpr int kMaxSkips = 0;

}  // namespace catena
