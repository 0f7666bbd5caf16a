// The nearest valid name to a mistyped one (closest_name.hpp).
#include "closest_name.hpp"

#include <algorithm>
#include <iterator>
#include <regex>
#include <sstream>

namespace tpu {
namespace {

// Optimal string alignment distance: Levenshtein plus the swap of two neighbouring characters.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitution = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// A name's dash-separated words ("qemu-virt-a53": qemu, virt, a53).
std::vector<std::string> words_of(const std::string& name) {
  std::vector<std::string> words;
  std::istringstream parts(name);
  for (std::string word; std::getline(parts, word, '-');) words.push_back(word);
  return words;
}

// True if `given` is `name` with whole words left out, in order ("qemu-a53" of "qemu-virt-a53"),
// at least two words of it kept.
bool is_shorthand(const std::string& given, const std::string& name) {
  const std::vector<std::string> short_words = words_of(given), words = words_of(name);
  if (short_words.size() < 2 || short_words.size() >= words.size()) return false;
  size_t next = 0;
  for (const std::string& word : words)
    if (next < short_words.size() && word == short_words[next]) ++next;
  return next == short_words.size();
}

}  // namespace

std::optional<std::string> closest_name(const std::string& given, const std::vector<std::string>& names) {
  std::optional<std::string> best;
  size_t best_distance = 0;
  for (const std::string& name : names) {
    const size_t distance = edit_distance(given, name);
    if (distance == 0 || distance > 2 || 3 * distance >= std::max(given.size(), name.size())) continue;
    if (!best || distance < best_distance) best = name, best_distance = distance;
  }
  if (best) return best;
  // Not a typo: perhaps a word left out. Only a single such name is a hint.
  std::vector<std::string> longer;
  std::copy_if(names.begin(), names.end(), std::back_inserter(longer),
               [&](const std::string& name) { return is_shorthand(given, name); });
  if (longer.size() == 1) return longer.front();
  return std::nullopt;
}

std::string did_you_mean(const std::string& given, const std::vector<std::string>& names) {
  const std::optional<std::string> meant = closest_name(given, names);
  return meant ? "did you mean '" + *meant + "'?" : "";
}

std::string with_name_suggestion(const std::string& make_error) {
  static const std::regex unknown(R"(^unknown (APP|BOARD) '([^']*)')");
  static const std::regex valid(R"(valid (?:apps|boards): ([^;]*?)(?: or a path.*)?$)");
  std::smatch what, list;
  if (!std::regex_search(make_error, what, unknown) || !std::regex_search(make_error, list, valid)) return make_error;
  std::istringstream words(list[1].str());
  std::vector<std::string> names;
  for (std::string word; words >> word;) names.push_back(word);
  const std::string hint = did_you_mean(what[2].str(), names);
  if (hint.empty()) return make_error;
  const size_t after_name = static_cast<size_t>(what.position(0) + what.length(0));  // the hint before the long list
  return make_error.substr(0, after_name) + " (" + hint + ")" + make_error.substr(after_name);
}

}  // namespace tpu
