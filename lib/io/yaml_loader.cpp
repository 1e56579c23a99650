// Placeholder: the loader is being written (see yaml_loader.hpp for the contract).
#include "io/yaml_loader.hpp"

namespace catena {

InputError::InputError(std::string file, int line, int column, const std::string& message)
    : Error(file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": error: " +
            message),
      file_(std::move(file)),
      line_(line),
      column_(column) {}

LoadedInput loadMechanismFile(const std::string& path, const LoaderLimits&) {
  throw InputError(path, 0, 0, "the YAML loader is not implemented yet");
}

LoadedInput loadMechanismString(const std::string&, const std::string& source_name,
                                const LoaderLimits&) {
  throw InputError(source_name, 0, 0, "the YAML loader is not implemented yet");
}

}  // namespace catena
