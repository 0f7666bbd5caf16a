// `tpu run --boards K` on this machine: the mpirun command that starts K ranks of the same tpu with
// the same arguments, each then running one board (pod_environment.hpp tells a rank which it is).
// Pure, so its flags are tested without starting anything. The flags, and why:
//   -n K --oversubscribe   K ranks even on a machine with fewer CPUs (QEMU boards run their own threads)
//   --bind-to none         Open MPI binds each rank to one core by default, and the board's threads
//                          (QEMU's vCPUs, the host board's cores) would inherit that single core
//   --mca plm isolated     a launcher for this machine only that never looks for ssh (several machines:
//                          run mpirun yourself, README "A pod of boards")
//   --mca btl self,vader   Open MPI talks between the ranks through shared memory, no TCP; with
//                          network "tcp": --mca btl self,tcp --mca btl_tcp_if_include lo (the path a
//                          real network takes, over loopback)
//   --mca btl_base_warn_component_unused 0, --mca mpi_yield_when_idle 1
//                          no notices about unused networks; a waiting rank yields its CPU to the boards
//   --stdin none           the boards' consoles are output only
//   --allow-run-as-root    only when run as root (with OMPI_ALLOW_RUN_AS_ROOT{,_CONFIRM}=1 exported)
//   --mca orte_tmpdir_base F --mca btl_vader_backing_directory F
//                          with a scratch folder F (pod_scratch.hpp): Open MPI's session directory
//                          and shared-memory segments in one folder that is removed after mpirun
// TPU_MPIRUN_ARGS (spaces separate) is added before the program, e.g. "--mca
// btl_vader_single_copy_mechanism none" in a container that forbids process_vm_readv.
#pragma once
#include <string>
#include <vector>

namespace tpu {

struct PodLaunch {
  unsigned boards = 2;
  std::string tpu_path;                     // this tpu, by absolute path
  std::vector<std::string> tpu_arguments;   // what each rank runs: "run", ..., the target
  bool as_root = false;
  std::string network = "shm";              // shm | tcp (--pod-network)
  std::string extra_mpirun_arguments;       // TPU_MPIRUN_ARGS
  std::string scratch_folder;               // where Open MPI keeps its files; empty: its defaults
  // A pod of different kinds (--board host,qemu-virt-a53): rank r runs board board_of_rank[r]
  // (mpirun's MPMD form, "-n 1 tpu ... --board host : -n 1 tpu ... --board qemu-virt-a53"); empty:
  // every rank runs tpu_arguments as they are.
  std::vector<std::string> board_of_rank;
};

// tpu's arguments with the value of --board (as "--board X" or "--board=X") replaced by `board`.
std::vector<std::string> with_board(const std::vector<std::string>& arguments, const std::string& board);

std::vector<std::string> mpirun_command(const PodLaunch& launch);

}  // namespace tpu
