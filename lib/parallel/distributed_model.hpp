#pragma once
/// @file distributed_model.hpp
/// A model partitioned across the ranks of PETSC_COMM_WORLD (docs/parallel.md): the rank's
/// ModelPart, the global numbering, and the ghost exchange of body positions.
///
/// Numbering (independent of the rank count; on one rank, that of the whole Model):
///   - body b has velocity coordinates [nv_body b, nv_body (b + 1)) and position coordinates
///     [nq_body b, nq_body (b + 1)); a rank owns those of its bodies, a contiguous range;
///   - constraint rows follow the global joint order; a rank owns the rows of its joints, a
///     contiguous range starting at firstRow() (the rows of the joints of the lower ranks).
/// Local vectors are in the local model's layout: positions q (local nq: owned bodies, then
/// ghosts), multipliers lambda (local nc: all owned), velocity-space vectors of owned entries.
/// Collective construction; PETSc must be initialized (parallel/petsc_session.hpp).

#include <memory>
#include <vector>

#include "model/model_part.hpp"
#include "parallel/ghost_exchange.hpp"

namespace catena {

class DistributedModel {
 public:
  /// Keeps a reference to part. Checks that the parts of all ranks tile the global bodies and
  /// joints in rank order and that every joint's holding body (holdingBody) is owned. Collective.
  explicit DistributedModel(const ModelPart& part);

  const ModelPart& part() const { return part_; }
  const Model& local() const { return part_.model; }
  int rank() const { return rank_; }
  int size() const { return size_; }

  Index globalNv() const { return part_.global_bodies * local().nv_body; }
  Index globalNq() const { return part_.global_bodies * local().nq_body; }
  Index globalNc() const { return global_nc_; }
  Index firstVelocity() const { return part_.first_body * local().nv_body; }
  Index ownedVelocities() const { return part_.owned_bodies * local().nv_body; }
  Index ownedPositions() const { return part_.owned_bodies * local().nq_body; }
  Index firstRow() const { return first_row_; }
  Index ownedRows() const { return local().nc; }
  /// Global velocity index of every local velocity coordinate (owned, then ghosts).
  const std::vector<Index>& globalVelocity() const { return global_velocity_; }

  /// Copies the owners' positions into the ghost bodies' slots of q (local nq). Collective.
  void updateGhosts(VecX& q) const;

  /// v: a local velocity-space vector (local nv: owned bodies, then ghosts). Adds the ghost
  /// bodies' entries into their owners' entries on the other ranks (a reverse ghost update);
  /// the ghost entries are left as they were. Collective.
  void addGhostsToOwners(VecX& v) const;

  /// Sum and maximum over the ranks. Collective.
  double sum(double x) const;
  double max(double x) const;
  /// Largest |x_i| over every rank's entries of x (0 if all are empty). Collective.
  double maxAbs(const VecX& x) const;
  Vec3 sum(const Vec3& x) const;

 private:
  const ModelPart& part_;
  int rank_ = 0, size_ = 1;
  Index global_nc_ = 0, first_row_ = 0;
  std::vector<Index> global_velocity_;
  std::unique_ptr<GhostExchange> positions_, velocities_;
};

}  // namespace catena
