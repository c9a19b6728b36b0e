#include <memory>
#include <mutex>

#include "python/TsNode.h"

namespace sl::py {

NodeTypes::NodeTypes(const TSLanguage* lang) {
  const uint32_t count = ts_language_symbol_count(lang);
  byName_.resize(count);
  for (uint32_t s = 0; s < count; ++s) {
    const char* name = ts_language_symbol_name(lang, TSSymbol(s));
    byName_[s] = ids_.emplace(name ? name : "", TSSymbol(s)).first->second;
  }
  // The error symbols lie outside the table; a grammar symbol spelled alike would share their name.
  error_ = ids_.emplace(ts_language_symbol_name(lang, kError), kError).first->second;
  errorRepeat_ = ids_.emplace(ts_language_symbol_name(lang, kErrorRepeat), kErrorRepeat).first->second;
}

TSSymbol NodeTypes::id(const char* name) const {
  auto it = ids_.find(name);
  return it == ids_.end() ? kNone : it->second;
}

const NodeTypes& NodeTypes::build(const TSLanguage* lang) {
  static std::mutex mu;
  static std::unordered_map<const TSLanguage*, std::unique_ptr<NodeTypes>> all;  // live until exit
  std::lock_guard<std::mutex> lock(mu);
  std::unique_ptr<NodeTypes>& t = all[lang];
  if (!t) t.reset(new NodeTypes(lang));
  return *t;
}

}  // namespace sl::py
