// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Every listening flag's address (--addr, --oip-http, --oip-grpc, --metrics-addr) is bound once
// and let go at start, before any model loads: a port in use is then reported in a moment, not
// after minutes of loading. The servers bind it again when they start, and refuse it then too.
#pragma once

#include <string>
#include <vector>

#include "cli/host_port.h"

namespace wasinn_cli {

struct ListenAddress {
  std::string flag;  // as the user gave it: "--oip-grpc"
  HostPort address;
};

// Throws std::runtime_error "FLAG HOST:PORT: cannot listen there: WHY" for the first address
// that cannot be bound: in use (by another server, or by another of these flags), not one of
// this machine's, a name that does not resolve, a port the user may not bind. Port 0 (any free
// port) is always possible and not bound here.
void check_can_listen(const std::vector<ListenAddress>& addresses);

// Whether other machines may reach a server listening there: any address the host names is not
// loopback (127.0.0.0/8, ::1); 0.0.0.0 and :: are every interface. A name that does not resolve
// counts as reachable.
bool reachable_from_other_machines(const HostPort& address);

// The one warning line when some of `addresses` are reachable from other machines and no API key
// is set (`what`: what anyone who reaches them may do).
void warn_if_exposed_without_key(const std::vector<ListenAddress>& addresses, bool keyed, const char* what);

}  // namespace wasinn_cli
