// The application interface: what an app provides to the firmware. An app's device half is a
// function every core runs concurrently once all cores are up; its verdict per core is reported on
// the console as "PASS <app>" or "FAIL <app>: <message>" and decides the exit status.
#pragma once
#include <stdint.h>

#include "hal/support/status.hpp"

namespace firmware {

struct CoreContext {
  unsigned core;   // this core's logical id
  unsigned cores;  // cores taking part
};

struct App {
  const char* name;
  const char* description;
  rt::Status (*run)(const CoreContext& context);
  // Optional: runs once on the boot core after all cores are up and before any core runs `run`.
  void (*init)(unsigned cores) = nullptr;
  // Fault injection for the firmware's own tests: cores the firmware deliberately never starts, to
  // prove that a core which never comes up is reported by id. Zero for every real app.
  uint32_t withheld_cores = 0;
  // How long the boot core waits for the others, in ms (0: the firmware's 10 s). An image that
  // withholds a core shortens it, so its boot failure comes sooner.
  uint32_t boot_timeout_ms = 0;
};

// Each app defines exactly one of these (an app folder: firmware/examples/<name>/, tests/device/<name>/, ...).
extern const App kApp;

}  // namespace firmware
