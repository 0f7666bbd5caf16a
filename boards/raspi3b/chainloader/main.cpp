// raspi3b UART chainloader: receives an image over the mini UART (the header's GPIO 14/15) into
// 0x80000 and starts it there as the firmware would have, so a developer loads new images without
// swapping the SD card (host side: host-tools/chainboot/chainboot.py, `make chainboot`).
//
// Protocol (all integers little-endian; loader text lines also go to the PL011):
//   loader: "raspi3b-chainboot: ready\n" about once a second while idle
//   host:   "TPUBOOT1", u32 size, u32 CRC-32 (zlib's) of the image
//   loader: "raspi3b-chainboot: receiving <size> bytes\n"  (or "... ERROR: <why>\n", back to idle)
//   host:   the image bytes (only after that line: the mini UART's receive FIFO holds 8 bytes)
//   loader: "raspi3b-chainboot: OK, starting the image\n", then jumps to 0x80000 at EL2 with the
//           firmware's x0; or "... ERROR: <why>\n" (CRC mismatch, a gap over 10 s) and back to idle.
// Runs with MMU and caches off (every access is Device memory: built with -mstrict-align).
#include <stddef.h>
#include <stdint.h>

#include "../../../hal/drivers/bcm2835_gpio.hpp"
#include "../console_uarts.hpp"
#include "../memory_map.hpp"
#include "runtime/link/transport/crc32.hpp"

extern "C" [[noreturn]] void chainloader_jump(uintptr_t entry, uint64_t x0);
extern "C" char __loader_start[];

// The compiler may call these for copies and zeroing; byte loops are safe on Device memory.
extern "C" void* memset(void* destination, int value, size_t size) {
  auto* d = static_cast<volatile uint8_t*>(destination);
  for (size_t i = 0; i < size; ++i) d[i] = static_cast<uint8_t>(value);
  return destination;
}
extern "C" void* memcpy(void* destination, const void* source, size_t size) {
  auto* d = static_cast<volatile uint8_t*>(destination);
  const auto* s = static_cast<const volatile uint8_t*>(source);
  for (size_t i = 0; i < size; ++i) d[i] = s[i];
  return destination;
}

namespace {

constexpr uintptr_t kImageBase = 0x80000;
constexpr char kMagic[] = "TPUBOOT1";
constexpr unsigned kMagicLength = 8;
constexpr uint64_t kFallbackTimerHz = 19200000;  // the Pi 3's crystal, if CNTFRQ was never set

constexpr hal::drivers::Bcm2835Gpio gpio(board::kGpio);
constexpr board::ConsoleUarts uarts{hal::drivers::Pl011{board::kUart0}, hal::drivers::MiniUart{board::kAux}};

uint64_t ticks() {
  uint64_t value;
  asm volatile("isb\n mrs %0, cntpct_el0" : "=r"(value));
  return value;
}

uint64_t ticks_per_second() {
  uint64_t value;
  asm volatile("mrs %0, cntfrq_el0" : "=r"(value));
  return value != 0 ? value : kFallbackTimerHz;
}

void say(const char* text) {
  for (const char* p = "raspi3b-chainboot: "; *p; ++p) uarts.write_byte(static_cast<uint8_t>(*p));
  for (; *text; ++text) uarts.write_byte(static_cast<uint8_t>(*text));
}

void say_number(uint64_t value) {
  char digits[24];
  unsigned n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (n > 0) uarts.write_byte(static_cast<uint8_t>(digits[--n]));
}

// The next byte from the host (mini UART), or -1 once `deadline` (in counter ticks) has passed.
int read_byte_until(uint64_t deadline) {
  for (;;) {
    const int byte = uarts.link().read_byte();
    if (byte >= 0) return byte;
    if (ticks() >= deadline) return -1;
  }
}

// Waits for the magic, announcing readiness about once a second; returns once it has arrived.
void wait_for_magic() {
  unsigned matched = 0;
  uint64_t next_announcement = 0;
  for (;;) {
    if (ticks() >= next_announcement) {
      if (matched == 0) say("ready\n");
      next_announcement = ticks() + ticks_per_second();
    }
    const int byte = uarts.link().read_byte();
    if (byte < 0) continue;
    if (byte == kMagic[matched]) {
      if (++matched == kMagicLength) return;
    } else {
      matched = byte == kMagic[0] ? 1 : 0;
    }
  }
}

bool read_u32(uint32_t& value, uint64_t gap) {
  value = 0;
  for (unsigned i = 0; i < 4; ++i) {
    const int byte = read_byte_until(ticks() + gap);
    if (byte < 0) return false;
    value |= static_cast<uint32_t>(byte) << (8 * i);
  }
  return true;
}

constexpr uint64_t kLongestGapSeconds = 10;

// One transfer: true once a complete image with the right CRC is at kImageBase.
bool receive_image() {
  wait_for_magic();
  // The longest pause between two bytes before the transfer counts as broken: long enough for a
  // busy host (QEMU's emulated UART on a loaded machine stalled a transfer for over 2 s), short
  // enough to report a pulled cable promptly.
  const uint64_t gap = kLongestGapSeconds * ticks_per_second();
  uint32_t size = 0, expected_crc = 0;
  if (!read_u32(size, gap) || !read_u32(expected_crc, gap)) {
    say("ERROR: the header (size, CRC) stopped arriving\n");
    return false;
  }
  const uintptr_t capacity = reinterpret_cast<uintptr_t>(__loader_start) - kImageBase;
  if (size == 0 || size > capacity) {
    say("ERROR: image size ");
    say_number(size);
    uarts.write_byte(' ');
    for (const char* p = "is not in 1 .. "; *p; ++p) uarts.write_byte(static_cast<uint8_t>(*p));
    say_number(capacity);
    uarts.write_byte('\n');
    return false;
  }
  say("receiving ");
  say_number(size);
  for (const char* p = " bytes\n"; *p; ++p) uarts.write_byte(static_cast<uint8_t>(*p));
  uarts.link().flush(10000000);  // the host starts sending once it has read that line
  auto* image = reinterpret_cast<volatile uint8_t*>(kImageBase);
  for (uint32_t i = 0; i < size; ++i) {
    const int byte = read_byte_until(ticks() + gap);
    if (byte < 0) {
      say("ERROR: no byte for 10 s after ");
      say_number(i);
      for (const char* p = " bytes\n"; *p; ++p) uarts.write_byte(static_cast<uint8_t>(*p));
      return false;
    }
    image[i] = static_cast<uint8_t>(byte);
  }
  const uint32_t crc = rt::link::crc32(rt::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(kImageBase), size));
  if (crc != expected_crc) {
    say("ERROR: CRC-32 mismatch (received ");
    say_number(crc);
    for (const char* p = ", expected "; *p; ++p) uarts.write_byte(static_cast<uint8_t>(*p));
    say_number(expected_crc);
    for (const char* p = ")\n"; *p; ++p) uarts.write_byte(static_cast<uint8_t>(*p));
    return false;
  }
  return true;
}

}  // namespace

extern "C" [[noreturn]] void chainloader_main(uint64_t boot_x0) {
  gpio.set_function(board::kUartTxPin, hal::drivers::GpioFunction::kAlt5);
  gpio.set_function(board::kUartRxPin, hal::drivers::GpioFunction::kAlt5);
  gpio.disable_pulls((1u << board::kUartTxPin) | (1u << board::kUartRxPin));
  uarts.console().init(board::kPl011ClockHz, board::kBaud);
  uarts.link().init(board::kCoreClockHz, board::kBaud);
  say("UART chainloader for tpu-pod on the mini UART (GPIO 14/15), 115200 8N1\n");
  while (!receive_image()) {
  }
  say("OK, starting the image\n");
  uarts.link().flush(10000000);
  chainloader_jump(kImageBase, boot_x0);
}
