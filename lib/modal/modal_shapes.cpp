// Classification and check values of the modes of the one modal analysis (modal_system.hpp):
// sums over the owned bodies, reduced over the system's communicator.
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "modal/modal_system.hpp"

namespace catena {

Vec3 planeNormal(const ModalSystem& sys) {
  const Model& m = *sys.model;
  if (m.dimension == 2) return Vec3::UnitZ();
  double nb = static_cast<double>(sys.owned_bodies);
  sumAll(sys.comm, &nb, 1);
  if (nb < 3) return Vec3::Zero();
  Vec3 c = Vec3::Zero();
  for (Index b = 0; b < sys.owned_bodies; ++b) c += sys.q->segment<3>(m.qOffset(b));
  sumAll(sys.comm, c.data(), 3);
  c /= nb;
  Mat3 cov = Mat3::Zero();
  for (Index b = 0; b < sys.owned_bodies; ++b) {
    const Vec3 d = sys.q->segment<3>(m.qOffset(b)) - c;
    cov += d * d.transpose();
  }
  sumAll(sys.comm, cov.data(), 9);
  Eigen::SelfAdjointEigenSolver<Mat3> es(cov);
  const Vec3 ev = es.eigenvalues();  // ascending
  if (ev(0) > 1e-6 * ev(2)) return Vec3::Zero();
  return es.eigenvectors().col(0);
}

void classify(const ModalSystem& sys, const Vec3& normal, Mode& mode) {
  const Model& m = *sys.model;
  const int nvb = m.nv_body, nt = m.dimension;  // translation entries per body
  const Index nb = sys.owned_bodies;
  // A damped mode's shape is complex, in the phase the eigensolver chose: the classification
  // reads both parts (the real part alone was round-off for a pendulum's mode whose phase put
  // its motion in the imaginary part, and named it after the wrong axis).
  const bool complex = mode.shape_im.size() == mode.shape_re.size();
  auto translation = [&](const VecX& shape, Index b) {
    Vec3 t = Vec3::Zero();
    for (int k = 0; k < nt; ++k) t(k) = shape(b * nvb + k);
    return t;
  };
  Mat3 energy = Mat3::Zero();  // the real part of sum m t t^H
  for (Index b = 0; b < nb; ++b) {
    const Vec3 t = translation(mode.shape_re, b);
    energy += m.bodies[b].mass * t * t.transpose();
    if (!complex) continue;
    const Vec3 u = translation(mode.shape_im, b);
    energy += m.bodies[b].mass * u * u.transpose();
  }
  sumAll(sys.comm, energy.data(), 9);
  const double total = energy.trace();
  if (total <= 0.0) {
    mode.direction = "rotation";
    return;
  }
  // Reference direction: in-plane components are measured along the dominant in-plane axis.
  Vec3 axis;
  if (normal.squaredNorm() > 0.0 && m.dimension == 3) {
    const double out = normal.dot(energy * normal) / total;
    if (out >= 0.5) {
      mode.direction = "out-of-plane";
      axis = normal;
    } else {
      mode.direction = "in-plane";
      const Mat3 P = Mat3::Identity() - normal * normal.transpose();
      Eigen::SelfAdjointEigenSolver<Mat3> es(P * energy * P);
      axis = es.eigenvectors().col(2);
    }
  } else {
    Eigen::SelfAdjointEigenSolver<Mat3> es(energy);
    axis = es.eigenvectors().col(2);
    Eigen::Index k;
    axis.cwiseAbs().maxCoeff(&k);
    mode.direction = std::string(1, "xyz"[k]);
  }
  // The component along the axis at the phase where it is largest (theta = arg(sum a_b^2) / 2
  // for the complex components a_b; a real mode keeps its own), and its sign changes, ignoring
  // bodies that barely move: within this process's bodies, then across the boundaries between
  // processes, in rank order.
  double phase[2] = {0.0, 0.0};  // sum a_b^2, real and imaginary parts
  for (Index b = 0; b < nb && complex; ++b) {
    const double re = axis.dot(translation(mode.shape_re, b)),
                 im = axis.dot(translation(mode.shape_im, b));
    phase[0] += re * re - im * im;
    phase[1] += 2.0 * re * im;
  }
  sumAll(sys.comm, phase, 2);
  const double theta = 0.5 * std::atan2(phase[1], phase[0]);
  auto along = [&](Index b) {
    const double re = axis.dot(translation(mode.shape_re, b));
    return complex
               ? std::cos(theta) * re + std::sin(theta) * axis.dot(translation(mode.shape_im, b))
               : re;
  };
  double largest = 0.0;
  for (Index b = 0; b < nb; ++b) largest = std::max(largest, std::abs(along(b)));
  MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_DOUBLE, MPI_MAX, sys.comm);
  int local[3] = {0, 0, 0};  // first sign, last sign, sign changes
  for (Index b = 0; b < nb; ++b) {
    const double c = along(b);
    if (std::abs(c) < 0.05 * largest) continue;
    const int sc = c > 0.0 ? 1 : -1;
    if (local[1] != 0 && sc != local[1]) ++local[2];
    if (local[0] == 0) local[0] = sc;
    local[1] = sc;
  }
  int size = 1;
  MPI_Comm_size(sys.comm, &size);
  std::vector<int> all(3 * static_cast<std::size_t>(size));
  MPI_Allgather(local, 3, MPI_INT, all.data(), 3, MPI_INT, sys.comm);
  int sign = 0;
  mode.nodes = 0;
  for (int r = 0; r < size; ++r) {
    const int* x = &all[3 * static_cast<std::size_t>(r)];
    if (x[0] == 0) continue;
    if (sign != 0 && x[0] != sign) ++mode.nodes;
    mode.nodes += x[2];
    sign = x[1];
  }
}

void checkValues(const ModalSystem& sys, const VecC& phi, const VecC& mphi, const double norms[4],
                 Mode& mode) {
  const Model& m = *sys.model;
  const int nvb = m.nv_body, nt = m.dimension;
  // One reduction: kinetic energy by coordinate, M phi summed by direction (complex), norms.
  std::vector<double> sums(nvb + 6 + 4, 0.0);
  double* energy = sums.data();
  double* momentum = energy + nvb;
  for (Index r = 0; r < phi.size(); ++r) {
    const int c = static_cast<int>(r % nvb);
    energy[c] += (std::conj(phi(r)) * mphi(r)).real();
    if (c < nt) {
      momentum[2 * c] += mphi(r).real();
      momentum[2 * c + 1] += mphi(r).imag();
    }
  }
  std::copy_n(norms, 4, momentum + 6);
  sumAll(sys.comm, sums.data(), static_cast<int>(sums.size()));
  const double* n = momentum + 6;
  const double kinetic = std::accumulate(energy, energy + nvb, 0.0);
  const double scale = std::sqrt(n[2]) + std::abs(mode.eigenvalue) * std::sqrt(n[3]);
  mode.force_residual = scale > 0.0 ? std::sqrt(n[0]) / scale : INFINITY;
  mode.constraint_residual = scale > 0.0 ? std::sqrt(n[1]) / scale : INFINITY;
  if (kinetic > 0.0) {
    for (int c = 0; c < nvb; ++c) mode.energy_fractions(c < nt ? c : 3) += energy[c] / kinetic;
    for (int d = 0; d < nt; ++d)
      mode.effective_mass(d) =
          (momentum[2 * d] * momentum[2 * d] + momentum[2 * d + 1] * momentum[2 * d + 1]) / kinetic;
  }
  // Re phi mass-normalized; the largest entry (lowest global index on ties) positive.
  struct {
    double value;
    int index;
  } local{0.0, 0}, largest{0.0, 0};
  for (Index k = 0; k < phi.size(); ++k)
    if (std::abs(phi(k).real()) > local.value)
      local = {std::abs(phi(k).real()), static_cast<int>(sys.first_velocity + k)};
  if (local.value == 0.0) local.index = static_cast<int>(sys.global_nv);
  MPI_Allreduce(&local, &largest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, sys.comm);
  const Index at = largest.index - sys.first_velocity;
  double pivot = at >= 0 && at < phi.size() ? phi(at).real() : 0.0;
  sumAll(sys.comm, &pivot, 1);
  const double norm = kinetic > 0.0 ? std::sqrt(kinetic) : 1.0;
  mode.mass_normalized = (pivot < 0.0 ? -1.0 : 1.0) / norm * phi.real();
}

}  // namespace catena
