#pragma once
/// @file schur_decomposition.hpp
/// A direct solver of a distributed sparse matrix K (MatMPIAIJ, structurally symmetric, e.g. the
/// saddle-point matrices of statics, modes and dynamics) by a Schur-complement domain
/// decomposition over the ranks' interfaces (docs/parallel-factorization.md):
///
/// - a rank's boundary rows are those coupled to another rank's rows (K's off-process block), the
///   other owned rows its interior I; interior rows couple only to the rank's own rows;
/// - each rank factors its interior block K_II with KLU (KLU's kind of order with the rows next
///   to the boundary pivoted last, those facing one neighbour only where they face several,
///   solvers/interior_block.hpp) and forms its part of the interface matrix
///   S = K_GG - sum over ranks of K_GI K_II^-1 K_IG in one sweep through its factors, each
///   right-hand side from its first pivot on;
/// - S, of the size of the interfaces (for a chain about 19 unknowns per rank boundary), is
///   gathered on every rank and factored there by KLU (-PREFIXdd_interface klu: one gather per
///   factorization and one per solve, the same bits on every rank), or factored by MUMPS across
///   the ranks (mumps, options prefix PREFIXdd_); by default (auto) KLU while S has at most
///   -PREFIXdd_gathered_max unknowns (20000, about 1000 ranks of a chain), MUMPS beyond;
/// - a solve is one sweep through each rank's factors around one interface solve.
///
/// An interior block may be singular where K is not (its interface held fixed pins it: a
/// straight stretch of chain pinned at both ends); the unknowns of its singular pivots then join
/// the interface for good (SchurStats::moved) and the ranks analyse again: S, the Schur
/// complement of regular interior blocks in a regular K, is regular.
///
/// With -PREFIXdd_parts T each rank splits its rows into T contiguous parts, whose couplings
/// join the interface like the ranks' (the same results for any thread count at a given T);
/// the T interior blocks are factored and solved by OpenMP threads, one block each.
///
/// Refactorizations keep a block's pivots while they stay sound (pivot growth within
/// -PREFIXdd_max_refactor_growth, default 1e5); every solve refines to a backward error of
/// 1e-14 (at most -PREFIXdd_max_refinements steps, default 2), and one that cannot with kept
/// pivots is factored anew and solved again.
///
/// Every rank works on its own rows only: no object of the whole problem exists anywhere. On
/// one rank there is no interface and this is KLU on K. Failure: an interior block or S
/// singular, a status naming the rank and the block; a pattern that is not structurally
/// symmetric across the ranks throws catena::Error (MUMPS takes it). Collective.

#include <petscksp.h>

#include <memory>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "solvers/kkt_solver.hpp"

namespace catena {

class SchurDecomposition {
 public:
  /// prefix: PETSc options prefix of the interface solver ("" or "statics_"; its options are
  /// PREFIXdd_..., e.g. -statics_dd_mat_mumps_icntl_4 2).
  /// moved (may be null): the owned rows moved to the interface, shared with other
  /// decompositions of matrices of the same pattern, read at the first factor() and updated.
  explicit SchurDecomposition(const std::string& prefix,
                              std::shared_ptr<std::vector<char>> moved = nullptr);
  ~SchurDecomposition();
  SchurDecomposition(const SchurDecomposition&) = delete;
  SchurDecomposition& operator=(const SchurDecomposition&) = delete;

  /// Factors K. The first call fixes the pattern (analysis), later calls must keep it.
  /// Collective; every rank returns the same status.
  Status factor(Mat K);
  /// x = K^-1 b (vectors in K's layout) with the last successful factor(), refined against K
  /// (which must still hold the factored values) while the backward error exceeds 1e-14.
  /// Collective.
  Status solve(Vec b, Vec x);

  /// The next factor() chooses new pivots in the interior blocks and analyses the interface
  /// matrix anew (MUMPS fixes its scaling from the values it first sees), as a new decomposition
  /// of the same pattern would; the interfaces, the rows moved to them and the blocks' orderings
  /// (the pattern's) are kept. Not collective.
  void forgetAnalysis();

  /// Makes ksp apply this decomposition (KSPPREONLY with a PCSHELL that factors the
  /// preconditioning matrix at set-up), for solvers that own their KSP (SLEPc's spectral
  /// transformation). The object must outlive ksp's use of it.
  void attachTo(KSP ksp);

  const SchurStats& stats() const { return stats_; }
  /// The status of the last factor() (success if it succeeded), for callers that reach it
  /// through attachTo's PETSc error code.
  const Status& lastFailure() const { return last_failure_; }

 private:
  struct Impl;  // PETSc and KLU objects stay out of this header
  Status factorNow(Mat K);
  std::unique_ptr<Impl> impl_;
  SchurStats stats_;
  Status last_failure_;
};

}  // namespace catena
