#define BOOST_TEST_MODULE sundials_layer
// The SUNDIALS layer (lib/integrators/sundials/): the owners, the error log and its handler, the
// guard of C callbacks (an exception becomes SUNDIALS' fatal return with its message), the guard
// of set-up calls, the one way of setting IDA's weights (the same bits as IDASVtolerances on a
// whole run), and ERKStep through the same context, vectors and error log.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <stdexcept>
#include <string>

#include "integrators/sundials/arkode.hpp"
#include "integrators/sundials/ida.hpp"

using namespace catena;
using namespace catena::sundials;

namespace {

/// The IDA user data of the test problem y' = -k y (all components differential).
struct Decay {
  VecX k;
  ErrorLog log;
  ErrorWeights weights;
  bool throw_in_residual = false;
};

int decayResidual(realtype, N_Vector y, N_Vector yp, N_Vector r, void* user) {
  auto& d = *static_cast<Decay*>(user);
  return guarded(d.log.callback, "the residual", [&] {
    if (d.throw_in_residual) throw std::runtime_error("residual refused");
    const Index n = d.k.size();
    Eigen::Map<VecX>(N_VGetArrayPointer(r), n) =
        Eigen::Map<const VecX>(N_VGetArrayPointer(yp), n) +
        d.k.cwiseProduct(Eigen::Map<const VecX>(N_VGetArrayPointer(y), n));
    return 0;
  });
}

int decayJacobian(realtype, realtype cj, N_Vector, N_Vector, N_Vector, SUNMatrix J, void* user,
                  N_Vector, N_Vector, N_Vector) {
  auto& d = *static_cast<Decay*>(user);
  const Index n = d.k.size();
  Eigen::Map<MatX> A(SUNDenseMatrix_Data(J), n, n);
  A.setZero();
  A.diagonal() = d.k.array() + cj;
  return 0;
}

/// A decay run of IDA to t = 1 through the layer (sv: tolerances by IDASVtolerances instead of
/// the layer's weights); y at the end, or the failure's message in `message`.
VecX runDecay(Decay& d, bool sv, std::string* message = nullptr) {
  const Index n = d.k.size();
  IdaObjects ida;
  BOOST_REQUIRE(ida.makeDense(n));
  entries(ida.y).setLinSpaced(n, 1.0, 2.0);
  entries(ida.yp) = -d.k.cwiseProduct(entries(ida.y));
  entries(ida.id).setOnes();
  d.weights.rtol = 1e-6;
  d.weights.atol = VecX::LinSpaced(n, 1e-8, 1e-7);
  SetupGuard g = startIda(ida, d, decayResidual, decayJacobian, 0.0, 5, 10000);
  const Vector atol = serialVector(n, ida.ctx);
  entries(atol) = d.weights.atol;
  if (sv) CATENA_SUNDIALS_CALL(g, IDASVtolerances(ida.mem.get(), d.weights.rtol, atol.get()));
  BOOST_REQUIRE_MESSAGE(g.ok(), g.status("test", idaFlagName, d.log).message);
  realtype t = 0.0;
  const int flag = IDASolve(ida.mem.get(), 1.0, &t, ida.y.get(), ida.yp.get(), IDA_NORMAL);
  if (message && flag < 0) *message = d.log.failure("decay", t, 1.0, idaFlagName(flag));
  return entries(ida.y);
}

}  // namespace

BOOST_AUTO_TEST_CASE(owners_make_and_free_vectors) {
  Context ctx;
  BOOST_REQUIRE(ctx.ok());
  Vector v = serialVector(7, ctx);
  BOOST_REQUIRE(v);
  BOOST_TEST(entries(v).size() == 7);
  entries(v).setConstant(2.5);
  const Vector w(N_VClone(v.get()));
  N_VScale(2.0, v.get(), w.get());
  BOOST_TEST(entries(w)[6] == 5.0);
  const Context moved(std::move(ctx));
  BOOST_TEST(moved.ok());
  BOOST_TEST(!ctx.ok());  // NOLINT(bugprone-use-after-move): the move empties it
}

BOOST_AUTO_TEST_CASE(error_handler_keeps_errors_not_warnings) {
  ErrorLog log;
  char warning[] = "a warning", error[] = "the error";
  recordError(1, "IDA", "IDASolve", warning, &log);
  BOOST_TEST(log.solver.empty());
  recordError(-4, "IDA", "IDASolve", error, &log);
  BOOST_TEST(log.solver == "IDASolve: the error");
  log.callback = Status::failure(Status::Code::kSingular, "singular KKT");
  BOOST_TEST(log.failure("IDA index-3", 0.5, 2.0, "IDA_CONV_FAIL") ==
             "IDA index-3 failed at t = 0.5 s (t_end = 2 s) with IDA_CONV_FAIL: IDASolve: the "
             "error (singular KKT)");
}

BOOST_AUTO_TEST_CASE(guarded_turns_exceptions_into_fatal_returns) {
  Status failure;
  BOOST_TEST(guarded(failure, "the residual", [] { return 1; }) == 1);
  BOOST_TEST(failure.ok());
  BOOST_TEST(guarded(failure, "the residual", []() -> int { throw std::runtime_error("NaN"); }) ==
             -1);
  BOOST_TEST((failure.code == Status::Code::kInvalidInput));
  BOOST_TEST(failure.message == "NaN");
  BOOST_TEST(guarded(
                 failure, "the solve", []() -> int { throw 3; }, SUNLS_PACKAGE_FAIL_UNREC) ==
             SUNLS_PACKAGE_FAIL_UNREC);
  BOOST_TEST(failure.message == "unknown exception in the solve");
}

BOOST_AUTO_TEST_CASE(linear_solver_flags_are_fatal_only_for_memory) {
  using C = Status::Code;
  BOOST_TEST(linearSolverFlag(Status::success()) == SUNLS_SUCCESS);
  BOOST_TEST(linearSolverFlag(Status::failure(C::kResources, "")) < 0);
  for (C c : {C::kSingular, C::kNotConverged, C::kInvalidInput})
    BOOST_TEST(linearSolverFlag(Status::failure(c, "")) > 0);
}

BOOST_AUTO_TEST_CASE(setup_guard_stops_at_the_first_failure) {
  SetupGuard g;
  int calls = 0;
  auto call = [&](int flag) {
    ++calls;
    return flag;
  };
  BOOST_TEST(CATENA_SUNDIALS_CALL(g, call(0)));
  BOOST_TEST(!CATENA_SUNDIALS_CALL(g, call(-22)));
  BOOST_TEST(!CATENA_SUNDIALS_CALL(g, call(0)));  // not run
  BOOST_TEST(calls == 2);
  ErrorLog log;
  log.solver = "IDASetMaxOrd: maxord <= 0 illegal";
  const Status st = g.status("IDA", idaFlagName, log);
  BOOST_TEST((st.code == Status::Code::kInvalidInput));
  BOOST_TEST(st.message == "IDA: setup failed in call (IDA_ILL_INPUT): " + log.solver);
  SetupGuard memory;
  BOOST_TEST(!memory.allocated(false, "IDACreate"));
  BOOST_TEST((memory.status("IDA", idaFlagName, log).code == Status::Code::kResources));
}

BOOST_AUTO_TEST_CASE(weights_scale_by_powers_of_the_step) {
  Decay d;
  d.k = VecX::Ones(3);
  IdaObjects ida;
  BOOST_REQUIRE(ida.makeDense(3));
  d.weights.rtol = 1e-3;
  d.weights.atol = VecX::Constant(3, 1e-4);
  d.weights.step_power.resize(3);
  d.weights.step_power << 0, 1, 2;
  d.weights.h_start = 0.1;
  BOOST_REQUIRE(startIda(ida, d, decayResidual, decayJacobian, 0.0, 5, 100).ok());
  const Vector y = serialVector(3, ida.ctx), w = serialVector(3, ida.ctx);
  entries(y) << -2.0, 0.0, 3.0;
  BOOST_TEST(weightCallback<Decay>(y.get(), w.get(), &d) == 0);
  // Before the first step, h is h_start.
  BOOST_TEST(entries(w)[0] == 1.0 / (1e-3 * 2.0 + 1e-4));
  BOOST_TEST(entries(w)[1] == 1.0 / 1e-4 * 0.1);
  BOOST_TEST(entries(w)[2] == 1.0 / (1e-3 * 3.0 + 1e-4) * 0.1 * 0.1);
}

BOOST_AUTO_TEST_CASE(weights_give_the_bits_of_per_component_tolerances) {
  Decay a, b;
  a.k = b.k = VecX::LinSpaced(6, 0.5, 30.0);  // stiff enough for several orders and steps
  const VecX layer = runDecay(a, false), sv = runDecay(b, true);
  BOOST_TEST((layer.array() == sv.array()).all(),
             "layer " << layer.transpose() << "\nSV    " << sv.transpose());
  BOOST_TEST(std::abs(layer[0] - std::exp(-0.5)) < 1e-4);
}

BOOST_AUTO_TEST_CASE(an_exception_in_a_callback_stops_ida_with_its_message) {
  Decay d;
  d.k = VecX::Ones(2);
  d.throw_in_residual = true;
  std::string message;
  runDecay(d, false, &message);
  BOOST_TEST_MESSAGE(message);
  BOOST_TEST(message.find("decay failed at t = 0") == 0, message);
  BOOST_TEST(message.find("(residual refused)") != std::string::npos, message);
  BOOST_TEST(!d.log.solver.empty());
}

namespace {

struct Growth {
  ErrorLog log;
  int post_calls = 0;
  bool fail = false;
};

int growthRhs(sunrealtype, N_Vector y, N_Vector ydot, void* user) {
  auto& g = *static_cast<Growth*>(user);
  return guarded(g.log.callback, "the right-hand side", [&] {
    if (g.fail) {
      g.log.callback = Status::failure(Status::Code::kSingular, "no rates");
      return -1;
    }
    N_VScale(1.0, y, ydot);
    return 0;
  });
}

int growthPost(sunrealtype, N_Vector, void* user) {
  ++static_cast<Growth*>(user)->post_calls;
  return 0;
}

}  // namespace

BOOST_AUTO_TEST_CASE(erkstep_runs_through_the_same_layer) {
  for (bool fail : {false, true}) {
    Growth data;
    data.fail = fail;
    ErkObjects ark;
    BOOST_REQUIRE(ark.makeSerialState(1));
    entries(ark.y)[0] = 1.0;
    const SetupGuard g = startErk(ark, data, growthRhs, growthPost, 0.0,
                                  {ARKODE_DORMAND_PRINCE_7_4_5, 1e-8, 1e-10, 1000, 0.0});
    BOOST_REQUIRE(g.ok());
    realtype t = 0.0;
    const int flag = ERKStepEvolve(ark.mem.get(), 1.0, ark.y.get(), &t, ARK_NORMAL);
    if (!fail) {
      BOOST_TEST(flag >= 0);
      BOOST_TEST(std::abs(entries(ark.y)[0] - std::exp(1.0)) < 1e-6);
      BOOST_TEST(data.post_calls > 0);
    } else {
      BOOST_TEST(flag < 0);
      const std::string m = data.log.failure("growth", t, 1.0, arkodeFlagName(flag));
      BOOST_TEST_MESSAGE(m);
      BOOST_TEST(m.find("ARK_RHSFUNC_FAIL") != std::string::npos, m);
      BOOST_TEST(m.find("(no rates)") != std::string::npos, m);
    }
  }
}
