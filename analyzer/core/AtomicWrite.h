#pragma once

#include <string>
#include <string_view>

namespace sl {

// Replaces the file at `path` with `bytes` so that a reader (or a crash, or a full disk) sees
// either the old file or the whole new one, never a part: the bytes go to a temporary file
// beside the target (same directory, so the rename cannot cross file systems), are written in
// full, fsync'd, checked by size, and renamed over the target; the directory is fsync'd after.
// A target that is a symlink is written through (the link stays, the file it names changes).
// A new file gets mode 0666 less the umask; an existing one keeps its mode.
// On failure the target is untouched, the temporary file is removed, and `error` says why
// ("No space left on device", ...). Returns true on success.
bool writeFileAtomically(const std::string& path, std::string_view bytes, std::string& error);

// The prefix of every temporary file writeFileAtomically makes (".<name>.sl-tmp-<pid>-<n>"),
// so that a directory owner can recognise and prune ones a killed process left behind.
inline constexpr std::string_view kAtomicTempMarker = ".sl-tmp-";

}  // namespace sl
