#include "mobility/independent_rows.hpp"

#include <Eigen/QR>

#include <algorithm>

#include "assembly/assemble.hpp"
#include "core/check.hpp"
#include "mobility/block_tree.hpp"
#include "mobility/blockwise_rank.hpp"
#include "mobility/constraint_rank.hpp"

namespace catena {

IndependentRows withoutRows(const Model& model, std::vector<Index> rows) {
  std::sort(rows.begin(), rows.end());
  IndependentRows out;
  Model m = model;
  for (Index row : rows) {
    CATENA_CHECK(row >= 0 && row < model.nc, "withoutRows: row " << row
                                                                 << " is not a constraint row (0.."
                                                                 << model.nc - 1 << ")");
    const Index j = model.jointOfRow(row);
    int k = static_cast<int>(row - model.joint_row_offset[j]);  // k-th active row of joint j
    int axis = 0;
    for (; axis < model.rows_per_joint; ++axis)
      if ((model.joints[j].mask & (1u << axis)) && k-- == 0) break;
    m.joints[j].mask = static_cast<RowMask>(m.joints[j].mask & ~(1u << axis));
    out.dropped_names.push_back(model.rowName(row));
  }
  out.dropped = rows;
  // Kept rows in order; joints left without rows go.
  std::vector<Joint> joints;
  for (std::size_t j = 0; j < m.joints.size(); ++j) {
    const RowMask before = model.joints[j].mask, after = m.joints[j].mask;
    int k = 0;
    for (int axis = 0; axis < model.rows_per_joint; ++axis) {
      if (!(before & (1u << axis))) continue;
      if (after & (1u << axis)) out.kept.push_back(model.joint_row_offset[j] + k);
      ++k;
    }
    if (after != 0) joints.push_back(m.joints[j]);
  }
  m.joints = std::move(joints);
  m.joint_row_offset.assign(m.joints.size() + 1, 0);
  for (std::size_t j = 0; j < m.joints.size(); ++j)
    m.joint_row_offset[j + 1] = m.joint_row_offset[j] + activeRowCount(m.joints[j].mask);
  m.nc = m.joint_row_offset.back();
  out.model = std::move(m);
  return out;
}

IndependentRows independentRows(const Model& model, const AssemblyPlan& plan, const VecX& q,
                                double t, Index dense_limit) {
  if (model.nv <= dense_limit)
    return withoutRows(model, analyzeConstraintRank(model, plan, q, t).redundantRows());
  return withoutRows(
      model, analyzeBlockwiseRank(model, plan, q, t, blockTreeForModel(model)).redundant_rows);
}

VecX minimumNormMultipliers(const Model& model, const AssemblyPlan& plan,
                            const IndependentRows& rows, const VecX& q, double t,
                            const VecX& lambda_r) {
  SparseMatrixCSR Cq = makeConstraintMatrix(plan);
  assembleConstraints(model, plan, q, t, nullptr, &Cq);
  VecX lambda = VecX::Zero(model.nc);
  for (std::size_t r = 0; r < rows.kept.size(); ++r) lambda[rows.kept[r]] = lambda_r[r];
  const VecX force = Cq.transpose() * lambda;  // C_qr^T lambda_r
  // Dense complete orthogonal decomposition of C_q^T with the rank threshold of the selection:
  // SuiteSparseQR's minimum-norm solve assumes full row rank, which C_q^T lacks here.
  Eigen::CompleteOrthogonalDecomposition<MatX> cod(MatX(Cq).transpose());
  cod.setThreshold(kDefaultRankTolerance);
  return cod.solve(force);
}

}  // namespace catena
