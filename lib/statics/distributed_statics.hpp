#pragma once
/// @file distributed_statics.hpp
/// Static equilibrium of a DistributedModel: the Newton iteration of statics/statics.hpp (same
/// residual, tangent [K + K_c, C_q^T; C_q, 0] with the same constraint scaling, least-squares
/// start of the multipliers, Deuflhard's natural monotonicity test, same tolerances), with the
/// global norms and maxima reduced over the ranks and the saddle-point system assembled into one
/// MatMPIAIJ and solved by KSP preonly + LU with MUMPS (options under StaticsOptions::
/// petsc_prefix, e.g. -statics_pc_factor_mat_solver_type superlu_dist), or iteratively by an
/// augmented Lagrangian with PCFIELDSPLIT (SaddlePointSolverOptions). Results equal the serial
/// solveStatics to round-off for any rank count (the iterative solver: to its tolerance).
/// Collective.
///
/// Saddle-point numbering (independent of the rank count): body by body, a body's velocity
/// coordinates followed by the rows of the joints it holds as body 1 (in joint order); a rank
/// owns the contiguous range of its bodies.

#include <string>
#include <vector>

#include "analysis/reactions.hpp"
#include "statics/statics.hpp"
#include "parallel/distributed_assembly.hpp"

namespace catena {

/// Wall seconds of this rank in the phases of solveDistributedStatics (MPI_Wtime). The phases
/// are collective, so the ranks' times differ only by load imbalance and waiting.
struct DistributedStaticsTimings {
  double setup = 0.0;          ///< saddle-point patterns, COO preallocation, KSP set-up
  double assembly = 0.0;       ///< residuals, C, C_q, f, tangents (assembly + PETSc refill)
  double factorization = 0.0;  ///< numeric LU (MUMPS: analysis and factorization)
  double solve = 0.0;          ///< triangular solves
};

/// How the distributed statics solves its saddle-point systems
/// (solvers/distributed_saddle_point.hpp).
struct SaddlePointSolverOptions {
  enum class Method {
    kDirect,  ///< KSP preonly + LU (MUMPS unless the PETSc options say otherwise)
    /// FGMRES on the saddle-point system, preconditioned through the augmented system
    /// [A + gamma (s B)^T (s B), s B^T; s B, 0] by PCFIELDSPLIT Schur: CG + additive Schwarz
    /// (a Cholesky factor per rank, overlap 4) on the velocity block, the Schur complement by
    /// -(1/gamma) I. No factor of the whole system: for runs whose direct factor does not fit.
    kAugmentedLagrangian,
  };
  Method method = Method::kDirect;
  /// gamma max|A| (dimensionless). Larger: fewer FGMRES iterations but a stiffer velocity
  /// block; 1e6 measured best on chains and lattices in hand runs with block Jacobi on the
  /// velocity block (1e4 and 1e8 stalled on a 50 x 50 lattice); not re-tuned for the ASM default.
  double augmentation = 1e6;
  /// The largest gamma of the multipliers' least-squares system [I, B^T; B, 0], tried from
  /// `augmentation` up 1000-fold at a time while FGMRES does not converge: its Schur complement
  /// B B^T spans ~N^2 on an N-link chain (5-7 iterations at 2e5 links with 1e12).
  double least_squares_augmentation = 1e12;
  double relative_tolerance = 1e-10;  ///< FGMRES: unpreconditioned residual / right-hand side
  int max_iterations = 200;           ///< FGMRES iterations per solve
  int restart = 30;                   ///< FGMRES restart (memory: restart + 1 vectors)
};

struct DistributedStaticsResult {
  Status status;  ///< the same on every rank
  VecX q;         ///< local positions (owned bodies, then ghosts): equilibrium or last iterate
  VecX lambda;    ///< owned multipliers
  std::vector<StaticsIteration> history;
  double force_scale = 1.0, length_scale = 1.0;
  std::string linear_solver;  ///< factorization package, or "fieldsplit-al"
  int factorizations = 0, solves = 0;
  long krylov_iterations = 0;  ///< FGMRES iterations over all solves (direct: one per solve)
  DistributedStaticsTimings timings;
};

/// Starts from the local model's initial state (every part describes its bodies' start).
DistributedStaticsResult solveDistributedStatics(DistributedAssembly& assembly,
                                                 const StaticsOptions& options = {},
                                                 const SaddlePointSolverOptions& linear = {});

/// Lowest height (along -gravity; z without gravity) of the markers on the bodies, minimum over
/// the ranks (a chain's sag below its supports at z = 0 is minus this). Collective.
double lowestMarkerHeight(const DistributedModel& dm, const VecX& q);

/// Reaction of the joint with global index `joint` (analysis/reactions.hpp), on every rank.
/// Collective.
JointReaction distributedJointReaction(const DistributedAssembly& assembly, const VecX& q, double t,
                                       const VecX& lambda, Index joint);

}  // namespace catena
