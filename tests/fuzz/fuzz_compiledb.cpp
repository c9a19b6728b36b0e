// `check -p DIR`: compile_commands.json, its shell-quoted commands and nvcc's flags as Clang's.
#include "FuzzInput.h"
#include "cxx/CompileArgs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<sl::cxx::CompileDbEntry> entries;
  std::string error;
  if (sl::cxx::loadCompileDb(sl::fuzz::inputFile(data, size, "compile_commands.json"), entries, error))
    for (const auto& e : entries) (void)sl::cxx::translateNvccArgs(e.argv, e.file);
  (void)sl::cxx::splitCommand(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
