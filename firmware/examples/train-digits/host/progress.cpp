// train-digits, host half: what the user sees of a training run.
//   log_steps(text "<total steps> <global batch>", first step: float32 scalar, losses, accuracies:
//       float32[k]) ->
//       nothing: the k steps from `first step` on (one launch's), appended as
//       "step,loss,accuracy,samples_per_second,seconds" to <outfeed dir>/train.csv (header first;
//       the rate and the host's clock since the first report are per launch) and shows
//       progress: a bar redrawn in place on a terminal, a line per tenth of the run otherwise (and
//       in a pod) (step, samples/s since step 0, loss, accuracy).
//   training_done() -> nothing: starts drawing the loss and accuracy curves from train.csv into
//       <outfeed dir>/train.png with matplotlib (Debian's python3-matplotlib) and returns at once, so
//       the board's run does not wait for the plot; tpu waits for it before it exits, and the plot
//       says what it wrote, or why it could not (matplotlib missing: the package to install).
// In a pod of boards every board trains the same model, so task 0 alone reports (call.task()).
#include <sys/wait.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "host-tools/lib/functions/app_host.hpp"
#include "run_folder.hpp"

namespace {

struct Progress {
  std::chrono::steady_clock::time_point start;  // when step 0 was reported
  std::chrono::steady_clock::time_point last;
  long last_step = -1;
  long last_reported_tenth = -1;
};

Progress progress;

// train.csv, kept open from call to call (a launch's report is one buffered write, not an open, a
// write and a close: log_steps comes every steps_per_run steps); flushed every tenth of the run
// and before the curves are drawn from it.
struct CsvLog {
  std::filesystem::path path;
  std::ofstream file;

  std::ofstream& for_steps(const std::filesystem::path& csv, bool fresh) {
    if (fresh || csv != path || !file.is_open()) {
      file.close();
      const bool header = fresh || !std::filesystem::exists(csv);
      file.open(csv, header ? std::ios::trunc : std::ios::app);
      if (header) file << "step,loss,accuracy,samples_per_second,seconds\n";
      path = csv;
    }
    return file;
  }
};
CsvLog csv_log;

// `value` with `digits` significant digits, as printf's %.<digits>g writes it.
void append_number(std::string& text, double value, int digits) {
  char buffer[32];
  const std::to_chars_result written = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, digits);
  text.append(buffer, written.ptr);
}

float scalar(const tpu::HostCall& call, size_t index) {
  const std::vector<float> value = call.values<float>(index);
  if (value.size() != 1) throw tpu::HostError(rt::StatusCode::kInvalidArgument, call.function() + ": expected scalars");
  return value[0];
}

std::string bar(long step, long total, double samples_per_second, float loss, float accuracy) {
  const int width = 30;
  const int done = total > 0 ? static_cast<int>(width * (step + 1) / total) : 0;
  std::ostringstream line;
  line << "[" << std::string(done, '#') << std::string(width - done, '.') << "] step " << step + 1 << "/" << total
       << "  " << std::fixed << std::setprecision(0);
  if (samples_per_second > 0) line << samples_per_second;
  else line << "--";  // the first launch's report starts the clock: no rate yet
  line << " samples/s  loss " << std::setprecision(4) << loss << "  accuracy " << std::setprecision(3) << accuracy;
  return line.str();
}

}  // namespace

TPU_HOST_FUNCTION(log_steps, call) {
  if (call.task() != 0) return {};  // a pod: task 0 reports for every board
  long total = 0;
  double samples_per_step = 0;  // the global batch
  if (!(std::istringstream(call.text()) >> total >> samples_per_step) || samples_per_step <= 0)
    throw tpu::HostError(rt::StatusCode::kInvalidArgument,
                         "log_steps: the text is '<total steps> <global batch>', not '" + call.text() + "'");
  const long first = static_cast<long>(scalar(call, 0));
  const std::vector<float> losses = call.values<float>(1), accuracies = call.values<float>(2);
  if (losses.empty() || losses.size() != accuracies.size())
    throw tpu::HostError(rt::StatusCode::kInvalidArgument, "log_steps: as many losses as accuracies, at least one");
  const long last = first + static_cast<long>(losses.size()) - 1;
  const auto now = std::chrono::steady_clock::now();
  if (first == 0) progress = Progress{now, now};
  // The CSV gets the launch's rate; the bar the average since the first report (steadier).
  const double seconds = std::chrono::duration<double>(now - progress.last).count();
  const double rate = last > progress.last_step && seconds > 0 ? (last - progress.last_step) * samples_per_step / seconds : 0;
  const double elapsed = std::chrono::duration<double>(now - progress.start).count();
  const double average = last > 0 && elapsed > 0 ? last * samples_per_step / elapsed : rate;
  progress.last = now;
  progress.last_step = last;
  const std::filesystem::path csv = run_folder(call) / "train.csv";
  std::ofstream& file = csv_log.for_steps(csv, first == 0);
  std::string rows;  // printf's %.9g and %.6g, without an ostream's locale work per number
  for (size_t i = 0; i < losses.size(); ++i) {
    rows += std::to_string(first + static_cast<long>(i));
    for (const auto& [value, digits] : {std::pair<double, int>{losses[i], 9}, {accuracies[i], 9}, {rate, 6}, {elapsed, 6}})
      append_number(rows += ',', value, digits);
    rows += '\n';
  }
  file << rows;
  const float loss = losses.back(), accuracy = accuracies.back();
  const long tenth = total > 0 ? 10 * (last + 1) / total : 0;
  const bool new_tenth = tenth != progress.last_reported_tenth;
  progress.last_reported_tenth = tenth;
  // Redrawn in place only on a terminal of one board's run: in a pod mpirun tags each line with its
  // task, so a bar that never ends its line would come out as one line at the end.
  if (isatty(STDOUT_FILENO) && call.num_tasks() == 1)
    call.out() << "\r" << bar(last, total, average, loss, accuracy) << (last + 1 == total ? "\n" : "") << std::flush;
  else if (new_tenth)
    call.out() << bar(last, total, average, loss, accuracy) << std::endl;
  if (new_tenth) file.flush();
  if (!file) throw tpu::HostError(rt::StatusCode::kUnavailable, "log_steps: cannot write " + csv.string());
  return {};
}

namespace {

// What came of drawing the curves, said by the plotting process once python3 has ended.
void report_plot(int status, const std::filesystem::path& folder) {
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
    std::cerr << "train-digits: no train.png: matplotlib is missing (Debian: python3-matplotlib)" << std::endl;
  else if (status != 0)
    std::cerr << "train-digits: no train.png: plotting " << (folder / "train.csv").string() << " failed" << std::endl;
  else
    std::cout << "train-digits: wrote " << (folder / "train.png").string() << " from " << (folder / "train.csv").string()
              << std::endl;
}

// Draws the curves in a process of its own, which runs Debian's python3 (where Debian's matplotlib
// is) on `script` (python3 -c: no file left behind), the folder as its argument, no shell, then
// reports. The host functions' worker waits for its children before it ends and tpu for the worker,
// so train.png is complete by the time tpu's exit status is known.
void start_plot(const std::filesystem::path& folder, const std::string& script) {
  std::cout.flush();
  std::cerr.flush();
  if (fork() != 0) return;  // (if fork fails there is no plot, and no error to the board either)
  const std::string python = "/usr/bin/python3", folder_path = folder.string();
  const pid_t child = fork();
  if (child == 0) {
    execl(python.c_str(), python.c_str(), "-c", script.c_str(), folder_path.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = -1;
  if (child > 0) waitpid(child, &status, 0);
  report_plot(status, folder);
  _exit(0);
}

}  // namespace

TPU_HOST_FUNCTION(training_done, call) {
  if (call.task() != 0) return {};
  csv_log.file.close();  // every step's row in train.csv before the curves are drawn from it
  const std::filesystem::path folder = run_folder(call);
  const std::string script =
      "import csv, sys\n"
      "try:\n"
      "    import matplotlib\n"
      "except ImportError:\n"
      "    sys.exit(3)\n"
      "matplotlib.use('Agg')\n"
      "import matplotlib.pyplot as plt\n"
      "rows = list(csv.DictReader(open(sys.argv[1] + '/train.csv')))\n"
      "step = [int(r['step']) for r in rows]\n"
      "fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))\n"
      "a.plot(step, [float(r['loss']) for r in rows]); a.set_xlabel('step'); a.set_ylabel('loss'); a.set_yscale('log')\n"
      "b.plot(step, [float(r['accuracy']) for r in rows]); b.set_xlabel('step'); b.set_ylabel('batch accuracy')\n"
      "fig.suptitle('train-digits: MLP 64-128-10 on the handwritten digits')\n"
      "fig.tight_layout(); fig.savefig(sys.argv[1] + '/train.png', dpi=80)\n";
  start_plot(folder, script);
  return {};
}
