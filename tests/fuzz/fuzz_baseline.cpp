// `check --baseline FILE`: a baseline read back and applied to findings.
#include "FuzzInput.h"
#include "driver/Baseline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<sl::Finding> findings(2);
  findings[0].ruleId = "SL302";
  findings[0].path = "train.py";
  findings[0].loc = sl::Loc{12, 5};
  findings[0].message = "'Tensor.item' makes the host wait";
  findings[1].ruleId = "SL101";
  findings[1].path = "a/b.py";
  findings[1].loc = sl::Loc{3, 1};
  sl::BaselineResult result;
  std::string error;
  (void)sl::applyBaseline(sl::fuzz::inputFile(data, size, "baseline.json"), findings, result, error);
  return 0;
}
