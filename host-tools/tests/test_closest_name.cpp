// "Did you mean" hints (host-tools/lib/text/closest_name.hpp): typos of one or two edits find the
// valid name; names too far off, or too short to tell, find none; make's unknown-APP and
// unknown-BOARD lines get the hint, other lines stay as they are.
#include <catch2/catch.hpp>

#include "host-tools/lib/text/closest_name.hpp"

TEST_CASE("closest_name finds the name a typo was meant to be", "[closest_name]") {
  const std::vector<std::string> apps = {"hello", "train-digits", "pod", "pod-hang", "replicate", "readme-examples"};
  CHECK(tpu::closest_name("trian-digits", apps) == "train-digits");  // a swap of neighbours
  CHECK(tpu::closest_name("train-digit", apps) == "train-digits");   // a letter missing
  CHECK(tpu::closest_name("replicaet", apps) == "replicate");
  CHECK(tpu::closest_name("pod-hnag", apps) == "pod-hang");
  CHECK_FALSE(tpu::closest_name("pdo", apps));      // 3 letters: one edit is a third of the name
  CHECK_FALSE(tpu::closest_name("mnist", apps));    // nothing near
  CHECK_FALSE(tpu::closest_name("hello", apps));    // not a typo: the name itself
}

TEST_CASE("closest_name finds a name given with a word left out, if only one fits", "[closest_name]") {
  const std::vector<std::string> boards = {"host", "qemu-virt-a53", "qemu-virt-rv64", "raspi3b"};
  CHECK(tpu::closest_name("qemu-a53", boards) == "qemu-virt-a53");
  CHECK(tpu::closest_name("virt-rv64", boards) == "qemu-virt-rv64");
  CHECK_FALSE(tpu::closest_name("qemu-virt", boards));  // both QEMU boards fit: no hint
  CHECK_FALSE(tpu::closest_name("a53", boards));        // one word is too little to tell
  CHECK_FALSE(tpu::closest_name("a53-qemu", boards));   // the words out of order
  const std::vector<std::string> apps = {"pod", "pod-hang", "pod-mismatch-case", "train-digits"};
  CHECK(tpu::closest_name("pod-case", apps) == "pod-mismatch-case");
}

TEST_CASE("make's unknown APP and BOARD lines get a did-you-mean", "[closest_name]") {
  CHECK(tpu::with_name_suggestion("unknown APP 'trian-digits': neither an app of this repository nor a folder with "
                                  "device/*.cpp; valid apps: hello pod train-digits or a path to an app folder.") ==
        "unknown APP 'trian-digits' (did you mean 'train-digits'?): neither an app of this repository nor a folder "
        "with device/*.cpp; valid apps: hello pod train-digits or a path to an app folder.");
  CHECK(tpu::with_name_suggestion("unknown BOARD 'qemu-virt-a35'; valid boards: host qemu-virt-a53 qemu-virt-rv64 raspi3b") ==
        "unknown BOARD 'qemu-virt-a35' (did you mean 'qemu-virt-a53'?); valid boards: host qemu-virt-a53 "
        "qemu-virt-rv64 raspi3b");
  const std::string far = "unknown APP 'mnist': neither ...; valid apps: hello pod or a path to an app folder.";
  CHECK(tpu::with_name_suggestion(far) == far);
  CHECK(tpu::with_name_suggestion("some other make error") == "some other make error");
}
