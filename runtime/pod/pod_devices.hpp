// The pod-wide limit on TPU devices: how many cores a pod of boards (tpu run --boards K, one board
// per task) holds in all, and so how many replicas one replicate call or TPUStrategy may run.
//
// Two limits, two kinds of table:
//   - hal::kMaxCores (16): the cores of ONE board. Tables indexed by a board's LOCAL core (stacks,
//     mailboxes, arenas, per-core launch state, a group's members on this board) are sized by it.
//   - kMaxPodDevices (64): the TPU devices of the WHOLE pod, 4 boards of 16 cores. Tables indexed by a
//     GLOBAL device id or replica id (Topology's device coordinates, a DeviceAssignment's entries, a
//     replica group's members, every replica's outputs, a PerReplica value's components) are sized by it.
// A single board never has more than hal::kMaxCores replicas; only a pod uses the rest of the tables.
#pragma once
#include "hal/core.hpp"

namespace rt {

inline constexpr unsigned kMaxPodDevices = 64;  // 4 boards of 16 cores
static_assert(kMaxPodDevices >= hal::kMaxCores, "a pod holds at least one full board");
// Tables store device and replica ids in uint8_t (ReplicaSet, PodPlacement) and int8_t (DeviceAssignment).
static_assert(kMaxPodDevices <= 127, "device ids fit an int8_t");

}  // namespace rt
