// The result cache (driver/ResultCache.h) serves only what is still true, writes only in a
// directory of its own, and reads a damaged entry as a miss.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "TempDir.h"
#include "driver/ResultCache.h"

namespace fs = std::filesystem;

namespace {

const std::string kKey = "0123456789abcdef0123456789abcdef";

sl::CheckResult oneFixableFinding() {
  sl::CheckResult r;
  sl::Finding f{"SL103", sl::Severity::Warning, "a.py", {2, 5}, "msg", {}, {}};
  f.fixes.push_back({"use current_stream()", {{{2, 5}, {2, 21}, ".current_stream("}}});
  r.findings.push_back(f);
  r.files = 1;
  r.fixBasis["a.py"] = "digest";
  return r;
}


}  // namespace

// An input changed in the current second (or stamped later) has an identity that a same-size
// write later in that second would not change (1-second timestamps): no key, so no stale answer.
TEST(ResultCache, RacilyCleanInputsAreNotCached) {
  TempDir t("cache_racy");
  const std::string f = t.write("a.py", "x = 1\n");
  sl::CheckOptions opts;
  opts.paths = {f};
  struct timespec times[2] = {{::time(nullptr) + 3600, 0}, {::time(nullptr) + 3600, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, f.c_str(), times, 0), 0);
  EXPECT_EQ(sl::ResultCache::keyFor(opts), "");
  // Once the second of the last change (its ctime, now) has passed, the file can be trusted.
  times[0] = times[1] = {::time(nullptr) - 3600, 0};
  ASSERT_EQ(::utimensat(AT_FDCWD, f.c_str(), times, 0), 0);
  struct stat st{};
  ASSERT_EQ(::stat(f.c_str(), &st), 0);
  while (::time(nullptr) <= st.st_ctim.tv_sec) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_NE(sl::ResultCache::keyFor(opts), "");
}

// A directory the cache did not make (`--cache-dir .`) is not written in: no entry, no
// .gitignore; one it makes is tagged and then used.
TEST(ResultCache, WritesOnlyInADirectoryItMade) {
  TempDir t("cache_owner");
  t.write("results/keep.json", "{}");
  sl::ResultCache foreign(t.dir.string());
  auto stored = foreign.store(kKey, oneFixableFinding());
  EXPECT_FALSE(stored.failed);
  EXPECT_NE(stored.note.find("was not made by streamlint"), std::string::npos) << stored.note;
  EXPECT_FALSE(fs::exists(t.dir / ".gitignore"));
  EXPECT_FALSE(fs::exists(t.dir / "results" / (kKey + ".json")));

  const fs::path own = t.dir / "own";
  sl::ResultCache cache(own.string());
  stored = cache.store(kKey, oneFixableFinding());
  EXPECT_EQ(stored.note, "");
  EXPECT_NE(readWhole(own / "CACHEDIR.TAG").find("Signature: 8a477f597d28d172789f06886806bc55"), std::string::npos);
  EXPECT_EQ(readWhole(own / ".gitignore"), "# Automatically created by streamlint.\n*\n");
  auto back = cache.load(kKey);
  ASSERT_TRUE(back);
  ASSERT_EQ(back->findings.size(), 1u);
  EXPECT_EQ(back->fixBasis.at("a.py"), "digest");
}

// Only entries are pruned (the newest 16), and temporary files once they are old; anything else
// in the directory stays.
TEST(ResultCache, PrunesOnlyItsOwnFiles) {
  TempDir t("cache_prune");
  const fs::path dir = t.dir / "c";
  sl::ResultCache cache(dir.string());
  for (int i = 0; i < 20; ++i) {
    char key[33];
    std::snprintf(key, sizeof key, "%032x", i);
    ASSERT_FALSE(cache.store(key, oneFixableFinding()).failed);
  }
  t.write("c/results/notes.json", "{}");
  const std::string oldTemp = t.write("c/results/." + kKey + ".json.sl-tmp-99-0", "x");
  const std::string legacyTemp = t.write("c/results/" + kKey + ".tmp99", "x");
  const std::string youngTemp = t.write("c/results/." + kKey + ".json.sl-tmp-98-0", "x");
  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(3);
  fs::last_write_time(oldTemp, old);
  fs::last_write_time(legacyTemp, old);
  ASSERT_FALSE(cache.store(kKey, oneFixableFinding()).failed);
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir / "results"))
    entries += e.path().filename().string().size() == 37 && e.path().extension() == ".json";
  EXPECT_EQ(entries, 16u);
  EXPECT_TRUE(fs::exists(dir / "results/notes.json"));
  EXPECT_FALSE(fs::exists(oldTemp));
  EXPECT_FALSE(fs::exists(legacyTemp));
  EXPECT_TRUE(fs::exists(youngTemp));  // maybe another run's store in progress
}

// Edits at line 0 and JSON deeper than any entry once crashed `--fix --diff-only` and the
// JSON/SARIF writers: both are misses.
TEST(ResultCache, ADamagedEntryIsAMiss) {
  TempDir t("cache_damaged");
  sl::ResultCache cache((t.dir / "c").string());
  ASSERT_FALSE(cache.store(kKey, oneFixableFinding()).failed);
  const fs::path entry = t.dir / "c/results" / (kKey + ".json");
  const std::string good = readWhole(entry);
  ASSERT_TRUE(cache.load(kKey));
  auto damaged = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from << " not in " << text;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << text;
    return cache.load(kKey);
  };
  EXPECT_FALSE(damaged("[[2,5,2,21,", "[[0,5,2,21,"));
  EXPECT_FALSE(damaged("[[2,5,2,21,", "[[2,0,2,21,"));
  EXPECT_FALSE(damaged("[[2,5,2,21,", "[[2,9,2,1,"));
  EXPECT_FALSE(damaged("\"x\":", "\"x\":{\"d\":" + std::string(100000, '[') + std::string(100000, ']') + "},\"y\":"));
  // Numbers no count can be (get<uint32_t>() of them was undefined behaviour: fuzz_cache).
  EXPECT_FALSE(damaged("[[2,5,2,21,", "[[2,5,4.44444e+119,21,"));
  EXPECT_FALSE(damaged("[[2,5,2,21,", "[[2,5,-2,21,"));
  EXPECT_FALSE(damaged("\"s\":1", "\"s\":7"));
  EXPECT_TRUE(damaged("[[2,5,2,21,", "[[2,5,2,21,"));
}
