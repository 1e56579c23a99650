#include "analysis/mpi_space.hpp"

#include <mpi.h>
#include <petscsys.h>

#include <algorithm>

#include "analysis/scales.hpp"
#include "model/state.hpp"
#include "solvers/distributed_saddle_point.hpp"

namespace catena {

MpiSpace::MpiSpace(DistributedAssembly& as, const SaddlePointSolverOptions& linear)
    : as_(as), dm_(as.distributedModel()), linear_(linear) {
  if (linear_.method == SaddlePointSolverOptions::Method::kSchur && !linear_.schur_moved)
    linear_.schur_moved = std::make_shared<std::vector<char>>();
}

std::vector<RankedText> MpiSpace::largest(std::vector<RankedText> local, int count) const {
  return largestOverRanks(std::move(local), count);
}

std::vector<RankedText> largestOverRanks(std::vector<RankedText> local, int count) {
  // Every rank's entries, in rank order, as values and NUL-terminated texts.
  std::vector<double> values;
  std::string texts;
  for (const RankedText& r : local) {
    values.push_back(r.value);
    texts += r.text;
    texts.push_back('\0');
  }
  int p = 1;
  MPI_Comm_size(PETSC_COMM_WORLD, &p);
  const auto gather = [&](const auto& mine, auto& all, MPI_Datatype type) {
    int n = static_cast<int>(mine.size());
    std::vector<int> counts(p), displs(p, 0);
    MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, PETSC_COMM_WORLD);
    for (int r = 1; r < p; ++r) displs[r] = displs[r - 1] + counts[r - 1];
    all.resize(static_cast<std::size_t>(displs[p - 1] + counts[p - 1]));
    MPI_Allgatherv(mine.data(), n, type, all.data(), counts.data(), displs.data(), type,
                   PETSC_COMM_WORLD);
  };
  std::vector<double> all_values;
  std::string all_texts;
  gather(values, all_values, MPI_DOUBLE);
  gather(texts, all_texts, MPI_CHAR);
  std::vector<RankedText> all(all_values.size());
  std::size_t at = 0;
  for (std::size_t k = 0; k < all.size(); ++k) {
    all[k].value = all_values[k];
    all[k].text = all_texts.c_str() + at;
    at += all[k].text.size() + 1;
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const RankedText& a, const RankedText& b) { return a.value > b.value; });
  all.resize(std::min<std::size_t>(all.size(), static_cast<std::size_t>(std::max(count, 0))));
  return all;
}

double MpiSpace::lengthScale() const {
  return distributedLengthScale(dm_);
}

double distributedLengthScale(const DistributedModel& dm) {
  // analysis/scales.hpp's lengthScale over the ranks: the bodies' start positions and the ground
  // markers (each held by one part) about their centroid.
  const Model& m = dm.local();
  std::vector<Vec3> points;
  for (Index b = 0; b < dm.part().owned_bodies; ++b) points.push_back(m.bodies[b].position);
  for (const Marker& k : m.markers)
    if (k.body == kGround) points.push_back(k.position);
  const double count = dm.sum(static_cast<double>(points.size()));
  if (count == 0.0) return 1.0;
  Vec3 c = Vec3::Zero();
  for (const Vec3& x : points) c += x;
  c = dm.sum(c) / count;
  double r = 0.0;
  for (const Vec3& x : points) r = std::max(r, (x - c).norm());
  r = dm.max(r);
  return r > 0.0 ? r : 1.0;
}

void MpiSpace::constraintForces(const VecX& lambda, VecX& cforce, VecX& terms) {
  as_.constraintForces(lambda, cforce);
  terms = forceTermMagnitudes(as_.localForceMagnitudes(), as_.localCq(), lambda);
  dm_.addGhostsToOwners(terms);
  terms.conservativeResize(dm_.ownedVelocities());
}

double MpiSpace::assembleTangent(const VecX& q, double t, const VecX& lambda, bool with_kc) {
  as_.assembleTangent(q, t, lambda, with_kc);
  return as_.maxAbsTangent();
}

std::unique_ptr<KktSolver> MpiSpace::kktSolver(const std::string& prefix) const {
  return std::make_unique<DistributedSaddlePoint>(dm_, as_.localTangent(), as_.localCq(), prefix,
                                                  linear_, as_.plan().body_nonzero);
}

void MpiSpace::applyVariation(const VecX& dq, double alpha, VecX& q) const {
  VecX full = VecX::Zero(dm_.local().nv);
  full.head(dq.size()) = dq;
  catena::applyVariation(dm_.local(), full, alpha, q);
  dm_.updateGhosts(q);
}

}  // namespace catena
