// blankLargeLiterals (python/PyLargeLiterals.h): which literals become stubs, and that a stub
// keeps every offset and line of the file.
#include <gtest/gtest.h>

#include "python/PyLargeLiterals.h"

namespace sl::py {
namespace {

// With a tiny threshold every qualifying literal is blanked.
std::string blanked(std::string_view text) {
  auto out = blankLargeLiterals(text, 8);
  return out ? *out : std::string(text);
}

TEST(LargeLiterals, KeepsBracketsFirstElementOffsetsAndLines) {
  EXPECT_EQ(blanked("x = [1, 2, 3, 4]\n"), "x = [1,        ]\n");
  EXPECT_EQ(blanked("x = (1.5, -2e-3, 0x1F,\n  'a', b'b', None)\n"), "x = (1.5,             \n                 )\n");
  EXPECT_EQ(blanked("d = {'a': 1, 'b': [2, 3]}\n"), "d = {'a': 1,            }\n");
  EXPECT_EQ(blanked("t = torch.tensor([[1, 2], [3, 4]], device='cuda')\n"),
            "t = torch.tensor([[1, 2],       ], device='cuda')\n");
  EXPECT_EQ(blanked("def f():\n    return [1, 2, 3, 4]\n"), "def f():\n    return [1,        ]\n");
}

TEST(LargeLiterals, LeavesCodeAndSmallFilesAlone) {
  for (const char* code : {"f(1, 2, 3, 4, 5)\n", "a[1, 2, 3, 4, 5]\n", "x = [a, 1, 2, 3, 4]\n",
                           "x = [f'{a}', 1, 2, 3]\n", "x = [g(1), 2, 3, 4]\n", "x = [1 2 3 4 5 6]\n",
                           "x = [12345678]\n", "x = [1, 2, 3, 4, *y]\n", "s = '[1, 2, 3, 4]'  # [5, 6, 7, 8]\n"})
    EXPECT_EQ(blanked(code), code) << code;
  EXPECT_FALSE(blankLargeLiterals("x = [1, 2, 3, 4]\n").has_value());  // under the default size
}

}  // namespace
}  // namespace sl::py
