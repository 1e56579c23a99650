#pragma once
/// @file plan.hpp
/// The assembly plan: the sparsity patterns of C_q (nc x nv) and of the body matrices M, D, K,
/// K_c (nv x nv, one shared block pattern), every element's slots in them, and a colouring of the
/// two-body elements. Built once per model (STYLE.md rule 5); assembly then only refills values.
/// Colours make the OpenMP refill deterministic: within a colour no two tiles (runs of
/// consecutive elements refilled in order by one thread; a tile is one element for forces)
/// touch the same body, and colours are processed in order, so every entry is summed in the same
/// order for any thread count.

#include <array>
#include <cstdint>
#include <vector>

#include <Eigen/SparseCore>

#include "kernels/pose.hpp"
#include "model/model.hpp"

namespace catena {

/// Compressed sparse row storage; the 32-bit index matches PETSc's PetscInt in Debian 12.
using SparseMatrixCSR = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

/// Where a block (b_i, b_j) of a body matrix lives: entry (a, c) is at values[base + a*stride + c].
struct BlockSlot {
  int base = -1;  ///< -1 when one side is the ground (nothing to write)
  int stride = 0;
};

/// Slots of a two-body element (joint or spring): blocks (1,1), (1,2), (2,1), (2,2).
struct PairSlots {
  Index body1 = kGround, body2 = kGround;
  std::array<BlockSlot, 4> block;
};

struct JointSlots {
  PairSlots pair;
  /// Offset, inside each of the joint's C_q rows, of body 1's and body 2's columns (-1: ground).
  int col_offset1 = -1, col_offset2 = -1;
  // Copies of the Joint fields the refill needs: the hot loop reads this compact record only,
  // not the much larger Joint (names, time functions).
  Index marker1 = -1, marker2 = -1;
  Index row = 0;           ///< first constraint row, model.joint_row_offset[j]
  RowMask mask = 0;        ///< active rows
  bool rheonomic = false;  ///< joint.motion.active
  /// Bit i set: pair.block[i] gets its first K_c contribution from this joint (in refill order),
  /// so the refill stores it instead of adding to a zeroed block.
  std::uint8_t kc_first = 0;
};

struct AssemblyPlan {
  std::vector<MarkerFrame> markers;  ///< marker frames precomputed from the model
  SparseMatrixCSR cq_pattern;        ///< nc x nv, zero values
  SparseMatrixCSR body_pattern;      ///< nv x nv, zero values: M, D, K, K_c share it
  /// One flag per body_pattern entry: 0 where M, D, K and K_c are zero in every configuration
  /// (in 3D, half of a coupling block made by joints alone: LockStiffnessBlocks3). A
  /// factorization may leave these entries out (docs/dynamics-generalized-alpha.md, "Entries
  /// that are always zero are not factored", has the measured gain).
  std::vector<std::uint8_t> body_nonzero;
  std::vector<JointSlots> joints;
  std::vector<PairSlots> springs, rotational_springs;
  std::vector<BlockSlot> body_diagonal;  ///< block (b, b)
  /// Joint indices per colour, tile by tile. A tile is a run of consecutive joints (up to 64)
  /// refilled in order by one thread, so the body blocks its joints share stay in cache.
  std::vector<std::vector<Index>> joint_colours;
  /// Per colour, where each tile starts in joint_colours[c] (tiles + 1 entries).
  std::vector<std::vector<Index>> joint_colour_tiles;
  /// Blocks of body_pattern that no joint writes (bodies without joints, couplings by forces
  /// only): the only part of K_c that a refill has to zero.
  std::vector<BlockSlot> kc_unwritten;
  /// Two-body forces per colour: index i < springs.size() is a spring, else a rotational spring.
  std::vector<std::vector<Index>> force_colours;
};

/// Cost O(nnz log) once per model. joints_in_order: one colour, one tile, so that every entry
/// sums its joints' terms in joint order, whatever other joints the model holds (a rank's halo,
/// model/model_part.hpp: the same bits on any rank count); the joints' refill is then serial.
AssemblyPlan buildAssemblyPlan(const Model& model, bool joints_in_order = false);

}  // namespace catena
