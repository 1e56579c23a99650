#include "assembly/assemble.hpp"

#include <algorithm>
#include <tuple>

#include "kernels/body.hpp"
#include "kernels/forces.hpp"
#include "kernels/lock2.hpp"
#include "kernels/lock3.hpp"

namespace catena {
namespace {

using Long = long;  // OpenMP loop counter

// ---- writing into slots -------------------------------------------------------------------

/// Adds block rows [r0, r0+N) x cols [c0, c0+N) of a dense element matrix into a body block.
template <int N, typename Derived>
void addBlock(double* values, const BlockSlot& s, const Eigen::MatrixBase<Derived>& m, int r0,
              int c0) {
  if (s.base < 0) return;
  for (int a = 0; a < N; ++a) {
    double* row = values + s.base + a * s.stride;
    for (int c = 0; c < N; ++c) row[c] += m(r0 + a, c0 + c);
  }
}

/// Adds a two-body element matrix (2N x 2N, ordered body 1, body 2) into its four blocks.
template <int N, typename Derived>
void addPair(double* values, const PairSlots& p, const Eigen::MatrixBase<Derived>& m) {
  addBlock<N>(values, p.block[0], m, 0, 0);
  addBlock<N>(values, p.block[1], m, 0, N);
  addBlock<N>(values, p.block[2], m, N, 0);
  addBlock<N>(values, p.block[3], m, N, N);
}

/// Adds a two-body element vector (2N) into the global vector.
template <int N, typename Derived>
void addPairVector(const Model& model, const PairSlots& p, const Eigen::MatrixBase<Derived>& f,
                   VecX& out) {
  if (p.body1 >= 0) out.segment<N>(model.vOffset(p.body1)) += f.template segment<N>(0);
  if (p.body2 >= 0) out.segment<N>(model.vOffset(p.body2)) += f.template segment<N>(N);
}

/// Stores (bit i of `first` set: the block's first contribution) or adds a two-body element
/// matrix (2N x 2N) into its four blocks; see JointSlots::kc_first.
template <int N, typename Derived>
void storePair(double* values, const PairSlots& p, std::uint8_t first,
               const Eigen::MatrixBase<Derived>& m) {
  for (int i = 0; i < 4; ++i) {
    const BlockSlot& s = p.block[i];
    if (s.base < 0) continue;
    const int r0 = i < 2 ? 0 : N, c0 = i % 2 ? N : 0;
    for (int a = 0; a < N; ++a) {
      double* row = values + s.base + a * s.stride;
      if (first & (1u << i))
        for (int c = 0; c < N; ++c) row[c] = m(r0 + a, c0 + c);
      else
        for (int c = 0; c < N; ++c) row[c] += m(r0 + a, c0 + c);
    }
  }
}

/// 3x3 sub-block at `dst` (row stride `stride`) of a body block: store m (a block's first
/// contribution) or add it.
template <typename Derived>
void put3(double* dst, int stride, bool first, const Eigen::MatrixBase<Derived>& m) {
  for (int a = 0; a < 3; ++a, dst += stride)
    for (int c = 0; c < 3; ++c) dst[c] = first ? m(a, c) : dst[c] + m(a, c);
}

/// Zero sub-blocks (a block's first contribution must store them; adding them is a no-op).
void zero3(double* dst, int stride) {
  for (int a = 0; a < 3; ++a, dst += stride) dst[0] = dst[1] = dst[2] = 0.0;
}

/// K_c of a 3D lock from its nonzero blocks (LockStiffnessBlocks3) into the pair's four 6x6 body
/// blocks; sub-block (t, r) of a body block is translation rows / rotation columns.
void storeLockStiffness3(double* values, const PairSlots& p, std::uint8_t first,
                         const LockStiffnessBlocks3& K) {
  for (int i = 0; i < 4; ++i) {
    const BlockSlot& s = p.block[i];
    if (s.base < 0) continue;
    const bool f = first & (1u << i);
    double* tt = values + s.base;
    double* tr = tt + 3;
    double* rt = tt + 3 * s.stride;
    double* rr = rt + 3;
    if (f) zero3(tt, s.stride);
    switch (i) {
      case 0:  // (b1, b1)
        if (f) {
          zero3(tr, s.stride);
          zero3(rt, s.stride);
        }
        put3(rr, s.stride, f, K.T11);
        break;
      case 1:  // (b1, b2)
        if (f) zero3(rt, s.stride);
        put3(tr, s.stride, f, -K.X);
        put3(rr, s.stride, f, K.T12);
        break;
      case 2:  // (b2, b1)
        if (f) zero3(tr, s.stride);
        put3(rt, s.stride, f, -K.X.transpose());
        put3(rr, s.stride, f, K.T21);
        break;
      default:  // (b2, b2)
        put3(tr, s.stride, f, K.X);
        put3(rt, s.stride, f, K.X.transpose());
        put3(rr, s.stride, f, K.T22);
        break;
    }
  }
}

/// Writes the active rows of a joint's full Jacobian (R x 2N) into C_q.
template <int R, int N, typename Derived>
void writeJacobianRows(const JointSlots& js, const Eigen::MatrixBase<Derived>& full,
                       SparseMatrixCSR& Cq) {
  const RowMask mask = js.mask;
  const int* outer = Cq.outerIndexPtr();
  double* values = Cq.valuePtr();
  Index row = js.row;
  for (int r = 0; r < R; ++r) {
    if (!(mask & (1u << r))) continue;
    using RowN = Eigen::Map<Eigen::Matrix<double, 1, N>>;  // N contiguous values of the row
    double* dst = values + outer[row];
    if (js.col_offset1 >= 0) RowN(dst + js.col_offset1) = full.template block<1, N>(r, 0);
    if (js.col_offset2 >= 0) RowN(dst + js.col_offset2) = full.template block<1, N>(r, N);
    ++row;
  }
}

/// Writes the active rows of a joint's full row vector (R) into a global constraint vector.
template <int R, typename Derived>
void writeRows(const Model& model, Index j, const Eigen::MatrixBase<Derived>& full, VecX& out) {
  const RowMask mask = model.joints[j].mask;
  Index row = model.joint_row_offset[j];
  for (int r = 0; r < R; ++r)
    if (mask & (1u << r)) out(row++) = full(r);
}

/// Full-length multipliers of a joint: active rows from lambda, zero elsewhere.
template <int R>
Eigen::Matrix<double, R, 1> jointMultipliers(const JointSlots& js, const VecX& lambda) {
  Eigen::Matrix<double, R, 1> full = Eigen::Matrix<double, R, 1>::Zero();
  const RowMask mask = js.mask;
  Index row = js.row;
  for (int r = 0; r < R; ++r)
    if (mask & (1u << r)) full(r) = lambda(row++);
  return full;
}

/// Below these sizes a parallel region costs more than the work it shares (a 43-body chain
/// spent 40 % of its time integration in OpenMP start-up and barriers). The results do not
/// depend on it: every entry has one writer either way.
constexpr Long kParallelEntries = 1 << 14;  // value arrays
constexpr Long kParallelItems = 512;        // joints, bodies, forces

void zero(SparseMatrixCSR& A) {
  double* v = A.valuePtr();
  const Long n = A.nonZeros();
#pragma omp parallel for schedule(static) if (n >= kParallelEntries)
  for (Long i = 0; i < n; ++i) v[i] = 0.0;
}

/// Zeroes the blocks of K_c that no joint writes (the joints store or add all the others).
void zeroUnwritten(const Model& model, const AssemblyPlan& plan, SparseMatrixCSR& Kc) {
  double* v = Kc.valuePtr();
  const int nvb = model.nv_body;
  const Long n = static_cast<Long>(plan.kc_unwritten.size());
  if (n == 0) return;
#pragma omp parallel for schedule(static) if (n >= kParallelItems)
  for (Long i = 0; i < n; ++i) {
    const BlockSlot& s = plan.kc_unwritten[i];
    for (int a = 0; a < nvb; ++a) std::fill_n(v + s.base + a * s.stride, nvb, 0.0);
  }
}

// ---- per-joint evaluation ------------------------------------------------------------------

struct Lock3Eval {
  LockMotion3 motion;
  LockFrames3 frames;
};

Lock3Eval evalLock3(const Model& model, const AssemblyPlan& plan, Index j, const VecX& q,
                    double t) {
  const JointSlots& js = plan.joints[j];
  Lock3Eval e;  // the identity motion unless rheonomic: the Joint itself is not read
  if (js.rheonomic) e.motion = evaluateLockMotion3(model.joints[j].motion, t);
  e.frames = computeLockFrames3(bodyPose3(model, q.data(), js.pair.body1),
                                bodyPose3(model, q.data(), js.pair.body2), plan.markers[js.marker1],
                                plan.markers[js.marker2], e.motion);
  return e;
}

LockFrames2 evalLock2(const Model& model, const AssemblyPlan& plan, Index j, const VecX& q) {
  const JointSlots& js = plan.joints[j];
  return computeLockFrames2(bodyPose2(model, q.data(), js.pair.body1),
                            bodyPose2(model, q.data(), js.pair.body2), plan.markers[js.marker1],
                            plan.markers[js.marker2]);
}

DistanceFrames2 evalDistance2(const Model& model, const AssemblyPlan& plan, Index j,
                              const VecX& q) {
  const JointSlots& js = plan.joints[j];
  return computeDistanceFrames2(bodyPose2(model, q.data(), js.pair.body1),
                                bodyPose2(model, q.data(), js.pair.body2), plan.markers[js.marker1],
                                plan.markers[js.marker2]);
}

/// Joint j's residual rows into C, from its frames (one overload per joint kernel).
void writeResidual(const Model& model, Index j, const Lock3Eval& e, double /*t*/, VecX& C) {
  writeRows<6>(model, j, computeLockResidual3(e.frames, e.motion), C);
}
void writeResidual(const Model& model, Index j, const LockFrames2& k, double t, VecX& C) {
  writeRows<3>(model, j, computeLockResidual2(k, evaluateLockMotion2(model.joints[j].motion, t)),
               C);
}
void writeResidual(const Model& model, Index j, const DistanceFrames2& k, double t, VecX& C) {
  C(model.joint_row_offset[j]) = computeDistanceResidual2(k, model.joints[j].length.evaluate(t));
}

/// Constraint Jacobian, stiffness and/or residual of joint j from one evaluation of its frames
/// (the shared hot path); any of Cq, Kc, C may be null. add_kc: K_c's terms are added to Kc's
/// values (no block is a first contribution), else stored as JointSlots::kc_first says.
void jointJacobianAndStiffness(const Model& model, const AssemblyPlan& plan, Index j, const VecX& q,
                               double t, const VecX* lambda, SparseMatrixCSR* Cq,
                               SparseMatrixCSR* Kc, VecX* C = nullptr, bool add_kc = false) {
  const JointSlots& js = plan.joints[j];
  const std::uint8_t kc_first = add_kc ? 0 : js.kc_first;
  switch (model.jointKernel(j)) {
    case JointKernel::kLock3D: {
      if (Cq && Kc && !C) {  // the hot path: one kernel call shares the frames
        LockMotion3 motion;
        if (js.rheonomic) motion = evaluateLockMotion3(model.joints[j].motion, t);
        Mat6x12RowMajor J;
        LockStiffnessBlocks3 K;
        computeLockJacobianAndStiffness3(bodyPose3(model, q.data(), js.pair.body1),
                                         bodyPose3(model, q.data(), js.pair.body2),
                                         plan.markers[js.marker1], plan.markers[js.marker2], motion,
                                         jointMultipliers<6>(js, *lambda), J, K);
        writeJacobianRows<6, 6>(js, J, *Cq);
        storeLockStiffness3(Kc->valuePtr(), js.pair, kc_first, K);
        break;
      }
      const Lock3Eval e = evalLock3(model, plan, j, q, t);
      if (Cq) {
        Mat6x12 J;
        computeLockJacobian3(e.frames, e.motion, J);
        writeJacobianRows<6, 6>(js, J, *Cq);
      }
      if (Kc) {
        LockStiffnessBlocks3 K;
        computeLockStiffnessBlocks3(e.frames, e.motion, jointMultipliers<6>(js, *lambda), K);
        storeLockStiffness3(Kc->valuePtr(), js.pair, kc_first, K);
      }
      if (C) writeResidual(model, j, e, t, *C);
      break;
    }
    case JointKernel::kLock2D: {
      const LockFrames2 k = evalLock2(model, plan, j, q);
      if (Cq) {
        Mat3x6 J;
        computeLockJacobian2(k, J);
        writeJacobianRows<3, 3>(js, J, *Cq);
      }
      if (Kc) {
        Mat6_2 K;
        computeLockStiffness2(k, jointMultipliers<3>(js, *lambda), K);
        storePair<3>(Kc->valuePtr(), js.pair, kc_first, K);
      }
      if (C) writeResidual(model, j, k, t, *C);
      break;
    }
    case JointKernel::kDistance2D: {
      const DistanceFrames2 k = evalDistance2(model, plan, j, q);
      if (Cq) {
        Eigen::Matrix<double, 1, 6> J;
        computeDistanceJacobian2(k, J);
        writeJacobianRows<1, 3>(js, J, *Cq);
      }
      if (Kc) {
        Mat6_2 K;
        computeDistanceStiffness2(k, (*lambda)(js.row), K);
        storePair<3>(Kc->valuePtr(), js.pair, kc_first, K);
      }
      if (C) writeResidual(model, j, k, t, *C);
      break;
    }
  }
}

/// f(i) for i = 0..n-1, statically scheduled over the threads once n reaches kParallelItems.
template <typename F>
void forEachIndex(std::size_t count, F&& f) {
  const Long n = static_cast<Long>(count);
#pragma omp parallel for schedule(static) if (n >= kParallelItems)
  for (Long i = 0; i < n; ++i) f(static_cast<Index>(i));
}

template <typename F>
void forEachJoint(const Model& model, F&& f) {
  forEachIndex(model.joints.size(), f);
}

/// Joints colour by colour (one parallel region, a barrier between colours), the tiles of a
/// colour in parallel, the joints of a tile in order.
template <typename F>
void forEachJointColoured(const AssemblyPlan& plan, F&& f) {
  Long joints = 0;
  for (const std::vector<Index>& colour : plan.joint_colours)
    joints += static_cast<Long>(colour.size());
#pragma omp parallel if (joints >= kParallelItems)
  for (std::size_t c = 0; c < plan.joint_colours.size(); ++c) {
    const std::vector<Index>& joints = plan.joint_colours[c];
    const std::vector<Index>& tiles = plan.joint_colour_tiles[c];
    const Long n = static_cast<Long>(tiles.size()) - 1;
#pragma omp for schedule(static)
    for (Long t = 0; t < n; ++t)
      for (Index i = tiles[t]; i < tiles[t + 1]; ++i) f(joints[i]);
  }
}

template <typename F>
void forEachBody(const Model& model, F&& f) {
  forEachIndex(model.bodies.size(), f);
}

/// The poses and twists (p1, p2, t1, t2) of the two bodies of a pair force at (q, v), in
/// dimension D = 3 or 2.
template <int D>
auto pairState(const Model& model, const PairSlots& ps, const VecX& q, const VecX& v) {
  if constexpr (D == 3)
    return std::tuple{bodyPose3(model, q.data(), ps.body1), bodyPose3(model, q.data(), ps.body2),
                      bodyTwist3(model, v.data(), ps.body1), bodyTwist3(model, v.data(), ps.body2)};
  else
    return std::tuple{bodyPose2(model, q.data(), ps.body1), bodyPose2(model, q.data(), ps.body2),
                      bodyTwist2(model, v.data(), ps.body1), bodyTwist2(model, v.data(), ps.body2)};
}

/// A spring or rotational spring as the assembly loops see it.
struct PairForce {
  bool is_spring;  ///< a spring; else a rotational spring
  Index index;     ///< into springs or rotational_springs
  const PairSlots& slots;
  const MarkerFrame &f1, &f2;
};

/// The generalized force of pair force e at (q, v): 12 entries in 3D (D = 3), 6 in 2D.
template <int D>
auto pairForceVector(const Model& model, const PairForce& e, const VecX& q, const VecX& v) {
  const auto [p1, p2, t1, t2] = pairState<D>(model, e.slots, q, v);
  if constexpr (D == 3) {
    if (e.is_spring) return computeSpring3(model.springs[e.index], e.f1, e.f2, p1, t1, p2, t2);
    return computeRotationalSpring3(model.rotational_springs[e.index], e.f1, e.f2, p1, t1, p2, t2);
  } else {
    if (e.is_spring) return computeSpring2(model.springs[e.index], e.f1, e.f2, p1, t1, p2, t2);
    return computeRotationalSpring2(model.rotational_springs[e.index], e.f1, e.f2, p1, t1, p2, t2);
  }
}

/// Two-body forces colour by colour; f(PairForce).
template <typename F>
void forEachPairForceColoured(const Model& model, const AssemblyPlan& plan, F&& f) {
  const Index ns = static_cast<Index>(model.springs.size());
  auto visit = [&](bool is_spring, Index i) {
    const PairSlots& ps = is_spring ? plan.springs[i] : plan.rotational_springs[i];
    const Index m1 = is_spring ? model.springs[i].marker1 : model.rotational_springs[i].marker1;
    const Index m2 = is_spring ? model.springs[i].marker2 : model.rotational_springs[i].marker2;
    f(PairForce{is_spring, i, ps, plan.markers[m1], plan.markers[m2]});
  };
  for (const std::vector<Index>& colour : plan.force_colours) {
    const Long n = static_cast<Long>(colour.size());
#pragma omp parallel for schedule(static) if (n >= kParallelItems)
    for (Long i = 0; i < n; ++i) {
      const Index e = colour[i];
      if (e < ns)
        visit(true, e);
      else
        visit(false, e - ns);
    }
  }
}

/// C_q^T lambda (nv) joint by joint and, with C non-null, the residual C from the same frames.
void constraintForcesAndResidual(const Model& model, const AssemblyPlan& plan, const VecX& q,
                                 double t, const VecX& lambda, VecX& out, VecX* C) {
  out.setZero(model.nv);
  forEachJointColoured(plan, [&](Index j) {
    const JointSlots& js = plan.joints[j];
    switch (model.jointKernel(j)) {
      case JointKernel::kLock3D: {
        const Lock3Eval e = evalLock3(model, plan, j, q, t);
        const auto g = computeLockForces3(e.frames, e.motion, jointMultipliers<6>(js, lambda));
        addPairVector<6>(model, js.pair, g, out);
        if (C) writeResidual(model, j, e, t, *C);
        break;
      }
      case JointKernel::kLock2D: {
        const LockFrames2 k = evalLock2(model, plan, j, q);
        Mat3x6 J;
        computeLockJacobian2(k, J);
        const Vec6 g = J.transpose() * jointMultipliers<3>(js, lambda);
        addPairVector<3>(model, js.pair, g, out);
        if (C) writeResidual(model, j, k, t, *C);
        break;
      }
      case JointKernel::kDistance2D: {
        const DistanceFrames2 k = evalDistance2(model, plan, j, q);
        Eigen::Matrix<double, 1, 6> J;
        computeDistanceJacobian2(k, J);
        const Vec6 g = J.transpose() * lambda(model.joint_row_offset[j]);
        addPairVector<3>(model, js.pair, g, out);
        if (C) writeResidual(model, j, k, t, *C);
        break;
      }
    }
  });
}

}  // namespace

SparseMatrixCSR makeConstraintMatrix(const AssemblyPlan& plan) {
  return plan.cq_pattern;
}
SparseMatrixCSR makeBodyMatrix(const AssemblyPlan& plan) {
  return plan.body_pattern;
}

void assembleConstraints(const Model& model, const AssemblyPlan& plan, const VecX& q, double t,
                         VecX* C, SparseMatrixCSR* Cq) {
  forEachJoint(model, [&](Index j) {
    jointJacobianAndStiffness(model, plan, j, q, t, nullptr, Cq, nullptr, C);
  });
}

void assembleConstraintTimeDerivative(const Model& model, const AssemblyPlan& plan, const VecX& q,
                                      double t, VecX& Ct) {
  forEachJoint(model, [&](Index j) {
    switch (model.jointKernel(j)) {
      case JointKernel::kLock3D: {
        const Lock3Eval e = evalLock3(model, plan, j, q, t);
        writeRows<6>(model, j, computeLockTimeDerivative3(e.frames, e.motion), Ct);
        break;
      }
      case JointKernel::kLock2D:
        writeRows<3>(model, j,
                     computeLockTimeDerivative2(evaluateLockMotion2(model.joints[j].motion, t)),
                     Ct);
        break;
      case JointKernel::kDistance2D:
        Ct(model.joint_row_offset[j]) = -model.joints[j].length.evaluate(t).rate;
        break;
    }
  });
}

void velocityConstraints(const Model& model, const SparseMatrixCSR& Cq, const VecX& v,
                         const VecX& Ct, double* out) {
  const int* outer = Cq.outerIndexPtr();
  const int* inner = Cq.innerIndexPtr();
  const double* cq = Cq.valuePtr();
  for (Index j = 0; j < static_cast<Index>(model.joints.size()); ++j) {
    const Index b1 = model.markerBody(model.joints[j].marker1);
    for (Index r = model.joint_row_offset[j]; r < model.joint_row_offset[j + 1]; ++r) {
      double first = 0.0, second = 0.0;
      for (int k = outer[r]; k < outer[r + 1]; ++k)
        (inner[k] / model.nv_body == b1 ? first : second) += cq[k] * v(inner[k]);
      out[r] = (first + second) + Ct(r);
    }
  }
}

void assembleGamma(const Model& model, const AssemblyPlan& plan, const VecX& q, const VecX& v,
                   double t, VecX& gamma) {
  forEachJoint(model, [&](Index j) {
    const JointSlots& js = plan.joints[j];
    switch (model.jointKernel(j)) {
      case JointKernel::kLock3D: {
        const Lock3Eval e = evalLock3(model, plan, j, q, t);
        const Vec6 g =
            computeLockGamma3(e.frames, e.motion, bodyTwist3(model, v.data(), js.pair.body1),
                              bodyTwist3(model, v.data(), js.pair.body2));
        writeRows<6>(model, j, g, gamma);
        break;
      }
      case JointKernel::kLock2D: {
        const LockMotion2 mo = evaluateLockMotion2(model.joints[j].motion, t);
        const Vec3 g = computeLockGamma2(evalLock2(model, plan, j, q), mo,
                                         bodyTwist2(model, v.data(), js.pair.body1),
                                         bodyTwist2(model, v.data(), js.pair.body2));
        writeRows<3>(model, j, g, gamma);
        break;
      }
      case JointKernel::kDistance2D:
        gamma(model.joint_row_offset[j]) = computeDistanceGamma2(
            evalDistance2(model, plan, j, q), model.joints[j].length.evaluate(t),
            bodyTwist2(model, v.data(), js.pair.body1), bodyTwist2(model, v.data(), js.pair.body2));
        break;
    }
  });
}

void assembleConstraintStiffness(const Model& model, const AssemblyPlan& plan, const VecX& q,
                                 double t, const VecX& lambda, SparseMatrixCSR& Kc) {
  zeroUnwritten(model, plan, Kc);
  forEachJointColoured(plan, [&](Index j) {
    jointJacobianAndStiffness(model, plan, j, q, t, &lambda, nullptr, &Kc);
  });
}

void addConstraintStiffness(const Model& model, const AssemblyPlan& plan, const VecX& q, double t,
                            const VecX& lambda, SparseMatrixCSR& A) {
  forEachJointColoured(plan, [&](Index j) {
    jointJacobianAndStiffness(model, plan, j, q, t, &lambda, nullptr, &A, nullptr, true);
  });
}

void assembleConstraintJacobianAndStiffness(const Model& model, const AssemblyPlan& plan,
                                            const VecX& q, double t, const VecX& lambda,
                                            SparseMatrixCSR& Cq, SparseMatrixCSR& Kc) {
  zeroUnwritten(model, plan, Kc);
  forEachJointColoured(
      plan, [&](Index j) { jointJacobianAndStiffness(model, plan, j, q, t, &lambda, &Cq, &Kc); });
}

void assembleConstraintForces(const Model& model, const AssemblyPlan& plan, const VecX& q, double t,
                              const VecX& lambda, VecX& out) {
  constraintForcesAndResidual(model, plan, q, t, lambda, out, nullptr);
}

void assembleConstraintsAndForces(const Model& model, const AssemblyPlan& plan, const VecX& q,
                                  double t, const VecX& lambda, VecX& C, VecX& forces) {
  constraintForcesAndResidual(model, plan, q, t, lambda, forces, &C);
}

void assembleMass(const Model& model, const AssemblyPlan& plan, const VecX& q, SparseMatrixCSR& M) {
  zero(M);
  double* values = M.valuePtr();
  forEachBody(model, [&](Index b) {
    const Body& body = model.bodies[b];
    if (model.dimension == 3)
      addBlock<6>(values, plan.body_diagonal[b],
                  computeBodyMass3(body, pose3(q.data() + model.qOffset(b)).R), 0, 0);
    else
      addBlock<3>(values, plan.body_diagonal[b],
                  computeBodyMass2(body, pose2(q.data() + model.qOffset(b)).R), 0, 0);
  });
}

std::vector<std::uint8_t> massNonzero(const Model& model, const AssemblyPlan& plan) {
  const SparseMatrixCSR& P = plan.body_pattern;
  std::vector<std::uint8_t> flags(static_cast<std::size_t>(P.nonZeros()), 0);
  for (int r = 0; r < P.outerSize(); ++r)
    for (int k = P.outerIndexPtr()[r]; k < P.outerIndexPtr()[r + 1]; ++k)
      flags[k] = r / model.nv_body == P.innerIndexPtr()[k] / model.nv_body &&
                 (plan.body_nonzero.empty() || plan.body_nonzero[k]);
  return flags;
}

void assembleMassTimes(const Model& model, const VecX& q, const VecX& a, VecX& out) {
  out.resize(model.nv);
  forEachBody(model, [&](Index b) {
    const Body& body = model.bodies[b];
    const Index vo = model.vOffset(b);
    if (model.dimension == 3)
      out.segment<6>(vo) =
          computeBodyMassTimes3(body, pose3(q.data() + model.qOffset(b)).R, a.segment<6>(vo));
    else
      out.segment<3>(vo).noalias() =
          computeBodyMass2(body, pose2(q.data() + model.qOffset(b)).R) * a.segment<3>(vo);
  });
}

namespace {

/// f, or with kMagnitudes the sum of the magnitudes of the terms that make f up (entry by
/// entry: every element's contribution, gravity and inertial forces apart).
template <bool kMagnitudes>
void assembleForceTerms(const Model& model, const AssemblyPlan& plan, const VecX& q, const VecX& v,
                        double t, VecX& f) {
  auto term = [](const auto& x) {
    if constexpr (kMagnitudes)
      return x.cwiseAbs().eval();
    else
      return x.eval();
  };
  const bool d3 = model.dimension == 3;
  forEachBody(model, [&](Index b) {
    const Body& body = model.bodies[b];
    if (d3) {
      const Pose3 p = pose3(q.data() + model.qOffset(b));
      const Twist3 w = twist3(v.data() + model.vOffset(b));
      const Vec6 g = computeBodyGravity3(body, p.R, model.gravity),
                 i = computeBodyInertialForces3(body, p.R, w.w);
      if constexpr (kMagnitudes)
        f.segment<6>(model.vOffset(b)) = g.cwiseAbs() + i.cwiseAbs();
      else
        f.segment<6>(model.vOffset(b)) = g - i;
    } else {
      const Pose2 p = pose2(q.data() + model.qOffset(b));
      const Twist2 w = twist2(v.data() + model.vOffset(b));
      const Vec3 g = computeBodyGravity2(body, p.R, model.gravity.head<2>()),
                 i = computeBodyInertialForces2(body, p.R, w.w);
      if constexpr (kMagnitudes)
        f.segment<3>(model.vOffset(b)) = g.cwiseAbs() + i.cwiseAbs();
      else
        f.segment<3>(model.vOffset(b)) = g - i;
    }
  });
  forEachPairForceColoured(model, plan, [&](const PairForce& e) {
    if (d3)
      addPairVector<6>(model, e.slots, term(pairForceVector<3>(model, e, q, v)), f);
    else
      addPairVector<3>(model, e.slots, term(pairForceVector<2>(model, e, q, v)), f);
  });
  // Marker loads are few; a serial pass keeps their summation order fixed.
  for (const MarkerLoad& l : model.loads) {
    const Index b = model.markerBody(l.marker);
    if (d3)
      f.segment<6>(model.vOffset(b)) += term(
          computeMarkerLoad3(l, plan.markers[l.marker], pose3(q.data() + model.qOffset(b)), t));
    else
      f.segment<3>(model.vOffset(b)) += term(
          computeMarkerLoad2(l, plan.markers[l.marker], pose2(q.data() + model.qOffset(b)), t));
  }
}

}  // namespace

void assembleForces(const Model& model, const AssemblyPlan& plan, const VecX& q, const VecX& v,
                    double t, VecX& f) {
  assembleForceTerms<false>(model, plan, q, v, t, f);
}

void assembleForceMagnitudes(const Model& model, const AssemblyPlan& plan, const VecX& q,
                             const VecX& v, double t, VecX& f) {
  assembleForceTerms<true>(model, plan, q, v, t, f);
}

namespace {

/// K = -df/dq (+ d(M a)/dq) and, when D is not null, D = -df/dv: the two share the kernels' calls.
void forceJacobians(const Model& model, const AssemblyPlan& plan, const VecX& q, const VecX& v,
                    double t, const VecX* accel, SparseMatrixCSR& K, SparseMatrixCSR* D) {
  zero(K);
  if (D) zero(*D);
  double* kv = K.valuePtr();
  double* dv = D ? D->valuePtr() : nullptr;
  const bool d3 = model.dimension == 3;
  forEachBody(model, [&](Index b) {
    const Body& body = model.bodies[b];
    const BlockSlot& s = plan.body_diagonal[b];
    if (d3) {
      const Pose3 p = pose3(q.data() + model.qOffset(b));
      const Twist3 w = twist3(v.data() + model.vOffset(b));
      const Vec6 a = accel ? Vec6(accel->segment<6>(model.vOffset(b))) : Vec6::Zero();
      addBlock<6>(kv, s, computeBodyStiffness3(body, p.R, w.w, a, model.gravity), 0, 0);
      if (dv) addBlock<6>(dv, s, computeBodyInertialDamping3(body, p.R, w.w), 0, 0);
    } else {
      const Pose2 p = pose2(q.data() + model.qOffset(b));
      const Twist2 w = twist2(v.data() + model.vOffset(b));
      const Vec3 a = accel ? Vec3(accel->segment<3>(model.vOffset(b))) : Vec3::Zero();
      addBlock<3>(kv, s, computeBodyStiffness2(body, p.R, w.w, a, model.gravity.head<2>()), 0, 0);
      if (dv) addBlock<3>(dv, s, computeBodyInertialDamping2(body, p.R, w.w), 0, 0);
    }
  });
  forEachPairForceColoured(model, plan, [&](const PairForce& e) {
    if (d3) {
      const auto [p1, p2, t1, t2] = pairState<3>(model, e.slots, q, v);
      ForceJacobians3 J;
      if (e.is_spring)
        computeSpringJacobians3(model.springs[e.index], e.f1, e.f2, p1, t1, p2, t2, J);
      else
        computeRotationalSpringJacobians3(model.rotational_springs[e.index], e.f1, e.f2, p1, t1, p2,
                                          t2, J);
      addPair<6>(kv, e.slots, J.K);
      if (dv) addPair<6>(dv, e.slots, J.D);
    } else {
      const auto [p1, p2, t1, t2] = pairState<2>(model, e.slots, q, v);
      ForceJacobians2 J;
      if (e.is_spring)
        computeSpringJacobians2(model.springs[e.index], e.f1, e.f2, p1, t1, p2, t2, J);
      else
        computeRotationalSpringJacobians2(model.rotational_springs[e.index], J);
      addPair<3>(kv, e.slots, J.K);
      if (dv) addPair<3>(dv, e.slots, J.D);
    }
  });
  for (const MarkerLoad& l : model.loads) {
    const Index b = model.markerBody(l.marker);
    const BlockSlot& s = plan.body_diagonal[b];
    if (d3)
      addBlock<6>(kv, s,
                  computeMarkerLoadStiffness3(l, plan.markers[l.marker],
                                              pose3(q.data() + model.qOffset(b)), t),
                  0, 0);
    else
      addBlock<3>(kv, s,
                  computeMarkerLoadStiffness2(l, plan.markers[l.marker],
                                              pose2(q.data() + model.qOffset(b)), t),
                  0, 0);
  }
}

}  // namespace

void assembleForceJacobians(const Model& model, const AssemblyPlan& plan, const VecX& q,
                            const VecX& v, double t, const VecX* accel, SparseMatrixCSR& K,
                            SparseMatrixCSR& D) {
  forceJacobians(model, plan, q, v, t, accel, K, &D);
}

void assembleForceStiffness(const Model& model, const AssemblyPlan& plan, const VecX& q,
                            const VecX& v, double t, SparseMatrixCSR& K) {
  forceJacobians(model, plan, q, v, t, nullptr, K, nullptr);
}

}  // namespace catena
