// Valid Python that the pinned tree-sitter-python grammar rejects is repaired, not reported as
// a syntax error (python/PyGrammarGaps.h); invalid Python still is.
#include <gtest/gtest.h>

#include "model/ModelDump.h"
#include "python/PythonFrontend.h"

namespace {

sl::model::Module lowerModule(const std::string& code, std::vector<sl::Finding>& diags) {
  sl::SourceFile f("t.py", code);
  return sl::py::lowerPython(f, diags);
}

}  // namespace

// `return None, *(None,) * 2` (Megatron-LM) is valid Python the pinned grammar rejects: it
// made a whole-repository run exit 2 with a syntax error. So does `f"{title:=^{width}}"`.
TEST(GrammarGaps, ValidFormsParseAndAreLowered) {
  for (const char* stmt : {"return None, *(None,) * 2", "x = a, *-b", "y = yield 1, *(a or ())",
                           "return 1, *(a if b else ())", "a += *(b,), c",
                           // a format spec filled with '=' (lmdeploy), not a walrus
                           "print(f'{a:=^{b}}')", "c = f\"{a:=<10} {b!s:=>{c}}\""}) {
    std::vector<sl::Finding> diags;
    std::string code = std::string("import torch\ndef f(a, b, c):\n    ") + stmt +
                       "\n    for _ in range(2):\n        torch.zeros(1, device='cuda').item()\n";
    auto m = lowerModule(code, diags);
    EXPECT_TRUE(diags.empty()) << stmt << ": " << (diags.empty() ? "" : diags[0].message);
    // Lowered as usual: the loop after the statement is seen.
    EXPECT_NE(sl::model::dump(m).find("host-sync"), std::string::npos) << stmt;
  }
  // Invalid Python stays a syntax error.
  for (const char* stmt : {"x = a, * * b", "return a, *", "print(f'{a:=^}}')"}) {
    std::vector<sl::Finding> diags;
    lowerModule(std::string("import torch\ndef f(a, b):\n    ") + stmt + "\n", diags);
    EXPECT_EQ(diags.size(), 1u) << stmt;
  }
}
