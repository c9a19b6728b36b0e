#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "TempDir.h"
#include "config/Config.h"

namespace fs = std::filesystem;
using sl::Glob;

TEST(Glob, ComponentsAndDirectories) {
  EXPECT_TRUE(Glob("third_party").matches("third_party/x/y.py"));
  EXPECT_TRUE(Glob("third_party").matches("src/third_party/y.py"));  // no '/': any component
  EXPECT_FALSE(Glob("third_party").matches("third_party_x/y.py"));
  EXPECT_TRUE(Glob("*_pb2.py").matches("pkg/a_pb2.py"));
  EXPECT_TRUE(Glob("tests/*").matches("tests/a.py"));
  EXPECT_TRUE(Glob("tests/*").matches("tests/sub/a.py"));  // tests/sub is matched, so its contents
  EXPECT_FALSE(Glob("tests/*.py").matches("tests/sub/a.py"));  // '*' stays in one component
  EXPECT_TRUE(Glob("tests/**/*.py").matches("tests/sub/deep/a.py"));
  EXPECT_TRUE(Glob("tests/**/*.py").matches("tests/a.py"));
  EXPECT_FALSE(Glob("pkg/*.py").matches("other/pkg/a.py"));  // a '/' anchors at the config dir
  EXPECT_TRUE(Glob("./pkg/").matches("pkg/a.py"));
  EXPECT_TRUE(Glob("a?.py").matches("ab.py"));
  EXPECT_TRUE(Glob("[ab].py").matches("b.py"));
  EXPECT_FALSE(Glob("[!ab].py").matches("b.py"));
  EXPECT_TRUE(Glob("a+b.py").matches("a+b.py"));  // regex characters are literal
}

TEST(ProjectKnowledge, ResolvesConfiguredCallees) {
  sl::ProjectKnowledge k;
  EXPECT_EQ(k.resolve("run_backward"), "");
  k.backwardFunctions = {"run_backward"};
  k.syncFunctions = {"dist_sync"};
  k.streamWrappers = {{"get_accelerator().stream", "torch.cuda.stream"}};
  EXPECT_EQ(k.resolve("run_backward"), "torch.autograd.backward");
  EXPECT_EQ(k.resolve("self.run_backward"), "torch.autograd.backward");
  EXPECT_EQ(k.resolve("utils.dist_sync"), "torch.cuda.synchronize");
  EXPECT_EQ(k.resolve("my_run_backward"), "");  // only whole dotted parts
  EXPECT_EQ(k.resolve("get_accelerator( ).stream"), "torch.cuda.stream");
  EXPECT_EQ(k.resolve("get_accelerator().streams"), "");
}

TEST(Config, LoadsEveryKey) {
  TempDir t("config_test");
  std::string f = t.write("pyproject.toml", R"([tool.black]
line-length = 100
[tool.streamlint]
select = ["SL1", "SL3"]
ignore = ["SL302"]
exclude = ["gen"]
sync-functions = ["barrier"]
backward-functions = ["run_backward"]
check-deliberate-code = true
[tool.streamlint.per-file-ignores]
"tests/*" = ["SL301"]
[tool.streamlint.severity]
SL3 = "note"
SL301 = "error"
[tool.streamlint.stream-wrappers]
"acc().current_stream" = "torch.cuda.current_stream"
)");
  std::string err;
  auto c = sl::loadConfig(f, err);
  ASSERT_TRUE(c) << err;
  EXPECT_EQ(*c->select, (std::vector<std::string>{"SL1", "SL3"}));
  EXPECT_EQ(c->ignore, std::vector<std::string>{"SL302"});
  EXPECT_TRUE(c->excluded((t.dir / "gen/a.py").string()));
  EXPECT_FALSE(c->excluded((t.dir / "src/a.py").string()));
  EXPECT_TRUE(c->ignoredFor("SL301", (t.dir / "tests/a.py").string()));
  EXPECT_FALSE(c->ignoredFor("SL301", (t.dir / "src/a.py").string()));
  EXPECT_EQ(c->severityOf("SL303", sl::Severity::Warning), sl::Severity::Note);
  EXPECT_EQ(c->severityOf("SL301", sl::Severity::Warning), sl::Severity::Error);  // longest wins
  EXPECT_EQ(c->severityOf("SL401", sl::Severity::Error), sl::Severity::Error);
  EXPECT_EQ(c->knowledge.resolve("acc().current_stream"), "torch.cuda.current_stream");
  EXPECT_EQ(c->knowledge.resolve("dist.barrier"), "torch.cuda.synchronize");
  EXPECT_TRUE(c->checkDeliberateCode);
}

TEST(Config, ErrorsNameFileAndKey) {
  TempDir t("config_test");
  std::string err;
  EXPECT_FALSE(sl::loadConfig(t.write("a.toml", "selct = [\"SL3\"]\n"), err));
  EXPECT_NE(err.find("a.toml: 'selct' is not a streamlint setting"), std::string::npos) << err;
  EXPECT_FALSE(sl::loadConfig(t.write("b.toml", "select = \"SL3\"\n"), err));
  EXPECT_NE(err.find("'select' must be an array of strings"), std::string::npos) << err;
  EXPECT_FALSE(sl::loadConfig(t.write("c.toml", "exclude = [\"[a\"]\nselect = [\n"), err));
  EXPECT_NE(err.find("c.toml:"), std::string::npos) << err;
  EXPECT_FALSE(sl::loadConfig(t.write("d.toml", "check-deliberate-code = \"yes\"\n"), err));
  EXPECT_NE(err.find("'check-deliberate-code' must be true or false"), std::string::npos) << err;
}

// Found by make fuzz (UBSan): toml++ 3.3 reaches __builtin_unreachable on non-ASCII text outside
// strings and comments, and on malformed UTF-8.
TEST(Config, CodePointsThatCrashTheTomlParserAreRefused) {
  TempDir t("config_test");
  std::string err;
  EXPECT_FALSE(sl::loadConfig(t.write("e.toml", "select = [\"SL3\"]\nsst\xef\xb4\xbf[oi\n"), err));
  EXPECT_NE(err.find("e.toml:2: invalid TOML: a non-ASCII character outside a string or a comment"), std::string::npos) << err;
  EXPECT_FALSE(sl::loadConfig(t.write("j.toml", "x = \"a\xcc\x91" "b\n"), err));  // in a string that never ends
  EXPECT_NE(err.find("j.toml:1: invalid TOML: a string that does not end on its line"), std::string::npos) << err;
  EXPECT_FALSE(sl::loadConfig(t.write("h.toml", "igud\xcc\x91"), err));  // U+0311 in a bare key
  EXPECT_NE(err.find("h.toml:1: invalid TOML: a non-ASCII character outside"), std::string::npos) << err;
  EXPECT_TRUE(sl::loadConfig(t.write("i.toml", "exclude = [\"caf\xc3\xa9/**\", 'na\xc3\xafve', \"\"\"\xcc\x91\"\"\"]\n"), err)) << err;
  EXPECT_TRUE(sl::loadConfig(t.write("f.toml", "# caf\xc3\xa9 \xe2\x80\x94 fine\nselect = [\"SL3\"]\n"), err)) << err;
  // After a line-ending backslash toml++ tests the next character for whitespace (the fuzzer's
  // input, cut down): read as TOML means, like the same character elsewhere in the string.
  auto k = sl::loadConfig(t.write("k.toml", "exclude = [\"\"\"a\\\n  \xcc\x91" "b\"\"\"]\n"), err);
  ASSERT_TRUE(k) << err;
  ASSERT_EQ(k->exclude.size(), 1u);
  EXPECT_EQ(k->exclude[0].pattern(), "a\xcc\x91" "b");
  EXPECT_TRUE(sl::loadConfig(t.write("l.toml", "exclude = [\"\"\"a\\\n  b\xcc\x91\"\"\"]\n"), err)) << err;
  // A parse error before such a character (U+FEDF) on the same line: toml++ tested it for
  // whitespace too (the fuzzer's second input, cut down). A clear error, never a crash.
  EXPECT_FALSE(sl::loadConfig(t.write("m.toml", "s=2==\"\xef\xbb\x9f\"\n"), err));
  EXPECT_NE(err.find("m.toml:1:"), std::string::npos) << err;
  // Keys and strings come back as written, also those holding the private-use code points the
  // unsafe ones are swapped with (U+E000, U+E3F8) and every unsafe range's ends.
  std::string odd = "\xc2\xa1\xd2\x99\xe2\xb1\x9e\xe3\x81\x97\xe3\x80\x80\xef\xac\xa6\xef\xbb\xbe\xee\x80\x80\xee\x8f\xb8";
  auto o = sl::loadConfig(t.write("o.toml", "exclude = [\"" + odd + "\"]\n[per-file-ignores]\n\"" + odd + "/**\" = [\"SL3\"]\n"), err);
  ASSERT_TRUE(o) << err;
  ASSERT_EQ(o->exclude.size(), 1u);
  EXPECT_EQ(o->exclude[0].pattern(), odd);
  ASSERT_EQ(o->perFileIgnores.size(), 1u);
  EXPECT_EQ(o->perFileIgnores[0].first.pattern(), odd + "/**");
  // Malformed UTF-8 reached the same point through toml++'s decoder.
  EXPECT_FALSE(sl::loadConfig(t.write("g.toml", "x = 1\nsel\xefse = 2\n"), err));
  EXPECT_NE(err.find("g.toml:2: invalid TOML: not valid UTF-8"), std::string::npos) << err;
}

TEST(ConfigResolver, NearestWinsAndForeignPyprojectIsSkipped) {
  TempDir t("config_test");
  t.write("pyproject.toml", "[tool.streamlint]\nignore = [\"SL1\"]\n");
  t.write("a/pyproject.toml", "[tool.black]\nline-length = 1\n");  // not ours: keep looking
  t.write("a/b/.streamlint.toml", "ignore = [\"SL2\"]\n");
  sl::ConfigResolver r;
  EXPECT_EQ(r.forFile((t.dir / "x.py").string())->ignore, std::vector<std::string>{"SL1"});
  EXPECT_EQ(r.forFile((t.dir / "a/x.py").string())->ignore, std::vector<std::string>{"SL1"});
  EXPECT_EQ(r.forFile((t.dir / "a/b/c/x.py").string())->ignore, std::vector<std::string>{"SL2"});
  EXPECT_TRUE(r.errors().empty());
  sl::ConfigResolver forced((t.dir / "a/b/.streamlint.toml").string());
  EXPECT_EQ(forced.forFile((t.dir / "x.py").string())->ignore, std::vector<std::string>{"SL2"});
}

// Issue 32: `languages` picks the frontends (validated), `extend-exclude` adds to `exclude`.
TEST(Config, LanguagesAndExtendExclude) {
  TempDir t("config_test");
  std::string err;
  auto c = sl::loadConfig(t.write("a.toml", "languages = [\"Python\", \"cpp\"]\nexclude = [\"gen\"]\nextend-exclude = [\"third_party\"]\n"), err);
  ASSERT_TRUE(c) << err;
  ASSERT_TRUE(c->languages);
  EXPECT_EQ(*c->languages, (std::vector<std::string>{"python", "cpp"}));
  EXPECT_TRUE(c->excluded((t.dir / "third_party/x.py").string()));
  EXPECT_TRUE(c->excluded((t.dir / "gen/x.py").string()));
  EXPECT_FALSE(c->excluded((t.dir / "src/x.py").string()));
  EXPECT_FALSE(sl::loadConfig(t.write("b.toml", "languages = [\"rust\"]\n"), err));
  EXPECT_NE(err.find("'languages' names unknown language 'rust'"), std::string::npos) << err;
  EXPECT_FALSE(sl::loadConfig(t.write("c.toml", "languages = \"python\"\n"), err));
  auto none = sl::loadConfig(t.write("d.toml", "select = [\"SL3\"]\n"), err);
  ASSERT_TRUE(none) << err;
  EXPECT_FALSE(none->languages);  // unset: the Python-first default
}
