#define BOOST_TEST_MODULE ida_linear_solver
// IDA's Newton systems solved by SUNDIALS' KLU (IdaLinearSolver::kKlu) and through PETSc
// (kPetsc: PETSc's KLU by default, and MUMPS through the options database), on the spatial
// pendulum and the spatial slider-crank, in the three formulations (integrators/ida_dynamics.hpp,
// docs/dynamics-ida.md "Linear solvers"). Both solvers see the same column-scaled matrix; their
// solves differ by round-off (normwise backward errors <= 7e-13 in every solve of these runs,
// for all three, measured).
//
// What "agree" can mean: IDA's step-size and order choices read error estimates, differences of
// nearly equal numbers, in which round-off is amplified; after a few dozen steps (20-110 here)
// one choice differs, and from then on the runs differ by the integration error itself (up to
// 5e-2 of the length scale for index 3 on the slider-crank at rtol 1e-8, 7e-5 for GGL). So:
//
// 1. Over the first 15 steps (5-7 factorizations, 22-25 solves), where IDA must make the same
//    choices (the step times agree to 1e-9 of the step), the states agree in IDA's own Newton norm
//    (the weighted max norm, weights 1/(rtol |y_i| + atol_i), times h and h^2 for index-3 v and
//    lambda) to 1e-3. IDA accepts a Newton iterate once its correction is below 0.33 in that
//    norm, so 1e-3 is 300x finer than anything Newton could absorb; round-off alone gives at
//    most 3.2e-5 (measured 2026-11-26: MUMPS, index 1, slider-crank). Mutating the adapter shows
//    what it catches: solutions off by 1e-3 relative in every solve give 6e-3 to 1.6 or other step
//    times; leaving the column scale out gives 4e-3 to 33 or other step times, except index 1 on
//    the spatial pendulum (2e-4).
// 2. Over the whole run (2 s, 2,300-4,500 steps, 240-650 factorizations), every run reaches the
//    end and conserves energy as well as the KLU runs do: relative to the largest kinetic
//    energy, at most 1e-5 for GGL and index 1 and 2e-3 for index 3 (measured 2026-11-26, all
//    three solvers: <= 1.5e-6 for GGL and index 1, <= 7.2e-4 for index 3, the largest being
//    KLU's on the slider-crank; the runs print them).
#include <petscsys.h>

#include <cmath>
#include <string>
#include <vector>

#include "assembly/assemble.hpp"
#include "energy_check.hpp"
#include "ida_support.hpp"
#include "integrators/ida_dynamics.hpp"
#include "io/yaml_loader.hpp"
#include "petsc_fixture.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {

const std::string kInputs = std::string(CATENA_SOURCE_DIR) + "/inputs/";
constexpr double kRtol = 1e-8, kAtol = 1e-10, kMultiplierAtol = 1e-2;
constexpr std::size_t kSharedSteps = 15;

using Run = test::IdaRun;

Run integrate(const Model& m, const AssemblyPlan& plan, IdaFormulation f, IdaLinearSolver solver,
              const std::string& prefix = "ida_") {
  IdaOptions o;
  o.formulation = f;
  o.t_end = 2.0;
  o.rtol = kRtol;
  o.atol = kAtol;
  o.multiplier_atol = kMultiplierAtol;
  o.linear_solver = solver;
  o.petsc_prefix = prefix;
  const Run r = test::recordIda(m, plan, o);
  const DynamicsStats& st = r.result.stats;
  BOOST_TEST_MESSAGE("  " << m.name << ", " << r.result.method << ": " << st.steps << " steps ("
                          << st.rejected_steps << " rejected), " << st.newton_iterations
                          << " Newton iterations, " << st.factorizations << " factorizations");
  BOOST_REQUIRE_MESSAGE(r.result.status.ok(), r.result.method << ": " << r.result.status.message);
  BOOST_REQUIRE_EQUAL(r.states.back().t, o.t_end);
  return r;
}

/// max |E - E0| over the run relative to the largest kinetic energy.
double energyError(const Model& m, const AssemblyPlan& plan, const Run& r) {
  return test::relativeEnergyError(m, plan, r.states);
}

/// Largest difference of a and ref over the first kSharedSteps steps in IDA's weighted norm
/// (see the file comment); fails if a step time differs by more than 1e-9 of the step.
double sharedStepsDifference(IdaFormulation f, const Run& a, const Run& ref,
                             const std::string& what) {
  BOOST_REQUIRE_GT(ref.states.size(), kSharedSteps);
  BOOST_REQUIRE_GT(a.states.size(), kSharedSteps);
  const bool index3 = f == IdaFormulation::kIndex3;
  double worst = 0.0;
  for (std::size_t k = 1; k <= kSharedSteps; ++k) {
    const State &x = a.states[k], &y = ref.states[k];
    const double h = y.t - ref.states[k - 1].t;
    if (!(std::abs(x.t - y.t) <= 1e-9 * h)) {
      BOOST_ERROR(what << ": step " << k << " ends at t = " << x.t << " s instead of " << y.t
                       << " s: IDA chose another step within the first " << kSharedSteps);
      return worst;
    }
    auto add = [&](const VecX& dx, const VecX& yr, double atol, double factor) {
      for (Eigen::Index i = 0; i < dx.size(); ++i)
        worst = std::max(worst, factor * std::abs(dx(i)) / (kRtol * std::abs(yr(i)) + atol));
    };
    add(x.q - y.q, y.q, kAtol, 1.0);
    add(x.v - y.v, y.v, kAtol, index3 ? h : 1.0);
    add(x.lambda - y.lambda, y.lambda, kMultiplierAtol, index3 ? h * h : 1.0);
  }
  return worst;
}

void compareSolvers(const std::string& file) {
  const Model m = loadMechanismFile(kInputs + file).model;
  const AssemblyPlan plan = buildAssemblyPlan(m);
  // The KKT solves around IDA use the same prefix, so they factor with MUMPS too.
  BOOST_REQUIRE(PetscOptionsSetValue(nullptr, "-idamumps_pc_factor_mat_solver_type", "mumps") == 0);
  for (IdaFormulation f :
       {IdaFormulation::kIndex3, IdaFormulation::kIndex2, IdaFormulation::kIndex1}) {
    const std::string name = file + ", " + idaFormulationName(f);
    const Run klu = integrate(m, plan, f, IdaLinearSolver::kKlu);
    const Run petsc = integrate(m, plan, f, IdaLinearSolver::kPetsc);
    const Run mumps = integrate(m, plan, f, IdaLinearSolver::kPetsc, "idamumps_");
    BOOST_TEST(klu.result.method.find("(KLU)") != std::string::npos);
    BOOST_TEST(petsc.result.method.find("(PETSc klu)") != std::string::npos);
    BOOST_TEST(mumps.result.method.find("(PETSc mumps)") != std::string::npos);

    const double d_petsc = sharedStepsDifference(f, petsc, klu, name + ", PETSc klu");
    const double d_mumps = sharedStepsDifference(f, mumps, klu, name + ", PETSc mumps");
    BOOST_TEST_MESSAGE("  " << name << ": first " << kSharedSteps
                            << " steps, largest weighted difference to KLU: PETSc klu " << d_petsc
                            << ", PETSc mumps " << d_mumps);
    BOOST_TEST(d_petsc <= 1e-3, name << ": PETSc klu vs KLU over the first steps");
    BOOST_TEST(d_mumps <= 1e-3, name << ": PETSc mumps vs KLU over the first steps");

    const double bound = f == IdaFormulation::kIndex3 ? 2e-3 : 1e-5;
    const double e_klu = energyError(m, plan, klu), e_petsc = energyError(m, plan, petsc),
                 e_mumps = energyError(m, plan, mumps);
    BOOST_TEST_MESSAGE("  " << name << ": energy error KLU " << e_klu << ", PETSc klu " << e_petsc
                            << ", PETSc mumps " << e_mumps);
    BOOST_TEST(e_klu <= bound, name << ": energy, KLU");
    BOOST_TEST(e_petsc <= bound, name << ": energy, PETSc klu");
    BOOST_TEST(e_mumps <= bound, name << ": energy, PETSc mumps");
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(spatial_pendulum_petsc_agrees_with_klu) {
  compareSolvers("spatial_pendulum.yaml");
}

BOOST_AUTO_TEST_CASE(spatial_slider_crank_petsc_agrees_with_klu) {
  compareSolvers("spatial_slider_crank.yaml");
}
