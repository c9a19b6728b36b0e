// `report --static FILE.sarif`: static findings read back from a SARIF file made elsewhere.
#include "FuzzInput.h"
#include "runtime/Pairing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<sl::Finding> findings;
  std::string error;
  (void)sl::runtime::readSarifFindings(sl::fuzz::inputFile(data, size, "input.sarif"), findings, error);
  return 0;
}
