// Hang triage from board memory (core_triage.hpp).
#include "core_triage.hpp"

#include <cstdio>
#include <map>

#include "core_diagnosis.hpp"
#include "runtime/trace/core_status.hpp"

namespace tpu {

CoreStatusRead read_board_statuses(const BoardChannel& channel, unsigned cores_hint) {
  CoreStatusRead read;
  if (channel.transport() != "shm") {
    read.problem = "not possible on the " + channel.transport() +
                   " link: tpu cannot read the board's memory there (only the shared-memory link maps it); the "
                   "cores' own timeout errors are all the board reports";
    return read;
  }
  const std::optional<CoreStatusPlace> place = channel.core_status_place();
  if (!place) {
    read.problem = "the board has announced no status table: it had not attached to the shared-memory link yet "
                   "(still starting, or stopped before it could)";
    return read;
  }
  const BoardRamReader reader = [&channel](uint64_t address, uint64_t bytes) {
    return channel.read_board_ram(address, bytes);
  };
  return read_core_statuses(reader, place->address, place->bytes, cores_hint);
}

namespace {

using rt::trace::CoreState;

// Sets running_at for the running cores of `read` (read_board_triage).
void locate_running_cores(CoreStatusRead& read, BoardChannel& channel, const AddressNamer& name_address) {
  std::vector<unsigned> running;
  for (const CoreSnapshot& core : read.cores)
    if (static_cast<CoreState>(core.now.state) == CoreState::kRunning) running.push_back(core.core);
  if (running.empty()) return;
  const std::map<unsigned, uint64_t> pcs = channel.core_program_counters(running);
  for (CoreSnapshot& core : read.cores) {
    const auto pc = pcs.find(core.core);
    if (pc == pcs.end()) continue;
    char hex[24];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(pc->second));
    const std::string where = name_address ? name_address(pc->second) : "";
    core.running_at = std::string("pc ") + hex + (where.empty() ? "" : ": " + where);
  }
}

}  // namespace

CoreStatusRead read_board_triage(BoardChannel& channel, const LinkSession& session, const AddressNamer& name_address) {
  CoreStatusRead read = read_board_statuses(channel, session.board() ? session.board()->cores : 0);
  locate_running_cores(read, channel, name_address);
  return read;
}

void print_core_triage(const CoreStatusRead& read, std::ostream& out) {
  if (!read.problem.empty()) {
    out << "tpu: hang triage: " << read.problem << std::endl;
    return;
  }
  if (read.cores.size() == 1) {  // the summary would only say the core's line again
    out << "tpu: hang triage: " << describe_core(read.cores[0], 1) << std::endl;
    return;
  }
  out << "tpu: hang triage: " << diagnose(read.cores) << std::endl;
  for (const CoreSnapshot& core : read.cores)
    out << "tpu:   " << describe_core(core, static_cast<unsigned>(read.cores.size())) << std::endl;
}


}  // namespace tpu
