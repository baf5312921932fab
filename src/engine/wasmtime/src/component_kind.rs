// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! What `wasinn run` asks of a component and of a call's error that the C API does not answer
//! (wit_host.h): whether a component declares an async function, and whether an error is a
//! Wasmtime `Trap`, the two rules by which Wasmtime's CLI runs a component and picks its exit code.
use wasmtime::component::types::ComponentItem;
use wasmtime::component::Component;
use wasmtime::Engine;
use wasmtime_c_api::{wasm_engine_t, wasmtime_component_t, wasmtime_error_t};

use crate::handles::{component_of, engine_of};

// `wasmtime_error_t` is `#[repr(C)]` with the Error its only field (48.0.8, 49.0.5; private to the C
// API's crate), as handles.rs's handles are.
const _: () = assert!(std::mem::size_of::<wasmtime_error_t>() == std::mem::size_of::<wasmtime::Error>());

fn has_async_func(engine: &Engine, item: &ComponentItem) -> bool {
    match item {
        ComponentItem::ComponentFunc(f) => f.async_(),
        ComponentItem::ComponentInstance(i) => i.exports(engine).any(|(_, e)| has_async_func(engine, &e.ty)),
        _ => false,
    }
}

/// Whether the component imports or exports (at its root or in an instance) a function typed
/// `async`: the component model allows an async lift or lower only on such a type, and
/// Wasmtime's blocking call refuses an async-lifted export, whatever interfaces it names.
///
/// # Safety
/// `engine` and `component` are live C API handles (or null: false).
#[no_mangle]
pub unsafe extern "C" fn wasinn_component_has_async_func(
    engine: *const wasm_engine_t,
    component: *const wasmtime_component_t,
) -> bool {
    if engine.is_null() || component.is_null() {
        return false;
    }
    component_has_async_func(&engine_of(engine), &component_of(component))
}

fn component_has_async_func(engine: &Engine, component: &Component) -> bool {
    let ty = component.component_type();
    let imports = ty.imports(engine).any(|(_, e)| has_async_func(engine, &e.ty));
    imports || ty.exports(engine).any(|(_, e)| has_async_func(engine, &e.ty))
}

/// Whether the error is, or wraps, a Wasmtime `Trap` (an instruction's trap, an interrupt): Wasmtime's
/// CLI exits 134 on those (its `e.is::<Trap>()`) and 1 on every other error, a host call's among them.
///
/// # Safety
/// `err` is a live `wasmtime_error_t` (or null: false).
#[no_mangle]
pub unsafe extern "C" fn wasinn_error_is_trap(err: *const wasmtime_error_t) -> bool {
    if err.is_null() {
        return false;
    }
    (*(err as *const wasmtime::Error)).is::<wasmtime::Trap>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasmtime::{format_err, Config, Trap};

    #[test]
    fn an_async_export_alone_is_found_and_a_sync_one_is_not() {
        let mut config = Config::new();
        config.wasm_component_model_async(true);
        let engine = Engine::new(&config).unwrap();
        let async_export = r#"(component
          (core func $task_return (canon task.return (result u32)))
          (core module $m
            (import "" "task.return" (func $task_return (param i32)))
            (func (export "answer") (result i32) (call $task_return (i32.const 42)) (i32.const 0))
            (func (export "callback") (param i32 i32 i32) (result i32) unreachable))
          (core instance $i (instantiate $m (with "" (instance (export "task.return" (func $task_return))))))
          (func $answer async (result u32)
            (canon lift (core func $i "answer") async (callback (core func $i "callback"))))
          (instance $api (export "answer" (func $answer)))
          (export "api" (instance $api)))"#;
        let sync_export = r#"(component
          (core module $m (func (export "answer") (result i32) (i32.const 42)))
          (core instance $i (instantiate $m))
          (func (export "answer") (result u32) (canon lift (core func $i "answer"))))"#;
        assert!(component_has_async_func(
            &engine,
            &Component::new(&engine, async_export).unwrap()
        ));
        assert!(!component_has_async_func(
            &engine,
            &Component::new(&engine, sync_export).unwrap()
        ));
    }

    #[test]
    fn only_a_wasmtime_trap_is_a_trap() {
        let trap = wasmtime_error_t::from(wasmtime::Error::from(Trap::UnreachableCodeReached).context("in a call"));
        let host = wasmtime_error_t::from(format_err!("resource table has no free keys"));
        unsafe {
            assert!(wasinn_error_is_trap(&trap));
            assert!(!wasinn_error_is_trap(&host));
            assert!(!wasinn_error_is_trap(std::ptr::null()));
        }
    }
}
