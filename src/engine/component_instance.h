// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Instantiating a component (WASI 0.2 and the WIT wasi-nn interfaces), the peer of
// module_instance for core modules.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "engine/host_impl.h"
#include "engine/serving.h"
#include "engine/wasmtime_ptr.h"
#include "wasinn/host.h"

namespace wasinn {

// What a component linker serves: WASI 0.2 (any 0.2.x a component imports), wasi:nn and wasinn's
// packages; with p3, WASI 0.2 in its async form and WASI 0.3, for 0.3 components (their calls run
// inside a tokio runtime, where 0.2's blocking form cannot).
Status define_component_imports(wasmtime_component_linker_t* linker, bool p3);

Result<ComponentPtr> compile_component(const wasm_engine_t* engine, const std::vector<uint8_t>& bytes,
                                       const std::string& name);

// How many bytes one host call may lift out of a component (Wasmtime's hostcall fuel): past
// wasinn's own limits, so those are the only ones a component meets; wasi:nn reads in place.
size_t hostcall_fuel_for(const Limits& limits);

// Whether COMPONENT is a WASI 0.3 one (a 0.3 interface, wasinn:nn-async or an async function),
// and, when SWITCHES turn off what it needs, the refusal naming the option that did; "" when
// they do not. Run and serve alike.
struct P3Check {
  bool p3 = false;
  std::string refusal;
};
P3Check check_p3(const P3Switches& switches, const wasmtime_component_t* component, const wasm_engine_t* engine,
                 const std::string& name);

// wasm: the component's binary. nullptr with *error set when it cannot be compiled or instantiated
// (*exit_code, when given: kRefusedByOptionExit for a 0.3 component with HostOptions::wasi_p3 off).
std::unique_ptr<Instance> instantiate_component(Host::Impl& host, const Program& program,
                                                const std::vector<uint8_t>& wasm, std::string* error,
                                                int* exit_code = nullptr);

}  // namespace wasinn
