// The image's tag: "tpu-pod image: board=<board>" as a string in the ELF file, so `tpu run IMAGE`
// boots an image on the board it was built for and refuses a file that is no tpu-pod image
// (host-tools/lib/board/make_driver.hpp board_of_image). Kept by the linker (sections.ld KEEPs
// .tpu_pod_tag) although nothing refers to it.
#ifndef BOARD_NAME
#error "BOARD_NAME is set by the Makefile"
#endif

[[gnu::used, gnu::section(".tpu_pod_tag")]] extern const char kTpuPodImageTag[] = "tpu-pod image: board=" BOARD_NAME;
