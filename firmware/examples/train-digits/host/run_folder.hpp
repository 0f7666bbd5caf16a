// train-digits, host half: the run's folder (tpu run --outfeed-dir), where prepare_digits.py put the
// run's files and where the host half writes train.csv and train.png.
#pragma once
#include <filesystem>

#include "host-tools/lib/functions/app_host.hpp"

// The folder, or FAILED_PRECONDITION naming the calling host function when tpu ran without one.
inline std::filesystem::path run_folder(const tpu::HostCall& call) {
  if (!call.output_dir())
    throw tpu::HostError(rt::StatusCode::kFailedPrecondition,
                         call.function() + ": run with --outfeed-dir DIR, DIR holding prepare_digits.py's files");
  return *call.output_dir();
}
