// The placeholders a pod's ranks fill in for themselves where one command line (tpu run --boards K)
// or one environment serves every rank: "{rank}" in an infeed file's name, a serial line, TF_CONFIG,
// and "{local_rank}" (the rank's number on its machine) in a serial line or socket.
#pragma once
#include <string>

namespace tpu {

inline constexpr const char* kRankPlaceholder = "{rank}";
inline constexpr const char* kLocalRankPlaceholder = "{local_rank}";

// `text` with every `placeholder` replaced by `number` ("x.{rank}.npy", 1 -> "x.1.npy").
inline std::string fill_placeholder(std::string text, const std::string& placeholder, unsigned number) {
  const std::string value = std::to_string(number);
  for (size_t at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at + value.size()))
    text.replace(at, placeholder.size(), value);
  return text;
}

inline bool has_placeholder(const std::string& text, const std::string& placeholder) {
  return text.find(placeholder) != std::string::npos;
}

}  // namespace tpu
