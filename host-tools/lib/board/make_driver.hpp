// The host tools' use of the project Makefile, so board facts (toolchains, QEMU command lines,
// valid core counts) stay in boards/<board>/board.mk: `make image` builds an app's firmware and
// `make print-run-command` says how to start an image (IMAGE=<path> on make's command line
// overrides the image path, so any ELF can be run the way `make run` would). The builds hold the
// repository's build lock (build_lock.hpp), so concurrent tpu runs never build the same files at once.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tpu {

struct CommandOutput {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs argv in `directory`, collecting its output (stdin from /dev/null).
CommandOutput run_and_collect(const std::vector<std::string>& argv, const std::filesystem::path& directory);

// The project root: the repository the tools were built in (compiled in) if it still has a Makefile
// and boards/, else the directory two levels above the tpu binary (build/host-tools/tpu), else the
// current directory if it has them, else nothing.
std::optional<std::filesystem::path> find_repository_root();

// The boards of the repository at `root`: the folders of boards/ that hold a board.mk (boards are
// data; this is the one list the tool asks), sorted by name.
std::vector<std::string> repository_boards(const std::filesystem::path& root);

// Whether `name` is also the name of one of the repository's apps (make print-app-folders): a
// folder of that name beside the user is not that app.
bool names_a_repository_app(const std::filesystem::path& root, const std::string& name);

// The boards of the repository tpu belongs to (find_repository_root); none outside a repository.
std::vector<std::string> known_boards();

// Board names joined for a help text or an error ("host, qemu-virt-a53, ..."; "host|qemu-virt-a53").
std::string boards_text(const std::vector<std::string>& boards, const std::string& separator = ", ");
// "host,qemu-virt-a53" -> {"host", "qemu-virt-a53"} (--board of a pod of different kinds).
std::vector<std::string> boards_of_list(const std::string& list);

// `make -s image BOARD=.. APP=..`, its output passed through to stderr; "" or the failure.
std::string build_image(const std::filesystem::path& root, const std::string& board, const std::string& app);

// The command `make run` would execute, split into words; or nothing with `error` set. `variables`
// go on make's command line too (e.g. LINK_SHM=<file> for the shared-memory link). cores 0: the
// board's default count.
std::optional<std::vector<std::string>> run_command(const std::filesystem::path& root, const std::string& board,
                                                    unsigned cores, const std::string& app,
                                                    const std::optional<std::filesystem::path>& image,
                                                    std::string& error, const std::vector<std::string>& variables = {});

// The app's own tool (`make -s app-tool APP=..`, built first): the tpu tool plus the
// app's host functions. Nothing, with `error` empty, if the app has no host half; nothing with
// `error` set if it did not build.
std::optional<std::filesystem::path> build_app_tool(const std::filesystem::path& root, const std::string& app,
                                                         std::string& error);

// The board's valid core counts (`make print-board-cores`); nothing with `error` set.
std::optional<std::vector<unsigned>> valid_core_counts(const std::filesystem::path& root, const std::string& board,
                                                       std::string& error);

// The bytes `board` boots for `app` (or for the ELF `image`), built first (make image / boot-image):
// what `tpu run --chainboot` sends; nothing with `error` set.
std::optional<std::vector<uint8_t>> built_boot_image(const std::filesystem::path& root, const std::string& board,
                                                     const std::string& app,
                                                     const std::optional<std::filesystem::path>& image,
                                                     std::string& error);

// The board's addr2line and the ELF `app` (or `image`) runs as (`make print-fault-symbolizer`);
// nothing if make cannot say or the ELF is not there.
struct FaultSymbolizerCommand {
  std::string addr2line;
  std::filesystem::path elf;
};
std::optional<FaultSymbolizerCommand> fault_symbolizer_command(const std::filesystem::path& root, const std::string& board,
                                                               const std::string& app,
                                                               const std::optional<std::filesystem::path>& image);

// `make print-link-layout`'s line for `board` (RAM file bytes, window offset, window bytes).
std::optional<std::string> link_layout_text(const std::filesystem::path& root, const std::string& board,
                                            std::string& error);

// The board an image was built for, from the tag every tpu-pod image carries ("tpu-pod image:
// board=<name>", firmware/image_tag.cpp); nothing with `error` saying why: not a readable file, not
// an ELF file, or an ELF without the tag (not built by this project).
std::optional<std::string> board_of_image(const std::filesystem::path& image, std::string& error);

// `make -s boot-image BOARD=.. IMAGE=..`: what the board boots made from the ELF (raspi3b's
// kernel8.img next to it; nothing to do elsewhere); "" or the failure.
std::string build_boot_image(const std::filesystem::path& root, const std::string& board,
                             const std::filesystem::path& image);

}  // namespace tpu
