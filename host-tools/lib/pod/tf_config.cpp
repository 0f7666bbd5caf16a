// TF_CONFIG read and checked (tf_config.hpp): a small JSON reader for the object, arrays, strings and
// numbers TF_CONFIG holds (true, false and null are accepted and ignored).
#include "tf_config.hpp"

#include <cctype>
#include <map>
#include <memory>

#include "host-tools/lib/text/json_string.hpp"

namespace tpu {
namespace {

struct Json {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = Kind::kNull;
  double number = 0;
  std::string text;
  std::vector<Json> items;
  std::map<std::string, Json> fields;
};

class Reader {
 public:
  explicit Reader(const std::string& text) : text_(text) {}

  std::optional<Json> document(std::string& error) {
    std::optional<Json> value = read_value(error);
    skip_space();
    if (value && at_ != text_.size()) {
      error = "unexpected '" + std::string(1, text_[at_]) + "' at byte " + std::to_string(at_);
      return std::nullopt;
    }
    return value;
  }

 private:
  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  bool take(char c) {
    skip_space();
    if (at_ < text_.size() && text_[at_] == c) return ++at_, true;
    return false;
  }
  std::optional<Json> fail(std::string& error, const std::string& what) {
    error = what + " at byte " + std::to_string(at_);
    return std::nullopt;
  }
  std::optional<std::string> read_string(std::string& error) {
    if (!take('"')) {
      error = "expected a string at byte " + std::to_string(at_);
      return std::nullopt;
    }
    const size_t start = at_ - 1;
    std::optional<std::string> out = read_json_string(text_, at_);
    if (!out) error = "unterminated string, or a malformed escape in it, from byte " + std::to_string(start);
    return out;
  }
  std::optional<Json> read_value(std::string& error) {
    if (++depth_ > 32) return fail(error, "nested too deeply");
    skip_space();
    if (at_ == text_.size()) return fail(error, "unexpected end");
    Json value;
    const char c = text_[at_];
    if (c == '{') {
      ++at_;
      value.kind = Json::Kind::kObject;
      if (!take('}')) {
        do {
          std::optional<std::string> key = read_string(error);
          if (!key) return std::nullopt;
          if (!take(':')) return fail(error, "expected ':'");
          std::optional<Json> field = read_value(error);
          if (!field) return std::nullopt;
          value.fields[*key] = std::move(*field);
        } while (take(','));
        if (!take('}')) return fail(error, "expected '}'");
      }
    } else if (c == '[') {
      ++at_;
      value.kind = Json::Kind::kArray;
      if (!take(']')) {
        do {
          std::optional<Json> item = read_value(error);
          if (!item) return std::nullopt;
          value.items.push_back(std::move(*item));
        } while (take(','));
        if (!take(']')) return fail(error, "expected ']'");
      }
    } else if (c == '"') {
      std::optional<std::string> text = read_string(error);
      if (!text) return std::nullopt;
      value.kind = Json::Kind::kString;
      value.text = std::move(*text);
    } else if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      size_t used = 0;
      try {
        value.number = std::stod(text_.substr(at_), &used);
      } catch (...) {
        return fail(error, "bad number");
      }
      at_ += used;
      value.kind = Json::Kind::kNumber;
    } else {
      for (const char* word : {"true", "false", "null"})
        if (text_.compare(at_, std::char_traits<char>::length(word), word) == 0) {
          at_ += std::char_traits<char>::length(word);
          --depth_;
          return value;
        }
      return fail(error, "unexpected '" + std::string(1, c) + "'");
    }
    --depth_;
    return value;
  }

  const std::string& text_;
  size_t at_ = 0;
  int depth_ = 0;
};

const Json* field(const Json& object, const std::string& name) {
  if (object.kind != Json::Kind::kObject) return nullptr;
  const auto found = object.fields.find(name);
  return found == object.fields.end() ? nullptr : &found->second;
}

}  // namespace

std::optional<TfConfig> parse_tf_config(const std::string& json, std::string& error) {
  Reader reader(json);
  std::string problem;
  const std::optional<Json> document = reader.document(problem);
  if (!document) {
    error = "TF_CONFIG is not JSON: " + problem;
    return std::nullopt;
  }
  TfConfig config;
  const Json* cluster = field(*document, "cluster");
  const Json* workers = cluster ? field(*cluster, "worker") : nullptr;
  if (workers == nullptr || workers->kind != Json::Kind::kArray) {
    error = "TF_CONFIG has no cluster.worker list";
    return std::nullopt;
  }
  for (const Json& worker : workers->items) {
    if (worker.kind != Json::Kind::kString) {
      error = "TF_CONFIG's cluster.worker holds something other than \"host:port\" strings";
      return std::nullopt;
    }
    config.workers.push_back(worker.text);
  }
  const Json* task = field(*document, "task");
  const Json* type = task ? field(*task, "type") : nullptr;
  const Json* index = task ? field(*task, "index") : nullptr;
  if (type == nullptr || type->kind != Json::Kind::kString || index == nullptr || index->kind != Json::Kind::kNumber ||
      index->number < 0 || index->number != static_cast<double>(static_cast<unsigned>(index->number))) {
    error = "TF_CONFIG has no task with a type and a whole index";
    return std::nullopt;
  }
  config.task_type = type->text;
  config.task_index = static_cast<unsigned>(index->number);
  return config;
}

std::string check_tf_config(const TfConfig& config, unsigned rank, unsigned size) {
  if (config.task_type != "worker")
    return "TF_CONFIG's task is a '" + config.task_type + "'; a pod's boards are TPU workers (type \"worker\")";
  if (config.task_index != rank)
    return "TF_CONFIG says task " + std::to_string(config.task_index) + ", but this is rank " + std::to_string(rank) +
           " of the pod (each rank's TF_CONFIG names its own rank; under tpu run --boards, whose ranks share one "
           "TF_CONFIG, write \"index\": {rank})";
  if (config.workers.size() != size)
    return "TF_CONFIG lists " + std::to_string(config.workers.size()) + " workers, but the pod has " +
           std::to_string(size) + " ranks";
  return "";
}

}  // namespace tpu
