#define BOOST_TEST_MODULE yaml_loader
#include "io/yaml_loader.hpp"

#include "test_support.hpp"

using namespace catena;

// Placeholder until the loader lands: the stub must refuse every input.
BOOST_AUTO_TEST_CASE(stub_refuses_input) {
  BOOST_CHECK_THROW(loadMechanismString("bodies: []", "<test>"), InputError);
}
