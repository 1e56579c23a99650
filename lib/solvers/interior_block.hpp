#pragma once
/// @file interior_block.hpp
/// (solvers/ internal.) One interior block of the Schur-complement decomposition
/// (schur_decomposition.hpp): the interior rows of one part of a rank, its KLU factorization,
/// and its part of the interface matrix, K_GB K_BB^-1 K_BG, computed from the trailing pivots of
/// its factors only. Pure numerics on a rank's local arrays: no communication.

#include <petscsys.h>

#include <memory>
#include <vector>

#include <Eigen/Dense>

#include "solvers/klu_lu.hpp"

namespace catena {

/// The couplings between a rank's boundary rows (index a) and its interior rows (index e):
/// K_IG by boundary column (ig_row[s] for s in [ig_start[a], ig_start[a + 1]), values ig_value)
/// and K_GI by boundary row (gi_col, gi_value).
struct BoundaryCouplings {
  std::vector<PetscInt> ig_start, ig_row, gi_start, gi_col;
  std::vector<double> ig_value, gi_value;
};

struct InteriorBlock {
  int first = 0, size = 0;         ///< its interior indices [first, first + size)
  std::vector<PetscInt> source;    ///< the position of each of its entries in the rank's values
  std::unique_ptr<KluLu> klu;      ///< its factorization (F = K_BB^T, solvers/klu_lu.hpp)
  std::vector<PetscInt> boundary;  ///< the boundary indices whose rows touch it
  /// The trailing pivots of the analysis' order (klu's givenRowOrder, columnOrder) from the
  /// first row next to the boundary to the end.
  int window = 0;
  /// analyseBlock numbers the block's rows in their pivot order: row k of its factorization is
  /// the caller's block-local row renumbered[k] (the caller renumbers its own indices to match).
  std::vector<int> renumbered;
  /// From blockSchurPart, for the solves: per boundary index g of the block, U^-T Q^T k_g and
  /// L^-1 P k_g (interior_block.cpp) from pivot upper_first[g] / lower_first[g] on.
  std::vector<std::vector<double>> upper, lower;
  std::vector<int> upper_first, lower_first;
};

/// Where the rows [0, n) of a compressed pattern (start, col; upper entries j > i read) split
/// into `parts` contiguous parts: the first rows of parts 1 .. parts - 1, each where the fewest
/// entries (i, j), i < s <= j, cross within `window` rows of the equal split (the nearest such;
/// the lower on a tie). An equal split of a chain's rows cuts through a body's rows: 24
/// interface unknowns instead of the 19 of a cut between ranks, and pinned at the V its blocks
/// needed three rounds of moved rows instead of one (1 rank x 2 parts, 10^5 links, hand run).
std::vector<PetscInt> partSplits(PetscInt n, const PetscInt* start, const PetscInt* col, int parts,
                                 PetscInt window);

/// Orders block and sets up its KLU analysis. start, col: the compressed rows of all interior
/// rows (block-local columns), source: each entry's position in the rank's values, last: the
/// rows next to the boundary (the trailing window starts at the first of them), ordered_last:
/// those the order pivots after all others (last or fewer: oneSidedLast), coordinates: the
/// block's rows with a diagonal entry, which come first. An empty block gets no factorization.
/// Throws catena::Error if KLU cannot analyse the pattern. The block's rows come out renumbered
/// in pivot order (InteriorBlock::renumbered).
void analyseBlock(InteriorBlock& block, const std::vector<int>& start, const std::vector<int>& col,
                  const std::vector<PetscInt>& source, const std::vector<char>& last,
                  const std::vector<char>& ordered_last, int coordinates);

/// The trailing window of an order of a block's rows (P[k], Q[k]: the block-local row and
/// column pivoted at k): the pivots from the first whose row or column is next to the boundary
/// (last, per block-local row) to the end; 0 if none is.
int trailingWindow(const std::vector<int>& P, const std::vector<int>& Q, const char* last);

/// After rows moved to the interface: the block `old` of the last analysis with its rows at
/// the pivot positions `dropped` (ascending) gone, as block (whose first and size the caller
/// set). The order of the others is kept and its pattern, sources and KLU analysis are
/// compacted in place (KluLu::dropPositions), which is the analysis the same order would get
/// anew, without a second copy or a new ordering. renumbered: as analyseBlock leaves it, the
/// caller's block-local row of each kept pivot; window: the new order's trailing window.
void dropFromBlock(InteriorBlock& block, InteriorBlock&& old, const std::vector<int>& dropped,
                   std::vector<int> renumbered, int window);

/// The block's part of S (before the minus sign) over its boundary indices, in their order:
/// Sb(h, g) = k_h^T K_BB^-1 k_g with k_h row boundary[h] of K_GI and k_g column boundary[g] of
/// K_IG, from the block's last successful factorization. window: raised to the most trailing
/// pivots one right-hand side touched.
void blockSchurPart(InteriorBlock& block, const BoundaryCouplings& c, Eigen::MatrixXd& Sb,
                    long& window);

/// A solve with the Schur decomposition in one sweep per block: KluLu::upperTransposedSolve
/// gives y = U^-T Q^T b_B, blockInterfaceResidual subtracts k_h^T K_BB^-1 b_B = (L^-1 P k_h)^T y
/// from r[h] (h over block.boundary), and once the interface values x_G are known,
/// blockInterfaceCorrection subtracts U^-T Q^T K_BG x_G from y (x[g] over block.boundary)
/// before KluLu::lowerTransposedSolve gives x_B = K_BB^-1 (b_B - K_BG x_G). Uses the vectors of
/// the last blockSchurPart.
void blockInterfaceResidual(const InteriorBlock& block, const double* y, double* r);
void blockInterfaceCorrection(const InteriorBlock& block, const double* x, double* y);

}  // namespace catena
