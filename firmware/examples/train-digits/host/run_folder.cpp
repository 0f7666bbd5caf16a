// train-digits, host half: what the run's folder (tpu run --outfeed-dir, filled by prepare_digits.py)
// tells the board.
//   run_config() -> int32[3]: the model (0 mlp, 1 cnn, 2 mlp-wide), the cores per replica and the
//       global batch, from <outfeed dir>/model.txt ("cnn 2 32": the CNN split over 2 logical cores,
//       batches of 32 images; the last two may be left out: 1 and 32)
//   initial_weight(text NAME) -> float32 tensor: <outfeed dir>/init_NAME.npy (NAME: w1, b1, w2, b2)
// A missing file is NOT_FOUND naming it; any other weight name or model is INVALID_ARGUMENT.
#include <fstream>

#include "host-tools/lib/functions/app_host.hpp"
#include "host-tools/lib/tensors/npy_read.hpp"
#include "run_folder.hpp"

TPU_HOST_FUNCTION(run_config, call) {
  const std::filesystem::path path = run_folder(call) / "model.txt";
  std::ifstream file(path);
  std::string model;
  int32_t logical_cores = 1, global_batch = 32;
  if (!(file >> model)) throw tpu::HostError(rt::StatusCode::kNotFound, "run_config: cannot read " + path.string());
  int32_t value = 0;
  if (file >> value) {
    logical_cores = value;
    if (file >> value) global_batch = value;
  }
  if (global_batch <= 0)
    throw tpu::HostError(rt::StatusCode::kInvalidArgument, "run_config: " + path.string() + " gives a global batch of " +
                                                               std::to_string(global_batch) + " images");
  const char* const models[] = {"mlp", "cnn", "mlp-wide"};
  for (int32_t kind = 0; kind < 3; ++kind)
    if (model == models[kind]) return tpu::HostTensor::of<int32_t>({3}, {kind, logical_cores, global_batch});
  throw tpu::HostError(rt::StatusCode::kInvalidArgument, "run_config: " + path.string() + " names '" + model +
                                                              "', not mlp, cnn or mlp-wide");
}

TPU_HOST_FUNCTION(initial_weight, call) {
  const std::string& name = call.text();
  if (name != "w1" && name != "b1" && name != "w2" && name != "b2")
    throw tpu::HostError(rt::StatusCode::kInvalidArgument, "initial_weight: no weight named '" + name + "' (w1, b1, w2, b2)");
  const std::filesystem::path path = run_folder(call) / ("init_" + name + ".npy");
  std::string error;
  std::optional<tpu::HostTensor> tensor = tpu::read_npy_file(path, error);
  if (!tensor) throw tpu::HostError(rt::StatusCode::kNotFound, "initial_weight: " + error);
  return *tensor;
}
