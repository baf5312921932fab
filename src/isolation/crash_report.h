// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Reading what a check's child said (isolated_load.h): the line of its stderr that says why it
// crashed, whether its words are about memory (then its verdict is not remembered: the
// address-space limit's reach varies between runs), and a signal's name. Internal to load
// isolation; stateless.
#pragma once

#include <string>
#include <string_view>

namespace wasinn::isolation {

// The line of a crashed child's stderr that says why: an assertion, an abort message or the
// terminate handler's "what()"; empty when none does. Frameworks print much else (logs,
// backtraces) around it.
std::string crash_message(std::string_view stderr_tail);

// Whether a failed check's evidence (its detail, or the crash message) is about memory: the
// address-space limit (whose reach varies with thread stacks and allocator arenas from run to
// run) or the machine's.
bool about_memory(std::string_view text);

// The same for a crashed child's whole stderr, where frameworks log "alloc" in passing: only
// the words of a failed allocation count.
bool ran_out_of_memory(std::string_view stderr_tail);

// "SIGSEGV", or "signal N" for a number without a name.
std::string signal_name(int sig);

}  // namespace wasinn::isolation
