#include "mobility/independent_rows.hpp"

#include <Eigen/QR>
#include <Eigen/SparseCholesky>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"
#include "core/check.hpp"
#include "mobility/block_tree.hpp"
#include "mobility/blockwise_rank.hpp"
#include "mobility/constraint_rank.hpp"
#include "mobility/row_combinations.hpp"

namespace catena {

IndependentRows withoutRows(const Model& model, std::vector<Index> rows) {
  std::sort(rows.begin(), rows.end());
  IndependentRows out;
  Model m = model;
  for (Index row : rows) {
    CATENA_CHECK(row >= 0 && row < model.nc, "withoutRows: row " << row
                                                                 << " is not a constraint row (0.."
                                                                 << model.nc - 1 << ")");
    RowMask& mask = m.joints[model.jointOfRow(row)].mask;
    mask = static_cast<RowMask>(mask & ~(1u << model.rowAxis(row)));
    out.dropped_names.push_back(model.rowName(row));
  }
  out.dropped = rows;
  // Leaving rows out keeps the order of the others: the kept rows are the rest, ascending.
  for (Index row = 0, d = 0; row < model.nc; ++row) {
    if (d < static_cast<Index>(rows.size()) && rows[d] == row)
      ++d;
    else
      out.kept.push_back(row);
  }
  std::erase_if(m.joints, [](const Joint& J) { return J.mask == 0; });  // joints left without rows
  m.countRows();
  out.model = std::move(m);
  return out;
}

IndependentRows independentRows(const Model& model, const AssemblyPlan& plan, const VecX& q,
                                double t, Index dense_limit) {
  if (model.nv <= dense_limit)
    return withoutRows(model, analyzeConstraintRank(model, plan, q, t).redundantRows());
  SparseMatrixCSR Cq = makeConstraintMatrix(plan);
  assembleConstraints(model, plan, q, t, nullptr, &Cq);
  IndependentRows out =
      withoutRows(model, analyzeBlockwiseRank(model, Cq, blockTreeForModel(model)).redundant_rows);
  if (!out.dropped.empty()) out.supports = supportsOnLoops(model, Cq, out.kept, out.dropped);
  return out;
}

VecX minimumNormMultipliers(const Model& model, const AssemblyPlan& plan,
                            const IndependentRows& rows, const VecX& q, double t,
                            const VecX& lambda_r, Index dense_limit) {
  SparseMatrixCSR Cq = makeConstraintMatrix(plan);
  assembleConstraints(model, plan, q, t, nullptr, &Cq);
  VecX padded = VecX::Zero(model.nc);
  for (std::size_t r = 0; r < rows.kept.size(); ++r) padded[rows.kept[r]] = lambda_r[r];
  if (rows.dropped.empty()) return padded;
  if (model.nv <= dense_limit) {
    // SuiteSparseQR's minimum-norm solve assumes full row rank, which C_q^T lacks here.
    const VecX force = Cq.transpose() * padded;  // C_qr^T lambda_r
    Eigen::CompleteOrthogonalDecomposition<MatX> cod(MatX(Cq).transpose());
    cod.setThreshold(kDefaultRankTolerance);
    return cod.solve(force);
  }
  // The rows left out as combinations of the kept ones, C_qr^T c_d = C_q(d, :)^T, each on its
  // own loop's rows (row_combinations.hpp).
  const Eigen::SparseMatrix<double> c =
      combinationsOfKeptRows(Cq, rows.kept, rows.dropped, &rows.supports).c;
  // W (m x d): column j is e_{dropped j} - sum_k c(k, j) e_{kept k}; C_q^T W = 0.
  std::vector<Eigen::Triplet<double>> w;
  for (std::size_t j = 0; j < rows.dropped.size(); ++j)
    w.emplace_back(static_cast<int>(rows.dropped[j]), static_cast<int>(j), 1.0);
  for (int j = 0; j < c.outerSize(); ++j)
    for (Eigen::SparseMatrix<double>::InnerIterator it(c, j); it; ++it)
      w.emplace_back(static_cast<int>(rows.kept[it.row()]), j, -it.value());
  Eigen::SparseMatrix<double> W(model.nc, static_cast<Index>(rows.dropped.size()));
  W.setFromTriplets(w.begin(), w.end());
  const Eigen::SparseMatrix<double> G = W.transpose() * W;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(G);
  CATENA_CHECK(ldlt.info() == Eigen::Success,
               "minimum-norm multipliers: W^T W could not be factored");
  const VecX z = ldlt.solve(VecX(W.transpose() * padded));
  return padded - W * z;
}

RedundancyWatch::RedundancyWatch(const Model& model, const AssemblyPlan& plan,
                                 const IndependentRows& rows)
    : model_(model),
      plan_(plan),
      selection_(rows),
      C_(model.nc),
      length_scale_(lengthScale(model)) {}

bool RedundancyWatch::holds(const State& s) {
  if (!status_.ok()) return false;
  assembleConstraints(model_, plan_, s.q, s.t, &C_, nullptr);
  double kept = 0.0, dropped = 0.0;
  for (Index row : selection_.kept) kept = std::max(kept, std::abs(C_[row]));
  for (Index row : selection_.dropped) dropped = std::max(dropped, std::abs(C_[row]));
  if (dropped <= 100.0 * kept + 1e-8 * length_scale_) return true;
  std::ostringstream os;
  os << "the constraint rows left out as redundant at the start are no longer satisfied at t = "
     << s.t << " s (|C| = " << dropped << " m against " << kept
     << " m on the kept rows): they are not redundant there (the start, or this point, is a "
        "singular configuration), and the motion after it would be another mechanism's. "
        "--formulation mcs integrates through rank changes";
  status_ = Status::failure(Status::Code::kNotConverged, os.str());
  for (std::size_t k = 0; k < selection_.dropped.size() && k < 5; ++k) {
    std::ostringstream r;
    r << selection_.dropped_names[k] << ": " << C_[selection_.dropped[k]];
    rows_.push_back(r.str());
  }
  return false;
}

}  // namespace catena
