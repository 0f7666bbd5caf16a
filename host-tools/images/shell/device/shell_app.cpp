// shell: the firmware shell (firmware/shell.hpp) on core 0's console; `tpu console` is its
// terminal. The other cores wait for the shell to end before they finish: a finishing core reports
// its result on the link, and reading the link there would swallow the shell's input. The app
// passes when the shell ends by `exit` or `reboot` and fails after the idle timeout.
#include "firmware/app.hpp"
#include "firmware/shell.hpp"
#include "hal/support/atomic.hpp"
#include "runtime/sync/wait.hpp"

namespace {

constexpr firmware::ShellOptions kOptions{};
constexpr uint64_t kShellEndMarginNs = 10000ull * 1000000ull;

rt::Atomic<bool> shell_done{false};

rt::Status run(const firmware::CoreContext& context) {
  if (context.core != 0)
    return rt::wait_until([] { return shell_done.load(rt::MemoryOrder::kAcquire); }, "the shell on core 0 to end",
                          kOptions.idle_timeout_ns + kShellEndMarginNs);
  const firmware::ShellEnd end = firmware::run_shell(kOptions);
  shell_done.store(true, rt::MemoryOrder::kRelease);
  if (end == firmware::ShellEnd::kIdle) return rt::deadline_exceeded("the shell had no input for its idle timeout");
  return rt::Status::ok();
}

}  // namespace

const firmware::App firmware::kApp = {"shell", "interactive firmware shell on the console (tpu console)", run};
