#pragma once
/// @file petsc_fixture.hpp
/// One PETSc/SLEPc session for a whole test executable (TOOLCHAIN.md: MPI_Init is costly).
#include <boost/test/unit_test.hpp>

#include "parallel/petsc_session.hpp"

struct PetscFixture {
  PetscFixture()
      : session(&boost::unit_test::framework::master_test_suite().argc,
                &boost::unit_test::framework::master_test_suite().argv) {}
  catena::PetscSession session;
};

BOOST_TEST_GLOBAL_FIXTURE(PetscFixture);
