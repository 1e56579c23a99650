#pragma once
/// @file kkt_solver.hpp
/// The one interface of catena's saddle-point (KKT) solvers,
///   [ A     s B^T ] [x  ]   [f  ]
///   [ s B   0     ] [y/s] = [s g],   A: the body block (n x n), B: the constraint block (m x n),
/// where s > 0 scales the constraint rows and columns so that the pivots do not depend on units
/// (x, y and the right-hand side are unscaled). A and B are a rank's local matrices in the
/// assembly patterns (assembly/plan.hpp); f, x have the rank's owned body entries, g, y its
/// owned rows. Implementations: SaddlePointSolver (one process: KLU or any PETSc LU,
/// solvers/saddle_point.hpp) and DistributedSaddlePoint (MPI: MUMPS or an augmented
/// Lagrangian, solvers/distributed_saddle_point.hpp). Every call is collective in the latter.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "assembly/plan.hpp"
#include "core/status.hpp"
#include "core/types.hpp"

namespace catena {

/// Sizes and costs of a Schur-complement decomposition (solvers/schur_decomposition.hpp), this
/// rank's share; the seconds marked CPU are its own work, also where ranks share cores.
struct SchurStats {
  long interior = 0;               ///< unknowns of this rank's interior blocks
  long boundary = 0;               ///< this rank's interface unknowns
  long interface_total = 0;        ///< size of S (all ranks)
  long window = 0;                 ///< most trailing pivots one interface column touched
  long factor_nonzeros = 0;        ///< nnz(L) + nnz(U) of the blocks' last factorizations
  double analysis_seconds = 0.0;   ///< analyses (pattern split, orderings), CPU s (cumulative)
  double interior_seconds = 0.0;   ///< KLU factorizations of the blocks, CPU s (cumulative)
  double schur_seconds = 0.0;      ///< this rank's parts of S, CPU s (cumulative)
  double interface_seconds = 0.0;  ///< S's factorizations (gather included), wall s (cumulative)
  /// S's factorizations on this rank, CPU s (cumulative; the gathered KLU's only, -dd_interface
  /// klu: its local work, the gather left out).
  double interface_cpu_seconds = 0.0;
  int parts = 0;         ///< interior blocks per rank (-PREFIXdd_parts); 0: none ran
  long moved = 0;        ///< interior unknowns moved to the interface (singular blocks)
  long refinements = 0;  ///< iterative-refinement steps of solves (cumulative)
  /// The largest backward error |b - K x| / (|K| |x| + |b|) (max norms) of a solve before its
  /// refinement: the direct solve's own accuracy, which refinement would hide.
  double unrefined_backward_error = 0.0;
  /// Fill-reducing orderings of interior blocks computed (cumulative; an analysis after moved
  /// rows that kept the blocks' last order computes none).
  long orderings = 0;
  /// Interior-block factorizations with new pivots (partial pivoting) and refactorizations that
  /// kept the last pivots, summed over this rank's blocks (cumulative).
  long full_factorizations = 0;
  long refactorizations = 0;
  /// Solves whose refinement could not reach its bound with kept pivots, factored anew and
  /// solved again (cumulative).
  long repivoted_solves = 0;
};

/// total += next, for the solvers of one analysis one after the other: the sizes are next's
/// (the last solver's), counts and seconds summed. No effect if next did not run (parts 0).
inline void addSchurStats(SchurStats& total, const SchurStats& next) {
  if (next.parts == 0) return;
  const SchurStats sum = total;
  total = next;
  total.analysis_seconds += sum.analysis_seconds;
  total.interior_seconds += sum.interior_seconds;
  total.schur_seconds += sum.schur_seconds;
  total.interface_seconds += sum.interface_seconds;
  total.interface_cpu_seconds += sum.interface_cpu_seconds;
  total.moved += sum.moved;
  total.refinements += sum.refinements;
  total.unrefined_backward_error =
      std::max(total.unrefined_backward_error, sum.unrefined_backward_error);
  total.orderings += sum.orderings;
  total.full_factorizations += sum.full_factorizations;
  total.refactorizations += sum.refactorizations;
  total.repivoted_solves += sum.repivoted_solves;
}

/// Cost of the linear algebra of one solver object (wall seconds, steady clock).
struct SaddlePointStats {
  int factorizations = 0;       ///< numeric factorizations (the first also runs the analysis)
  int solves = 0;               ///< forward/backward substitutions
  double factor_seconds = 0.0;  ///< in factor(): value copy, analysis (once) and factorization
  double solve_seconds = 0.0;   ///< in solve()
  long krylov_iterations = 0;   ///< iterative methods: Krylov iterations; direct: one per solve
  SchurStats schur;             ///< the Schur-complement decomposition's, if it solved the systems
};

/// How a distributed saddle-point system is solved (one process always factors directly).
struct SaddlePointSolverOptions {
  enum class Method {
    kDirect,  ///< KSP preonly + LU (MUMPS unless the PETSc options say otherwise)
    /// FGMRES preconditioned through the augmented system [A + gamma (s B)^T (s B), s B^T;
    /// s B, 0] by PCFIELDSPLIT Schur (solvers/distributed_saddle_point.hpp): no factor of the
    /// whole system, for runs whose direct factor does not fit.
    kAugmentedLagrangian,
    /// Schur-complement domain decomposition over the ranks' interfaces: KLU on each rank's
    /// interior, MUMPS on the small interface system (solvers/schur_decomposition.hpp).
    kSchur,
  };
  Method method = Method::kDirect;
  double augmentation = 1e6;  ///< gamma max|A| (dimensionless); docs/parallel.md on its choice
  /// The largest gamma max|A| of the multipliers' least-squares system, tried from
  /// `augmentation` up 1000-fold at a time while FGMRES does not converge.
  double least_squares_augmentation = 1e12;
  double relative_tolerance = 1e-10;  ///< FGMRES: unpreconditioned residual / right-hand side
  int max_iterations = 200;           ///< FGMRES iterations per solve
  int restart = 30;                   ///< FGMRES restart (memory: restart + 1 vectors)
  /// kSchur: the owned rows moved to the interface so far, shared by the solvers of one analysis
  /// (the multipliers' estimate and Newton meet the same pinned blocks; made by MpiSpace).
  std::shared_ptr<std::vector<char>> schur_moved;
};

class KktSolver {
 public:
  virtual ~KktSolver() = default;

  /// Takes the values of A and B (the construction's patterns) and factors the system scaled by
  /// s. a_max: max |a_ij| of the assembled A over all ranks (iterative methods scale their
  /// augmentation by it; 0: unknown). Failure: kSingular or kResources with the package's
  /// diagnosis.
  virtual Status factor(const SparseMatrixCSR& A, const SparseMatrixCSR& B, double s,
                        double a_max = 0.0) = 0;
  /// x (owned body entries), y (owned rows) with the last factorization. Failure: a singular
  /// factor or an iterative solve that did not converge.
  virtual Status solve(const VecX& f, const VecX& g, VecX& x, VecX& y) = 0;
  /// The multipliers y that balance f in the least-squares sense, y = (B B^T)^-1 B f, from
  /// [I, B^T; B, 0] [x; y] = [f; 0]. I: the identity on the owned entries in A's pattern. Leaves
  /// the solver factored with that system.
  virtual Status leastSquaresMultipliers(const SparseMatrixCSR& I, const SparseMatrixCSR& B,
                                         const VecX& f, VecX& y) {
    Status st = factor(I, B, 1.0, 1.0);
    VecX x;
    if (st.ok()) st = solve(f, VecX::Zero(B.rows()), x, y);
    return st;
  }

  /// The next factor() starts afresh, as a new solver of the same patterns would: new pivots,
  /// and a new analysis wherever a package fixes one from the values it first saw (MUMPS'
  /// scaling and ordering); what depends on the patterns only (KLU's orderings, the Schur
  /// decomposition's interfaces) is kept. For a caller that first solves another matrix of the
  /// same patterns (statics' least-squares multipliers) and wants no trace of it in the
  /// factorizations that follow, without a second solver: same results, one analysis.
  virtual void forgetAnalysis() = 0;

  /// "klu", "mumps", ..., "fieldsplit-al": what solves the systems.
  virtual std::string package() const = 0;
  /// Counts and times since construction.
  virtual SaddlePointStats stats() const = 0;
};

}  // namespace catena
