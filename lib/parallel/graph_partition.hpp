#pragma once
/// @file graph_partition.hpp
/// A graph partition of the bodies of a model across the ranks of PETSC_COMM_WORLD, through
/// PETSc's MatPartitioning (PT-Scotch in Debian's PETSc: ParMETIS is not packaged), and the
/// renumbering it implies: the bodies of rank r get the global indices after those of ranks
/// 0..r-1, in their natural order, so every rank owns a contiguous range as ModelPart requires
/// (model/model_part.hpp). The graph is given by callbacks on natural indices and never exists
/// whole on one rank: rank r describes the natural slice contiguousRange(n, r, size).
/// On one rank the partition is the identity. Collective; PETSc must be initialized.

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace catena {

class GraphPartition {
 public:
  /// n vertices (natural indices 0..n-1); neighbours(v): the vertices adjacent to v (not v
  /// itself; the relation must be symmetric); weight(v) >= 1: v's share of the work. The
  /// partitioner is MatPartitioning's type, PT-Scotch unless the options database says
  /// otherwise under `prefix` (e.g. -lattice_mat_partitioning_type average).
  GraphPartition(Index n, const std::function<std::vector<Index>(Index)>& neighbours,
                 const std::function<int(Index)>& weight, const std::string& prefix = "");
  ~GraphPartition();
  GraphPartition(const GraphPartition&) = delete;
  GraphPartition& operator=(const GraphPartition&) = delete;

  /// Natural indices of this rank's vertices, in the new global order (ascending).
  const std::vector<Index>& owned() const { return owned_; }
  /// New global index of owned()[0].
  Index first() const { return first_; }
  /// New global indices of the given natural vertices (owned by any rank). Collective.
  std::vector<Index> renumber(std::span<const Index> natural) const;
  /// The partitioner used ("ptscotch", ...; "none" on one rank).
  const std::string& method() const { return method_; }

 private:
  struct Petsc;  // PETSc objects stay out of this header
  std::unique_ptr<Petsc> petsc_;
  std::vector<Index> owned_;
  Index first_ = 0;
  std::string method_;
};

}  // namespace catena
