#pragma once
/// @file huge_pages.hpp
/// Transparent huge pages for large arrays about to be written for the first time. The kernel
/// zeroes and maps every fresh page at its first write; with MADV_HUGEPAGE it does so 2 MiB at
/// a time instead of 4 KiB (what that saves: docs/parallel-factorization.md, "Limits").
/// Advice only: the contents and the results are unchanged, and where THP is off or the
/// kernel refuses, nothing happens.

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace catena {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

/// Arrays below this many bytes are not advised (a system call for little gain).
inline constexpr std::size_t kHugePageAdviceMin = std::size_t{4} << 20;

/// MADV_HUGEPAGE on the whole 2 MiB pages inside [data, data + bytes), from kHugePageAdviceMin
/// bytes on. The kernel splits the mapping there: not for a block that is later grown by mremap
/// (glibc's realloc of a mapped block; std::vector never does that).
inline void adviseHugePages(const void* data, std::size_t bytes) {
  if (bytes < kHugePageAdviceMin) return;
  const auto at = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t lo = (at + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes,
                       hi = (at + bytes) / kHugePageBytes * kHugePageBytes;
  if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
}

/// v.reserve(n), new storage advised as above before anything is written to it.
template <class T>
void reserveHuge(std::vector<T>& v, std::size_t n) {
  if (n <= v.capacity()) return;
  v.reserve(n);
  adviseHugePages(v.data(), v.capacity() * sizeof(T));
}

/// v.resize(n) (new elements value-initialized), new storage advised as above first.
template <class T>
void resizeHuge(std::vector<T>& v, std::size_t n) {
  reserveHuge(v, n);
  v.resize(n);
}

/// v.assign(n, value), new storage advised as above first.
template <class T>
void assignHuge(std::vector<T>& v, std::size_t n, const T& value) {
  if (n > v.capacity()) {
    v.clear();
    reserveHuge(v, n);
  }
  v.assign(n, value);
}

}  // namespace catena
