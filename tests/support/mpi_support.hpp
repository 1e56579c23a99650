#pragma once
/// @file mpi_support.hpp
/// Rank, size and reductions over MPI_COMM_WORLD for the MPI tests: every check is reduced
/// first, so all ranks pass or fail together and never leave one another waiting.
#include <mpi.h>

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

}  // namespace catena::test
