#include "parallel/reproducible_sum.hpp"

#include <limits>

namespace catena::reproducible {

Scale globalScale(MPI_Comm comm, double local_max_abs, double local_plain_sum,
                  bool local_nonfinite) {
  // One reduction for both: the largest |term| and the non-finite flag (MPI_MAX is exact).
  double local[2] = {local_nonfinite ? 0.0 : local_max_abs, local_nonfinite ? 1.0 : 0.0};
  double global[2] = {0.0, 0.0};
  MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, comm);
  Scale s;
  if (global[1] > 0.0 || global[0] >= 0x1p1023) {
    s.plain = true;
    MPI_Allreduce(&local_plain_sum, &s.plain_sum, 1, MPI_DOUBLE, MPI_SUM, comm);
    return s;
  }
  if (global[0] == 0.0) return s;
  int e = 0;
  std::frexp(global[0], &e);  // max = m 2^e, 0.5 <= m < 1: max < 2^e
  s.scale = std::ldexp(1.0, std::max(e, -960));
  return s;
}

double finish(MPI_Comm comm, const Pieces& p, double scale) {
  Pieces total{};
  MPI_Allreduce(p.data(), total.data(), static_cast<int>(p.size()), MPI_INT64_T, MPI_SUM, comm);
  // One fixed expression of the exact integer sums: the same bits on every rank and rank count.
  const double sum = static_cast<double>(total[0]) * 0x1p-32 +
                     static_cast<double>(total[1]) * 0x1p-64 +
                     static_cast<double>(total[2]) * 0x1p-96;
  return sum * scale;
}

}  // namespace catena::reproducible
