// The `tpu exec` convention: how the exec app (host-tools/images/exec) and the host tool
// (host-tools/tpu/exec.cpp) agree on one op request over the ordinary host-call messages. The board
// pulls its work, so the link protocol needs no new message kind:
//
//   1. core 0 calls kFetchOp ("exec.op", no argument)      -> one text result: the op spec (below)
//   2. per input tensor t (0 .. tensors-1, replica-major):
//      core 0 calls kFetchInput ("exec.input", text "<t>") -> one tensor result of the dtype and
//                                                             shape the spec announced for t
//   3. the board runs the op with replicate() over the spec's replicas (one replica per core)
//   4. per replica r and output j:
//      core 0 calls kSendOutput ("exec.output", text "<r> <j>", the output tensor) -> no result
//   5. the app returns; errors travel as the cores' run results (FAIL lines and result frames),
//      so a bad shape or an unknown op reaches the user with the runtime's own error text.
//
// Op spec: one line of space-separated key=value tokens, in any order, each key at most once:
//   op=<name>            matmul | conv2d | cross_replica_sum | all_reduce | all_gather |
//                        all_to_all | collective_permute | replicate_padded
//   replicas=<n>         1..16; replica r runs on core r
//   inputs=<k>           tensors per replica
//   t=<dtype>:<dims>     one per tensor, replica-major (replica 0's k inputs, then replica 1's...):
//                        dtype a TF name (float32, bfloat16, int8, ...), dims comma-separated
//                        ("t=float32:" is a scalar)
//   padding=VALID|SAME   conv2d (default VALID)
//   strides=h,w          conv2d (default 1,1)
//   dilations=h,w        conv2d (default 1,1)
//   reduce=sum|mean|max|min          all_reduce (default sum)
//   split_dimension=d concat_dimension=d split_count=n   all_to_all (default 0, 0, replicas)
//   pairs=s,t,s,t,...    collective_permute: [source, target] pairs flattened
//   max_shape=d,d,...    replicate_padded: maximum_shapes of input 0 (-1 = unknown); the output is
//                        each replica's padded input
//   pad_power_of_two=1   replicate_padded: PaddingSpec POWER_OF_TWO (default AUTO)
#pragma once
#include "hal/support/string_view.hpp"

namespace exec_protocol {

inline constexpr const char* kFetchOp = "exec.op";
inline constexpr const char* kFetchInput = "exec.input";
inline constexpr const char* kSendOutput = "exec.output";

// Longest op spec the board accepts (its text buffer).
inline constexpr unsigned kMaxSpecBytes = 3000;

}  // namespace exec_protocol
