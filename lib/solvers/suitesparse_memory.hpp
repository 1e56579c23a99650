#pragma once
/// @file suitesparse_memory.hpp
/// (solvers/ internal.) SuiteSparse's allocator (SuiteSparse_config: KLU, AMD, CAMD, BTF) with
/// the large blocks of one factorization handed to the next. A new factorization with partial
/// pivoting (klu_factor) frees the previous one's factors and allocates as much again; glibc
/// maps blocks above 32 MiB and returns them when freed, so each new factorization wrote its
/// factors into pages the kernel had to zero and fault in again (measured cost:
/// docs/parallel-factorization.md, "Cost"). While a SuiteSparseBlockReuse lives on a thread,
/// the blocks of at least kLargeBlock bytes that SuiteSparse frees there stay mapped and go to
/// that thread's next requests they fit (at least the request, at most an eighth more; never a
/// zeroed request); the scope's end unmaps those not taken, so kept blocks never outlive the
/// call that replaced them. Outside a scope large blocks are mapped and unmapped as glibc would.
/// Every large block starts on a 2 MiB boundary and asks for transparent huge pages
/// (MADV_HUGEPAGE; the kernel's THP mode decides), so that writing fresh factors takes 1/512 of
/// the page faults. Results are unchanged: only where the memory comes from. Thread-safe.

#include <cstddef>

namespace catena {

/// Blocks from this size on are mapped by the allocator itself (bytes).
inline constexpr std::size_t kLargeBlock = std::size_t{16} << 20;

/// Installs the allocator in SuiteSparse_config (once per process; later calls do nothing).
/// Blocks allocated before by another allocator are still freed by the C library.
void installSuiteSparseAllocator();

/// While alive: large blocks that SuiteSparse frees on this thread are kept for its next
/// requests (see above; at most 32 at a time). Installs the allocator. Scopes may nest (the
/// outermost releases).
class SuiteSparseBlockReuse {
 public:
  SuiteSparseBlockReuse();
  ~SuiteSparseBlockReuse();
  SuiteSparseBlockReuse(const SuiteSparseBlockReuse&) = delete;
  SuiteSparseBlockReuse& operator=(const SuiteSparseBlockReuse&) = delete;
};

}  // namespace catena
