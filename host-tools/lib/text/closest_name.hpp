// The name a mistyped one was probably meant to be, for "did you mean" hints: the nearest of the
// valid names by edit distance (insertions, deletions, substitutions and swaps of neighbours), if
// it is near enough to be a typo (at most 2 edits, and fewer than a third of the name's length); else
// the one name that has the given words with a dash-separated word or more left out ("qemu-a53" for
// qemu-virt-a53, not "a53" alone: at least two words).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace tpu {

std::optional<std::string> closest_name(const std::string& given, const std::vector<std::string>& names);

// The hint every "unknown ..." message of tpu ends with where a name is near: "did you mean 'x'?",
// or "" when none of `names` is (closest_name).
std::string did_you_mean(const std::string& given, const std::vector<std::string>& names);

// make's "unknown APP 'X': ...; valid apps: a b c or ..." (or BOARD, boards) with " (did you mean
// 'b'?)" after the unknown name (before the list, which may be long) where one of the valid names is
// closest_name; other text unchanged.
std::string with_name_suggestion(const std::string& make_error);

}  // namespace tpu
