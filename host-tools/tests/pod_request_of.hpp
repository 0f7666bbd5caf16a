// Test helper shared by the pod tests: a pod request parsed from its text, the test failing (with
// the parser's error) if it does not parse. Include it after <catch2/catch.hpp> (a test file's first
// include, which takes Catch2's precompiled header).
#pragma once
#include <optional>
#include <string>

#include "host-tools/lib/pod/pod_collectives.hpp"

inline tpu::PodRequest request_of(const std::string& text) {
  std::string error;
  const std::optional<tpu::PodRequest> request = tpu::parse_pod_request(text, error);
  INFO(error);
  REQUIRE(request.has_value());
  return *request;
}
