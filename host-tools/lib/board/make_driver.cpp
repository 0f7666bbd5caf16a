// Makefile invocations and image facts (see make_driver.hpp).
#include "make_driver.hpp"

#include <algorithm>

#include "build_lock.hpp"
#include "host-tools/lib/text/closest_name.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <iostream>
#include <sstream>

namespace tpu {
namespace {

std::string shell_quote(const std::string& word) {
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string joined_command(const std::vector<std::string>& argv) {
  std::string command;
  for (const std::string& word : argv) command += (command.empty() ? "" : " ") + shell_quote(word);
  return command;
}

bool is_project_root(const std::filesystem::path& directory) {
  std::error_code ignored;
  return std::filesystem::exists(directory / "Makefile", ignored) && std::filesystem::is_directory(directory / "boards", ignored);
}

// The reason in make's "Makefile:61: *** <reason>.  Stop." line, or all of its output.
std::string make_error_text(const std::string& output) {
  const size_t stars = output.find("*** ");
  if (stars == std::string::npos) return output;
  std::string reason = output.substr(stars + 4);
  reason = reason.substr(0, reason.find('\n'));
  if (const size_t stop = reason.rfind("  Stop."); stop != std::string::npos) reason.erase(stop);
  return with_name_suggestion(reason);  // an unknown APP or BOARD that is a typo of a valid one
}

std::string last_nonempty_line(const std::string& text) {
  std::istringstream lines(text);
  std::string line, last;
  while (std::getline(lines, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last;
}

// The file `board` boots for `app` (or made from the ELF `image`): `make print-boot-image`.
std::optional<std::filesystem::path> boot_image_path(const std::filesystem::path& root, const std::string& board,
                                                     const std::string& app,
                                                     const std::optional<std::filesystem::path>& image,
                                                     std::string& error) {
  std::vector<std::string> argv = {"make", "-s", "print-boot-image", "BOARD=" + board};
  argv.push_back(image ? "IMAGE=" + image->string() : "APP=" + app);
  const CommandOutput listed = run_and_collect(argv, root);
  const std::string path = last_nonempty_line(listed.output);
  if (listed.exit_code != 0 || path.empty()) {
    error = "`" + joined_command(argv) + "` failed:\n" + listed.output;
    return std::nullopt;
  }
  return std::filesystem::path(path).is_absolute() ? std::filesystem::path(path) : root / path;
}

}  // namespace

CommandOutput run_and_collect(const std::vector<std::string>& argv, const std::filesystem::path& directory) {
  const std::string command = "cd " + shell_quote(directory.string()) + " && " + joined_command(argv) + " </dev/null 2>&1";
  CommandOutput result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer;
  for (size_t got; (got = fread(buffer.data(), 1, buffer.size(), pipe)) > 0;) result.output.append(buffer.data(), got);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return result;
}

std::optional<std::filesystem::path> find_repository_root() {
  std::error_code error;
#ifdef TPU_REPOSITORY_ROOT
  if (is_project_root(TPU_REPOSITORY_ROOT)) return std::filesystem::path(TPU_REPOSITORY_ROOT);
#endif
  const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const std::filesystem::path candidate = executable.parent_path().parent_path().parent_path();
    if (is_project_root(candidate)) return candidate;
  }
  const std::filesystem::path here = std::filesystem::current_path(error);
  if (!error && is_project_root(here)) return here;
  return std::nullopt;
}

std::vector<std::string> repository_boards(const std::filesystem::path& root) {
  std::vector<std::string> boards;
  std::error_code error;
  for (const std::filesystem::directory_entry& entry : std::filesystem::directory_iterator(root / "boards", error))
    if (std::filesystem::is_regular_file(entry.path() / "board.mk", error)) boards.push_back(entry.path().filename().string());
  std::sort(boards.begin(), boards.end());
  return boards;
}

bool names_a_repository_app(const std::filesystem::path& root, const std::string& name) {
  const CommandOutput listed = run_and_collect({"make", "-s", "print-app-folders"}, root);
  std::istringstream folders(listed.output);
  for (std::string folder; folders >> folder;)
    if (std::filesystem::path(folder).filename() == name) return true;
  return false;
}

std::vector<std::string> known_boards() {
  const std::optional<std::filesystem::path> root = find_repository_root();
  return root ? repository_boards(*root) : std::vector<std::string>{};
}

std::vector<std::string> boards_of_list(const std::string& list) {
  std::vector<std::string> boards;
  std::string rest = list + ",";
  for (size_t comma; (comma = rest.find(',')) != std::string::npos; rest.erase(0, comma + 1))
    boards.push_back(rest.substr(0, comma));
  return boards;
}

std::string boards_text(const std::vector<std::string>& boards, const std::string& separator) {
  std::string text;
  for (const std::string& board : boards) text += (text.empty() ? "" : separator) + board;
  return text;
}

std::string build_image(const std::filesystem::path& root, const std::string& board, const std::string& app) {
  const std::vector<std::string> argv = {"make", "-s", "image", "BOARD=" + board, "APP=" + app};
  const BuildLock lock(root, std::cerr);
  const CommandOutput built = run_and_collect(argv, root);
  std::cerr << built.output;
  if (built.exit_code == 0) return "";
  return "`" + joined_command(argv) + "` failed with status " + std::to_string(built.exit_code);
}

std::optional<std::vector<std::string>> run_command(const std::filesystem::path& root, const std::string& board,
                                                    unsigned cores, const std::string& app,
                                                    const std::optional<std::filesystem::path>& image,
                                                    std::string& error, const std::vector<std::string>& variables) {
  std::vector<std::string> argv = {"make", "-s", "print-run-command", "BOARD=" + board};
  if (cores != 0) argv.push_back("CORES=" + std::to_string(cores));
  if (!app.empty()) argv.push_back("APP=" + app);
  if (image) argv.push_back("IMAGE=" + image->string());
  argv.insert(argv.end(), variables.begin(), variables.end());
  const CommandOutput listed = run_and_collect(argv, root);
  if (listed.exit_code != 0) {
    error = "`" + joined_command(argv) + "` failed:\n" + listed.output;
    return std::nullopt;
  }
  std::istringstream words(last_nonempty_line(listed.output));
  std::vector<std::string> command;
  for (std::string word; words >> word;) command.push_back(word);
  if (command.empty()) {
    error = "`" + joined_command(argv) + "` printed no command";
    return std::nullopt;
  }
  return command;
}

std::optional<std::filesystem::path> build_app_tool(const std::filesystem::path& root, const std::string& app,
                                                         std::string& error) {
  const std::vector<std::string> query = {"make", "-s", "print-app-tool", "APP=" + app};
  const CommandOutput listed = run_and_collect(query, root);
  if (listed.exit_code != 0) {  // make's own reason (an unknown app, say), not a build failure
    error = make_error_text(listed.output);
    return std::nullopt;
  }
  const std::string program = last_nonempty_line(listed.output);
  if (program.empty()) return std::nullopt;
  const std::vector<std::string> build = {"make", "-s", "app-tool", "APP=" + app};
  const BuildLock lock(root, std::cerr);
  const CommandOutput built = run_and_collect(build, root);
  std::cerr << built.output;
  if (built.exit_code != 0) {
    error = "the app's own tool (its host half, and its device half built for the host board) did not build: `" +
            joined_command(build) + "` failed with status " + std::to_string(built.exit_code);
    return std::nullopt;
  }
  return root / program;
}

std::optional<std::vector<unsigned>> valid_core_counts(const std::filesystem::path& root, const std::string& board,
                                                       std::string& error) {
  const std::vector<std::string> argv = {"make", "-s", "print-board-cores", "BOARD=" + board};
  const CommandOutput listed = run_and_collect(argv, root);
  std::istringstream words(last_nonempty_line(listed.output));
  std::vector<unsigned> counts;
  for (unsigned count; words >> count;) counts.push_back(count);
  if (listed.exit_code != 0 || counts.empty()) {
    error = "`" + joined_command(argv) + "` failed:\n" + listed.output;
    return std::nullopt;
  }
  return counts;
}

std::optional<FaultSymbolizerCommand> fault_symbolizer_command(const std::filesystem::path& root, const std::string& board,
                                                               const std::string& app,
                                                               const std::optional<std::filesystem::path>& image) {
  std::vector<std::string> argv = {"make", "-s", "print-fault-symbolizer", "BOARD=" + board};
  if (!app.empty()) argv.push_back("APP=" + app);
  if (image) argv.push_back("IMAGE=" + std::filesystem::absolute(*image).string());
  const CommandOutput listed = run_and_collect(argv, root);
  std::istringstream words(last_nonempty_line(listed.output));
  FaultSymbolizerCommand command;
  std::string elf;
  std::error_code ignored;
  if (listed.exit_code != 0 || !(words >> command.addr2line >> elf) || !std::filesystem::is_regular_file(elf, ignored))
    return std::nullopt;
  command.elf = elf;
  return command;
}

std::optional<std::string> link_layout_text(const std::filesystem::path& root, const std::string& board,
                                            std::string& error) {
  const std::vector<std::string> argv = {"make", "-s", "print-link-layout", "BOARD=" + board};
  const CommandOutput listed = run_and_collect(argv, root);
  if (listed.exit_code != 0) {
    error = "`" + joined_command(argv) + "` failed:\n" + listed.output;
    return std::nullopt;
  }
  return last_nonempty_line(listed.output);
}

std::optional<std::vector<uint8_t>> built_boot_image(const std::filesystem::path& root, const std::string& board,
                                                     const std::string& app,
                                                     const std::optional<std::filesystem::path>& image,
                                                     std::string& error) {
  error = image ? build_boot_image(root, board, *image) : build_image(root, board, app);
  if (!error.empty()) return std::nullopt;
  const std::optional<std::filesystem::path> path = boot_image_path(root, board, app, image, error);
  if (!path) return std::nullopt;
  std::ifstream file(*path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (bytes.empty()) {
    error = "cannot read " + path->string();
    return std::nullopt;
  }
  return bytes;
}

std::optional<std::string> board_of_image(const std::filesystem::path& image, std::string& error) {
  std::ifstream file(image, std::ios::binary);
  std::ostringstream bytes;
  bytes << file.rdbuf();
  const std::string content = bytes.str();
  if (!file && content.empty()) {
    error = image.string() + " cannot be read";
    return std::nullopt;
  }
  if (content.size() < 4 || content.compare(0, 4, "\x7f" "ELF") != 0) {
    error = image.string() + " is not an ELF file (a tpu-pod image is the firmware.elf make image builds)";
    return std::nullopt;
  }
  const std::string tag = "tpu-pod image: board=";
  const size_t at = content.find(tag);
  if (at == std::string::npos) {
    error = image.string() + " is an ELF file without the tpu-pod image tag (not built by this project's Makefile)";
    return std::nullopt;
  }
  const size_t begin = at + tag.size(), end = content.find('\0', begin);
  return content.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

std::string build_boot_image(const std::filesystem::path& root, const std::string& board,
                             const std::filesystem::path& image) {
  const std::vector<std::string> argv = {"make", "-s", "boot-image", "BOARD=" + board, "IMAGE=" + image.string()};
  const BuildLock lock(root, std::cerr);
  const CommandOutput built = run_and_collect(argv, root);
  std::cerr << built.output;
  if (built.exit_code == 0) return "";
  return "`" + joined_command(argv) + "` failed with status " + std::to_string(built.exit_code);
}

}  // namespace tpu
