// fault-null: core 3 dereferences a null pointer (a test image). The expected outcome is a fault
// report naming core 3 and address 0, and a failing exit status; the other cores wait meanwhile.
#include "tests/faults/fault_on_core.hpp"

namespace {

constexpr unsigned kFaultingCore = 3;

rt::Status run(const firmware::CoreContext& context) {
  return fault_images::fault_on_core(context, kFaultingCore, "fault-null", [&]() -> rt::Status {
    volatile uint32_t* null_pointer = nullptr;
    *null_pointer = 0xdead;  // must fault
    return rt::internal_error("core {} wrote through a null pointer without faulting", context.core);
  });
}

}  // namespace

const firmware::App firmware::kApp = {"fault-null", "test image: null dereference on core 3", run};
