#pragma once
/// @file multibody_dae.hpp
/// The multibody equations of motion as the implicit DAE F(t, y, y') = 0 that IDA integrates,
/// in the three formulations of integrators/ida_dynamics.hpp, with the analytic Newton (iteration)
/// matrix J = dF/dy + c_j dF/dy' refilled in place into a sparse pattern fixed at construction.
/// No SUNDIALS here: integrators/serial_ida_system.cpp adapts it,
/// tests/unit/analysis/ida_jacobian_test.cpp checks J against finite differences of F. Equations
/// and blocks: docs/dynamics-ida.md.
///
/// Unknowns y = (q, v, lambda, mu, nu), each block contiguous (mu only for GGL, nu only in 3D):
/// q holds per 3D body r and a quaternion rho = (s, x) that need not be unit; every kernel sees
/// rho / |rho|. nu (one per 3D body) is the multiplier of |rho|^2 - 1 = 0. Equations, in the
/// same block order:
///   F_q = q' - N(q) u - nu rho     u = v (index 3, 1) or v - C_q^T mu (GGL);
///                                  N: r' = u_lin, rho' = 1/2 rho (x) (0, u_rot); 2D: q' = u
///   F_v = M v' + C_q^T lambda - f
///   F_c = C (index 3, GGL)  or  C_q v' - gamma (index 1)
///   F_g = C_q v + C_t (GGL)
///   F_n = |rho|^2 - 1
/// Derivatives with respect to q go through the variation map: a function of rho / |rho| varies
/// by theta = H(rho) d rho, H(rho) = 2 / |rho|^2 [-x, s I - x~] (3 x 4), so d(.)/dq =
/// (velocity-space derivative) H, body by body (identity for positions and in 2D).

#include <vector>

#include "assembly/plan.hpp"
#include "formulations/mixed_basis/dae_formulation.hpp"
#include "model/state.hpp"

namespace catena {

struct DaeLayout {
  Index q = 0, v = 0, lambda = 0, mu = 0, nu = 0;  ///< first entry of each block in y and F
  Index nq = 0, nv = 0, nc = 0, nmu = 0, nnu = 0;  ///< block sizes
  Index size = 0;
};

class MultibodyDae {
 public:
  /// Builds the Newton-matrix pattern (cost O(nnz log nnz), once). model and plan must outlive
  /// the object.
  ///
  /// own_bodies (the model part of one rank, integrators/distributed_dynamics.hpp): only bodies
  /// [0, own_bodies) contribute their own terms. The rows F_q, F_v of the other (ghost) bodies
  /// hold only what the model's joints put there, N(q) C_q^T mu in F_q and C_q^T lambda in F_v,
  /// with their derivatives; the ghost bodies' q', v', nu and f are not read, their v enters the
  /// joints' rows only, and their norm rows F_n are zero. The rank that owns a ghost body adds
  /// these rows to its own. -1 (default): every body, the whole model. Not with kIndex1.
  MultibodyDae(const Model& model, const AssemblyPlan& plan, IdaFormulation formulation,
               Index own_bodies = -1);

  const DaeLayout& layout() const { return layout_; }
  IdaFormulation formulation() const { return formulation_; }

  /// F(t, y, y') (layout().size entries each). No allocation.
  void residual(double t, const double* y, const double* yp, double* F);
  /// J = dF/dy + cj dF/dy', refilled in place (no allocation); the returned matrix keeps its
  /// pattern for the life of the object.
  const SparseMatrixCSR& newtonMatrix(double t, const double* y, const double* yp, double cj);
  const SparseMatrixCSR& jacobian() const { return J_; }
  /// Largest diagonal entry of M at the last newtonMatrix() (kg or kg m^2): a scale for the
  /// multipliers' corrections.
  double massScale() const { return mass_scale_; }

  /// IDA's id vector: 1 for the unknowns in the error test (q; v except in index 3), 0 else.
  VecX errorTestIds() const;
  /// y and y' of a state with known dv/dt: mu = nu = 0, q' = N(q) v, lambda' = 0.
  void pack(const State& s, const VecX& vdot, VecX& y, VecX& yp) const;
  /// q (quaternions normalized), v, lambda of y at time t.
  void unpack(double t, const double* y, State& s) const;

 private:
  using Mat34 = Eigen::Matrix<double, 3, 4>;
  void load(const double* y, const double* yp);
  template <class Adder>
  void fill(Adder& a, double cj);
  template <class Adder>
  void addThroughH(Adder& a, const SparseMatrixCSR& X, Index row, double scale) const;
  template <class Adder>
  void addTransposedCq(Adder& a, Index row, Index col0, double scale) const;

  const Model& m_;
  const AssemblyPlan& plan_;
  IdaFormulation formulation_;
  DaeLayout layout_;
  bool d3_;
  Index own_bodies_ = 0, own_nv_ = 0;  ///< bodies with their own terms, their velocities
  // Current unknowns, quaternions normalized in qh_.
  VecX qh_, v_, vd_, lambda_, mu_, nu_;
  std::vector<Vec4> rho_;  ///< quaternion of each 3D body as IDA holds it (not normalized)
  std::vector<Mat34> H_;   ///< variation map per 3D body
  // Workspace (velocity space, assembly patterns).
  VecX C_, Ct_, f_, gamma_, u_;
  SparseMatrixCSR Cq_, Kc_, Kmu_, K_, D_, M_;
  SparseMatrixCSR Aq_;        ///< index 1: d(C_q v')/dq;  GGL: d(C_q v + C_t)/dq
  SparseMatrixCSR Gq_, Gv_;   ///< index 1: d gamma/dq, d gamma/dv
  SparseMatrixCSR CqT_;       ///< pattern of C_q^T; values unused
  std::vector<int> cqt_src_;  ///< CqT_ entry k is Cq_ value cqt_src_[k]
  SparseMatrixCSR J_;
  std::vector<int> colpos_;  ///< scatter map of one row of J_ during a refill
  double mass_scale_ = 1.0;
};

}  // namespace catena
