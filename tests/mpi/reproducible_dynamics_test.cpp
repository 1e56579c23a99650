#define BOOST_TEST_MODULE reproducible_dynamics
// Results of the distributed IDA dynamics that do not depend on the rank count, to the last bit
// (integrators/distributed_dynamics.hpp, docs/parallel.md "Bitwise across rank counts"), under
// mpiexec with 1, 2 and 4 ranks (tests/mpi.cmake). The 1-rank run writes its answer to the file
// named by CATENA_REPRODUCIBLE_REFERENCE; the 2- and 4-rank runs (ctest runs them after it)
// compare theirs with it bit for bit.
//
// The case is the one where the runs part otherwise: the 40-link chain released from its 'V',
// rtol 1e-8, to 0.3 s. Its step control amplifies a last-digit difference until a decision
// flips (about 550 steps), so equal final states and step counts mean every step was equal.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "integrators/distributed_dynamics.hpp"
#include "mpi_support.hpp"
#include "parallel/reproducible_sum.hpp"
#include "petsc_fixture.hpp"

using namespace catena;
using namespace catena::test;

namespace {

/// Every rank's values gathered on rank 0 in rank order (the global order of owned entries).
std::vector<double> gatherOnRoot(const std::vector<double>& local) {
  const int n = static_cast<int>(local.size());
  std::vector<int> counts(worldSize()), displs(worldSize(), 0);
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 1; r < worldSize(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<double> all(worldRank() == 0 ? displs.back() + counts.back() : 0);
  MPI_Gatherv(local.data(), n, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
              MPI_COMM_WORLD);
  return all;
}

/// Whether x holds on every rank (mpi_support's exact MPI_MAX).
bool allTrue(bool x) {
  return allMax(x ? 0.0 : 1.0) == 0.0;
}

}  // namespace

// The sum's bits depend neither on how the terms are split over the ranks nor on their order,
// and it is exact to the method's bound: terms of 30 binary orders of magnitude and both signs,
// whose plain sums in different orders differ.
BOOST_AUTO_TEST_CASE(reproducible_sum_is_independent_of_the_split) {
  const int n = 10007;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-20, 10);
  std::vector<double> x(n);
  for (double& t : x) t = std::ldexp(mantissa(rng), exponent(rng));
  const int rank = worldRank(), size = worldSize();
  auto sumOf = [&](auto&& mine) {
    std::vector<double> local;
    for (int i = 0; i < n; ++i)
      if (mine(i)) local.push_back(x[i]);
    return reproducibleSum(MPI_COMM_WORLD, local.data(), static_cast<Index>(local.size()));
  };
  const double blocks = sumOf([&](int i) { return i * size / n == rank; });
  const double cyclic = sumOf([&](int i) { return i % size == rank; });
  const double reversed = sumOf([&](int i) { return (n - 1 - i) * size / n == rank; });
  const double on_root = sumOf([&](int) { return rank == 0; });
  BOOST_TEST(allTrue(blocks == cyclic && blocks == reversed && blocks == on_root),
             "blocks " << blocks << ", cyclic " << cyclic << ", reversed " << reversed
                       << ", on rank 0 " << on_root);
  // Reference: Neumaier's compensated sum in long double, whose error is far below the bound.
  long double s = 0.0L, c = 0.0L;
  for (double t : x) {
    const long double u = s + t;
    c += std::abs(s) >= std::abs(t) ? (s - u) + t : (t - u) + s;
    s = u;
  }
  const double exact = static_cast<double>(s + c);
  double max_abs = 0.0;
  for (double t : x) max_abs = std::max(max_abs, std::abs(t));
  const double bound = n * std::ldexp(max_abs, -95) + std::abs(exact) * 0x1p-52;
  BOOST_TEST(std::abs(blocks - exact) <= bound,
             "reproducible sum " << blocks << ", exact " << exact << ", bound " << bound);
  // Non-finite terms give the plain sum's NaN or inf on every rank.
  std::vector<double> bad = {1.0, rank == size - 1 ? INFINITY : 2.0};
  BOOST_TEST(std::isinf(reproducibleSum(MPI_COMM_WORLD, bad.data(), 2)));
}

// The 40-link release on 1, 2 and 4 ranks: the same step count, Newton iterations and final
// state (q, v, lambda of every body and joint), bit for bit. The Newton systems are solved by
// one sequential KLU of the gathered matrix on every rank (PETSc's -pc_type redundant), whose
// bits do not depend on the rank count; MUMPS' parallel pivoting would. The chain's part has its
// halo (model_part.hpp): without it the boundary bodies' rows would sum in a rank-dependent
// order.
BOOST_AUTO_TEST_CASE(released_chain_is_bitwise_identical_on_any_rank_count) {
  CatenaryChainOptions chain;
  chain.links = 40;
  const ModelPart part = buildCatenaryChainPart(chain, worldRank(), worldSize(), true);
  const DistributedModel dm(part);
  const DistributedAssembly as(dm);
  IdaOptions o;
  o.t_end = 0.3;
  o.rtol = 1e-8;
  o.atol = 1e-10;
  o.assemble_initial_state = false;  // the 'V' at rest is assembled
  o.linear_solver = IdaLinearSolver::kGatheredKlu;
  const DistributedDynamicsResult r = integrateDistributedIda(as, initialState(part.model), o);
  BOOST_REQUIRE_MESSAGE(allTrue(r.status.ok()), r.status.message);

  // The answer in the global order: counters, then q and v of every body and lambda of every
  // joint (each gathered rank by rank).
  std::vector<double> answer = {static_cast<double>(r.stats.steps),
                                static_cast<double>(r.stats.newton_iterations),
                                static_cast<double>(r.stats.jacobian_evaluations)};
  for (const auto& [data, n] :
       {std::pair(r.state.q.data(), static_cast<Index>(dm.ownedPositions())),
        std::pair(r.state.v.data(), static_cast<Index>(dm.ownedVelocities())),
        std::pair(r.state.lambda.data(), static_cast<Index>(r.state.lambda.size()))}) {
    const std::vector<double> all = gatherOnRoot(std::vector<double>(data, data + n));
    answer.insert(answer.end(), all.begin(), all.end());
  }
  bool equal = true;
  std::string message;
  if (worldRank() == 0) {
    const char* path = std::getenv("CATENA_REPRODUCIBLE_REFERENCE");
    BOOST_REQUIRE_MESSAGE(path, "CATENA_REPRODUCIBLE_REFERENCE names no file");
    BOOST_TEST_MESSAGE(worldSize() << " ranks: " << r.method << ", " << r.stats.steps << " steps, "
                                   << r.stats.newton_iterations << " Newton iterations");
    if (worldSize() == 1) {
      std::ofstream out(path);
      out.precision(17);
      for (double v : answer) out << std::hexfloat << v << '\n';
      equal = static_cast<bool>(out);
      message = equal ? "" : std::string("cannot write ") + path;
    } else {
      std::ifstream in(path);
      std::vector<double> reference;
      for (std::string line; std::getline(in, line);)
        reference.push_back(std::strtod(line.c_str(), nullptr));
      equal = reference.size() == answer.size();
      message = equal ? ""
                      : "the 1-rank reference " + std::string(path) + " has " +
                            std::to_string(reference.size()) + " values, this run " +
                            std::to_string(answer.size()) +
                            " (run mpi_reproducible_dynamics_np1 first)";
      for (std::size_t i = 0; equal && i < answer.size(); ++i)
        if (std::memcmp(&answer[i], &reference[i], sizeof(double)) != 0) {
          equal = false;
          char text[160];
          std::snprintf(text, sizeof text, "value %zu differs: %a here, %a on 1 rank", i, answer[i],
                        reference[i]);
          message = text;
        }
      BOOST_TEST_MESSAGE("steps " << answer[0] << " here, "
                                  << (reference.empty() ? -1 : reference[0]) << " on 1 rank");
    }
  }
  MPI_Bcast(&equal, 1, MPI_CXX_BOOL, 0, MPI_COMM_WORLD);
  BOOST_TEST(equal, message);
}
