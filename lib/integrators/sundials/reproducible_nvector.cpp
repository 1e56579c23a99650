#include "integrators/sundials/reproducible_nvector.hpp"

#include <nvector/nvector_parallel.h>

#include <cmath>

#include "parallel/reproducible_sum.hpp"

namespace catena::sundials {
namespace {

MPI_Comm comm(N_Vector v) {
  return NV_COMM_P(v);
}
Index localLength(N_Vector v) {
  return static_cast<Index>(NV_LOCLENGTH_P(v));
}
const double* data(N_Vector v) {
  return NV_DATA_P(v);
}

realtype dotProduct(N_Vector x, N_Vector y) {
  const double *a = data(x), *b = data(y);
  return reproducibleSum(comm(x), localLength(x), [a, b](Index i) { return a[i] * b[i]; });
}

realtype weightedSquares(N_Vector x, N_Vector w) {
  const double *a = data(x), *b = data(w);
  return reproducibleSum(comm(x), localLength(x), [a, b](Index i) {
    const double p = a[i] * b[i];
    return p * p;
  });
}

realtype wrmsNorm(N_Vector x, N_Vector w) {
  return std::sqrt(weightedSquares(x, w) / static_cast<double>(NV_GLOBLENGTH_P(x)));
}

realtype wrmsNormMask(N_Vector x, N_Vector w, N_Vector id) {
  const double *a = data(x), *b = data(w), *m = data(id);
  const double sum = reproducibleSum(comm(x), localLength(x), [a, b, m](Index i) {
    const double p = m[i] > 0.0 ? a[i] * b[i] : 0.0;
    return p * p;
  });
  return std::sqrt(sum / static_cast<double>(NV_GLOBLENGTH_P(x)));
}

realtype wl2Norm(N_Vector x, N_Vector w) {
  return std::sqrt(weightedSquares(x, w));
}

realtype l1Norm(N_Vector x) {
  const double* a = data(x);
  return reproducibleSum(comm(x), localLength(x), [a](Index i) { return std::abs(a[i]); });
}

}  // namespace

Vector reproducibleVector(MPI_Comm comm, Index local, Index global, const Context& ctx) {
  if (!ctx.ok()) return nullptr;
  Vector v(N_VNew_Parallel(comm, local, global, ctx.get()));
  if (v) useReproducibleReductions(v.get());
  return v;
}

void useReproducibleReductions(N_Vector v) {
  v->ops->nvdotprod = dotProduct;
  v->ops->nvwrmsnorm = wrmsNorm;
  v->ops->nvwrmsnormmask = wrmsNormMask;
  v->ops->nvwl2norm = wl2Norm;
  v->ops->nvl1norm = l1Norm;
  v->ops->nvdotprodmulti = nullptr;
  v->ops->nvwrmsnormvectorarray = nullptr;
  v->ops->nvwrmsnormmaskvectorarray = nullptr;
  // The local kernels and the single-buffer reduction are for MPIManyVector and the
  // SUNDIALS-internal fused paths; without them nothing can sum in the plain order.
  v->ops->nvdotprodlocal = nullptr;
  v->ops->nvwsqrsumlocal = nullptr;
  v->ops->nvwsqrsummasklocal = nullptr;
  v->ops->nvl1normlocal = nullptr;
  v->ops->nvdotprodmultilocal = nullptr;
  v->ops->nvdotprodmultiallreduce = nullptr;
}

}  // namespace catena::sundials
