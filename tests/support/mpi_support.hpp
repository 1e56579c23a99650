#pragma once
/// @file mpi_support.hpp
/// Rank, size and reductions over MPI_COMM_WORLD for the MPI tests (every check is reduced
/// first, so all ranks pass or fail together and never leave one another waiting), and the
/// catenary chain of N links whole and as this rank's part.
#include <mpi.h>

#include "core/types.hpp"
#include "model/generators.hpp"

namespace catena::test {

inline int worldRank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int worldSize() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}
inline double allMax(double x) {
  double y = 0.0;
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return y;
}
inline double allSum(double x) {
  double y = 0.0;
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return y;
}

inline Vec3 allSum(const Vec3& x) {
  Vec3 y;
  MPI_Allreduce(x.data(), y.data(), 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return y;
}

inline ModelPart chainPart(int N) {
  CatenaryChainOptions o;
  o.links = N;
  return buildCatenaryChainPart(o, worldRank(), worldSize());
}
inline Model wholeChain(int N) {
  CatenaryChainOptions o;
  o.links = N;
  return buildCatenaryChain(o);
}

}  // namespace catena::test
