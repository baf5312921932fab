// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * Test-only control surface of the fake backend plugin (fake_backend.cpp). The plugin exports
 * these beside wasinn_backend_api_v1; tests dlopen the same file, which yields the same loaded
 * object the host uses, so they read the plugin's own counters and drive its compute gate.
 */
#ifndef WASINN_UNIT_FAKE_CONTROL_H_
#define WASINN_UNIT_FAKE_CONTROL_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fake_stats {
  int64_t live_backends;     /* backend_create minus backend_destroy */
  int64_t live_graphs;       /* graph_load successes minus graph_release */
  int64_t live_contexts;     /* context_create successes minus context_release */
  int64_t graph_loads;       /* successful graph_load calls since the library was loaded */
  int64_t blocked_now;       /* computes of "fake:block" models waiting at the gate */
  int64_t calls_past_struct; /* calls through fields beyond a short struct_size (must stay 0) */
} fake_stats;

typedef fake_stats (*fake_get_stats_fn)(void);
/* Waits until at least `count` computes are blocked at once; 1 if that happened in time. */
typedef int (*fake_wait_blocked_fn)(int64_t count, int timeout_ms);
/* Lets every compute blocked at the gate go on. */
typedef void (*fake_open_gate_fn)(void);

#define FAKE_GET_STATS_SYMBOL "fake_get_stats"
#define FAKE_WAIT_BLOCKED_SYMBOL "fake_wait_blocked"
#define FAKE_OPEN_GATE_SYMBOL "fake_open_gate"

#ifdef __cplusplus
}
#endif

#endif /* WASINN_UNIT_FAKE_CONTROL_H_ */
