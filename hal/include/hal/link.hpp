// The byte stream to the host PC that carries link frames. On boards with one UART it is the
// console UART (frames are 0x00-delimited COBS, which console text never contains).
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace hal {

void link_write(const uint8_t* bytes, size_t length);
int link_read_byte();  // next byte or -1 if none is waiting
// Whether link_write has sent any byte since boot (a fault report then first ends a frame that may
// have been cut off; a board no host ever spoke to keeps its console plain text).
bool link_written();
// Whether a host tool said before boot that it serves this byte stream (the host board: tpu sets
// TPU_LINK_HOST=1 in its environment), so the board may wait for the host's first messages. A UART
// cannot tell: false (a board on shared memory knows from the window tpu set up).
bool link_host_attached();
// Whether the host tool shares this board's CPUs (the host board: tpu sets TPU_HOST_SHARES_CPUS=1
// when the boards of its machine take every CPU): a core waiting for the host then sleeps at once,
// since its spinning would hold the CPU the host needs to answer. Bare metal: false.
bool link_host_shares_cpus();

// The shared-memory window's doorbell (runtime/link/transport/shm_ring.hpp, "Waking").
// link_wakeable: whether the host can end a link_sleep early (the host board: a futex on the shared
// page, which tpu maps too); bare metal: false, nothing outside the guest can wake it.
bool link_wakeable();
// Sleeps while *word == seen, until deadline_ns (hal::time_ns) or the host's wake on the word. Bare
// metal: the core's doorbell wait until the deadline.
void link_sleep(const uint32_t* word, uint32_t seen, uint64_t deadline_ns);
// Wakes the sleepers on `word` (one of the window's doorbells, on either side): the host board's
// futex wake; bare metal: nothing (a guest cannot wake a host process, and its cores keep timed polls).
void link_wake(const uint32_t* word);

}  // namespace hal
