#pragma once
/// @file kkt_ordering.hpp
/// A fill-reducing pivot order for a saddle-point matrix [A B^T; B 0] that KLU can use without
/// its own maximum transversal, which is slow on the empty (2,2) block of a planar mesh of
/// loops (4.8 s per analysis of a 100 x 100 merged four-bar lattice, n = 61100). A matching of
/// B's rows to coordinates (btf_maxtrans on B alone) pairs each multiplier with a coordinate;
/// AMD orders the graph of the pairs and single coordinates. Measurements:
/// docs/dynamics-redundant.md.

#include <vector>

namespace catena {

/// The pivot order (KLU's P and Q, here equal: the k-th pivot is entry (P[k], Q[k])) of the
/// N x N matrix F in compressed columns (Ap, Ai), structurally symmetric, whose first n rows and
/// columns are the coordinates and the rest the multipliers with an empty (2,2) block. Each
/// multiplier comes right after a coordinate of its row (whose elimination fills its diagonal);
/// every coordinate's diagonal entry is in the pattern. Returns false, leaving P and Q empty,
/// when B has no full row matching, the (2,2) block has an entry or a coordinate has no
/// diagonal entry: the caller then lets KLU order F itself.
/// last (empty, or one flag per column of F): the flagged columns, with their pair partners, are
/// pivoted after all others (CAMD instead of AMD).
/// groups (empty, or one group number >= 0 per coordinate): coordinates pivoted together, in
/// index order, each group followed by the multipliers matched to its coordinates; AMD orders
/// the groups' graph. A multiplier whose equation holds only coordinates whose own equations
/// do not hold it (IDA's index-2 GGL matrix: C(q) = 0 holds positions, lambda enters the
/// velocities' equations) gets its diagonal filled only after a second coordinate: grouping a
/// body's positions and velocities provides it (IDA, 56 x 56 merged lattice: nnz(L + U) 9.6e6
/// by pairs, 6.1e6 by bodies, hand probes; docs/dynamics-ida.md).
bool saddlePointPivotOrder(int N, int n, const int* Ap, const int* Ai, std::vector<int>& P,
                           std::vector<int>& Q, const std::vector<char>& last = {},
                           const std::vector<int>& groups = {});

/// KLU's own analysis without its block triangular form, the flagged columns last, for F
/// structurally symmetric with sorted columns (a saddle-point block; another pattern gets a
/// valid order, CAMD's for its transpose's graph): a maximum
/// transversal of F (btf_maxtrans, at most maxwork nnz(F) of work; 0: unlimited) puts a
/// structural nonzero on every pivot, CAMD orders the matched pattern with the flagged unknowns
/// (last: one flag per row and column index of F) after all others. P[k], Q[k]: the row and
/// column of F pivoted at k (klu_analyze_given). False, leaving P and Q empty, when the
/// transversal is incomplete within maxwork.
bool matchedOrder(int N, const int* Ap, const int* Ai, const std::vector<char>& last,
                  double maxwork, std::vector<int>& P, std::vector<int>& Q);

/// A fill-reducing order (CAMD on the pattern of F + F^T) of the N x N matrix F in compressed
/// columns, the columns flagged in last (one flag per column) after all others. Throws
/// catena::Error if CAMD fails (invalid pattern).
std::vector<int> constrainedOrder(int N, const int* Ap, const int* Ai,
                                  const std::vector<char>& last);

}  // namespace catena
