#include "parallel/distributed_model.hpp"

#include <petscsys.h>

#include "core/check.hpp"

namespace catena {
namespace {

/// Sum of x over the lower ranks (0 on rank 0) and over all ranks.
std::pair<long, long> exclusiveAndTotal(long x) {
  long below = 0, total = 0;
  MPI_Exscan(&x, &below, 1, MPI_LONG, MPI_SUM, PETSC_COMM_WORLD);
  MPI_Allreduce(&x, &total, 1, MPI_LONG, MPI_SUM, PETSC_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  return {rank == 0 ? 0 : below, total};  // MPI_Exscan leaves rank 0's result undefined
}

}  // namespace

DistributedModel::DistributedModel(const ModelPart& part) : part_(part) {
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank_);
  MPI_Comm_size(PETSC_COMM_WORLD, &size_);
  const Model& m = part.model;
  const Index local_bodies = static_cast<Index>(m.bodies.size());
  CATENA_CHECK(part.owned_bodies >= 1 &&
                   part.owned_bodies + static_cast<Index>(part.ghost_bodies.size()) == local_bodies,
               "rank " << rank_ << ": a model part needs at least one owned body and as many local "
                       << "bodies as owned plus ghost bodies");
  const auto [body_below, body_total] = exclusiveAndTotal(part.owned_bodies);
  const auto [joint_below, joint_total] = exclusiveAndTotal(static_cast<long>(m.joints.size()));
  CATENA_CHECK(body_below == part.first_body && body_total == part.global_bodies &&
                   joint_below == part.first_joint && joint_total == part.global_joints,
               "rank " << rank_ << ": the model parts do not tile the global bodies and joints "
                       << "in rank order (owned bodies from " << part.first_body << ", lower ranks "
                       << "own " << body_below << "; joints from " << part.first_joint
                       << ", lower ranks own " << joint_below << ")");
  for (std::size_t j = 0; j < m.joints.size(); ++j) {
    const Index holder = holdingBody(m, static_cast<Index>(j));
    CATENA_CHECK(holder >= 0 && holder < part.owned_bodies,
                 "rank " << rank_ << ": joint '" << m.joints[j].name
                         << "' is owned by the rank of its holding body (body 1, or body 2 where "
                            "body 1 is the ground), which must be an owned body");
  }
  CATENA_CHECK(m.springs.empty() && m.rotational_springs.empty(),
               "distributed models do not take spring-dampers yet (docs/parallel.md)");
  for (const MarkerLoad& l : m.loads)
    CATENA_CHECK(m.markerBody(l.marker) < part.owned_bodies,
                 "rank " << rank_ << ": load '" << l.name << "' must act on an owned body");
  const auto [row_below, row_total] = exclusiveAndTotal(m.nc);
  first_row_ = static_cast<Index>(row_below);
  global_nc_ = static_cast<Index>(row_total);
  const int nvb = m.nv_body;
  global_velocity_.resize(m.nv);
  for (Index b = 0; b < local_bodies; ++b)
    for (int c = 0; c < nvb; ++c) global_velocity_[b * nvb + c] = part.globalBody(b) * nvb + c;
  positions_ = std::make_unique<GhostExchange>(m.nq_body, part.owned_bodies, part.ghost_bodies);
  velocities_ = std::make_unique<GhostExchange>(nvb, part.owned_bodies, part.ghost_bodies);
}

void DistributedModel::updateGhosts(VecX& q) const {
  CATENA_CHECK(q.size() == local().nq, "updateGhosts: q has " << q.size() << " entries, the local "
                                                              << "model " << local().nq);
  positions_->update(q.data());
}

void DistributedModel::addGhostsToOwners(VecX& v) const {
  CATENA_CHECK(v.size() == local().nv, "addGhostsToOwners: v has " << v.size()
                                                                   << " entries, the local model "
                                                                   << local().nv);
  velocities_->accumulate(v.data());
}

double DistributedModel::sum(double x) const {
  double y = 0.0;
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD);
  return y;
}

double DistributedModel::max(double x) const {
  double y = 0.0;
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
  return y;
}

double DistributedModel::maxAbs(const VecX& x) const {
  return max(x.size() ? x.cwiseAbs().maxCoeff() : 0.0);
}

Vec3 DistributedModel::sum(const Vec3& x) const {
  Vec3 y;
  MPI_Allreduce(x.data(), y.data(), 3, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD);
  return y;
}

}  // namespace catena
