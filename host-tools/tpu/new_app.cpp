// Creating an app folder from the template (new_app.hpp).
#include "new_app.hpp"

#include "host-tools/lib/board/make_driver.hpp"

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace tpu {
namespace {

constexpr int kExitUsage = 2;

// Letters, digits, '-' and '_', starting with a letter: it becomes the app's name on the console
// ("PASS <name>") and in file names.
bool valid_app_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || !std::isalpha(static_cast<unsigned char>(name[0]))) return false;
  for (const char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  return true;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

bool copy_template(const std::filesystem::path& from, const std::filesystem::path& to, const std::string& name) {
  for (const auto& entry : std::filesystem::recursive_directory_iterator(from)) {
    const std::filesystem::path target = to / std::filesystem::relative(entry.path(), from);
    if (entry.is_directory()) {
      std::filesystem::create_directories(target);
      continue;
    }
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    std::ofstream out(target, std::ios::binary);
    out << replaced(text.str(), "@NAME@", name);
    if (!in || !out) {
      std::cerr << "tpu new: cannot write " << target.string() << std::endl;
      return false;
    }
    std::cout << "  " << target.string() << std::endl;
  }
  return true;
}

}  // namespace

int new_app(const std::filesystem::path& root, const std::filesystem::path& folder) {
  const std::string name = folder.filename().string();
  if (!valid_app_name(name)) {
    std::cerr << "tpu new: '" << name << "' is not an app name (letters, digits, - and _, starting with a letter)"
              << std::endl;
    return kExitUsage;
  }
  std::error_code error;
  if (std::filesystem::exists(folder, error) &&
      (!std::filesystem::is_directory(folder, error) || !std::filesystem::is_empty(folder, error))) {
    std::cerr << "tpu new: " << folder.string() << " already exists and is not an empty folder" << std::endl;
    return kExitUsage;
  }
  const std::filesystem::path from = root / "host-tools" / "templates" / "app";
  if (!std::filesystem::is_directory(from, error)) {
    std::cerr << "tpu new: the app template is missing (" << from.string() << ")" << std::endl;
    return kExitUsage;
  }
  std::filesystem::create_directories(folder, error);
  if (error) {
    std::cerr << "tpu new: cannot create " << folder.string() << ": " << error.message() << std::endl;
    return kExitUsage;
  }
  std::cout << "tpu new: created app " << name << ":" << std::endl;
  if (!copy_template(from, folder, name)) return kExitUsage;
  const std::string boards = boards_text(repository_boards(root), "|");
  if (names_a_repository_app(root, name))
    std::cout << "note: the repository also has an app named " << name << ": `tpu run " << name << "` runs this one in "
              << folder.parent_path().string() << ", the repository's anywhere else" << std::endl;
  std::cout << "next:\n  tpu run " << folder.string() << "                  (any board: --board " << boards << ")\n"
            << "  tpu test " << folder.string() << "                 (what app.toml declares, on every board)" << std::endl;
  return 0;
}

}  // namespace tpu
