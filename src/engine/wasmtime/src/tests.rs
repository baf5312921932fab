// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! The typed imports on their own: a component written in WAT calls the tensor constructor and
//! `tensor.data` through a fake table (the C++ rules are tested by the C++ suite), in a store and
//! linker made by the C API exactly as wasinn makes them.
use std::ffi::c_void;

use wasmtime::component::{Component, Linker};
use wasmtime_c_api::{wasm_engine_new, wasmtime_component_linker_new, wasmtime_store_context, wasmtime_store_new};

use crate::test_support::{FakeGuest, TABLE};
use crate::wit_nn::{self, Cases, ErrorCode, ExecutionTarget, GraphEncoding, TensorType};

/// `run(n, rank)`: n bytes (i * 7 mod 256) at 1 MiB become a U8 tensor of `rank` dims; its data
/// comes back through cabi_realloc above 64 MiB; returns the mismatches, or -1 for a wrong length.
const COMPONENT: &str = r#"
(component
  (import "wasi:nn/tensor@0.2.0-rc-2024-10-28" (instance $tensor
    (export "tensor" (type $t (sub resource)))
    (type $ty' (enum "FP16" "FP32" "FP64" "BF16" "U8" "I32" "I64"))
    (export "tensor-type" (type $ty (eq $ty')))
    (export "[constructor]tensor" (func (param "dimensions" (list u32)) (param "ty" $ty) (param "data" (list u8)) (result (own $t))))
    (export "[method]tensor.data" (func (param "self" (borrow $t)) (result (list u8))))))
  (core module $libc
    (memory (export "memory") 1300)
    (global $heap (mut i32) (i32.const 0x4000000))
    (func (export "realloc") (param i32 i32 i32 i32) (result i32)
      (local $p i32)
      (local.set $p (i32.and (i32.add (global.get $heap) (i32.sub (local.get 2) (i32.const 1)))
                             (i32.sub (i32.const 0) (local.get 2))))
      (global.set $heap (i32.add (local.get $p) (local.get 3)))
      (local.get $p)))
  (core instance $libc (instantiate $libc))
  (alias core export $libc "memory" (core memory $mem))
  (alias core export $libc "realloc" (core func $realloc))
  (core func $new (canon lower (func $tensor "[constructor]tensor") (memory $mem) (realloc $realloc)))
  (core func $data (canon lower (func $tensor "[method]tensor.data") (memory $mem) (realloc $realloc)))
  (core module $main
    (import "libc" "memory" (memory 1))
    (import "nn" "new" (func $new (param i32 i32 i32 i32 i32) (result i32)))
    (import "nn" "data" (func $data (param i32 i32)))
    (func (export "run") (param $n i32) (param $rank i32) (result i32)
      (local $i i32) (local $h i32) (local $p i32) (local $bad i32)
      (i32.store (i32.const 0) (local.get $n))
      (block $done (loop $fill
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (i32.store8 (i32.add (i32.const 0x100000) (local.get $i)) (i32.mul (local.get $i) (i32.const 7)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $fill)))
      (local.set $h (call $new (i32.const 0) (local.get $rank) (i32.const 4) (i32.const 0x100000) (local.get $n)))
      (call $data (local.get $h) (i32.const 16))
      (if (i32.ne (i32.load (i32.const 20)) (local.get $n)) (then (return (i32.const -1))))
      (local.set $p (i32.load (i32.const 16)))
      (local.set $i (i32.const 0))
      (block $done (loop $cmp
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (if (i32.ne (i32.load8_u (i32.add (local.get $p) (local.get $i)))
                    (i32.and (i32.mul (local.get $i) (i32.const 7)) (i32.const 255)))
          (then (local.set $bad (i32.add (local.get $bad) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $cmp)))
      (local.get $bad)))
  (core instance $main (instantiate $main
    (with "libc" (instance $libc))
    (with "nn" (instance (export "new" (func $new)) (export "data" (func $data))))))
  (func (export "run") (param "n" u32) (param "rank" u32) (result s32) (canon lift (core func $main "run"))))
"#;

/// Runs the component's `run(n, rank)` against the fake table, in a store made by the C API.
fn run(n: u32, rank: u32) -> (wasmtime::Result<i32>, FakeGuest) {
    let mut guest = FakeGuest::default();
    let engine = wasm_engine_new();
    let mut store = wasmtime_store_new(&engine, &mut guest as *mut FakeGuest as *mut c_void, None);
    let result = {
        let mut linker_box = wasmtime_component_linker_new(&engine);
        // SAFETY: the layout wit_nn.rs checks at compile time.
        let linker = unsafe { &mut *(&mut *linker_box as *mut _ as *mut Linker<wasmtime_c_api::WasmtimeStoreData>) };
        wit_nn::define(linker, TABLE, crate::long_call::LongCalls::InPlace).expect("define");
        let mut cx = wasmtime_store_context(&mut store);
        let component = Component::new(cx.engine(), COMPONENT).expect("the test component compiles");
        let instance = linker.instantiate(&mut cx, &component).expect("instantiate");
        let f = instance
            .get_typed_func::<(u32, u32), (i32,)>(&mut cx, "run")
            .expect("run");
        f.call(&mut cx, (n, rank)).map(|(r,)| r)
    };
    drop(store);
    (result, guest)
}

#[test]
fn sixteen_mib_go_in_read_in_place_and_come_back_whole() {
    let n = 16 << 20;
    let (result, guest) = run(n, 1);
    assert_eq!(result.expect("run"), 0, "every byte came back");
    assert_eq!(guest.tensors.len(), 1);
    assert_eq!(guest.tensors[0].len(), n as usize);
    // The constructor saw the guest's own bytes (at 1 MiB of its memory), not a copy of them.
    let base = guest.constructed_from[0];
    assert_eq!(guest.tensors[0][7], 49);
    assert_ne!(base, guest.tensors[0].as_ptr() as usize);
}

#[test]
fn a_trap_of_the_table_is_the_guests_trap_with_its_message() {
    let (result, _) = run(16, 5);
    let err = result.expect_err("the fake traps on rank 5");
    assert!(format!("{err:?}").contains("rank over the fake's limit"), "{err:?}");
}

#[test]
fn every_enum_case_has_its_wit_name_both_ways() {
    fn round_trip<C: Cases + PartialEq + std::fmt::Debug>() {
        for &(case, name) in C::ALL {
            assert_eq!(case.name(), name);
            assert_eq!(C::from_name(name), Some(case));
        }
        assert_eq!(C::from_name("no-such-case"), None);
    }
    round_trip::<TensorType>();
    round_trip::<GraphEncoding>();
    round_trip::<ExecutionTarget>();
    round_trip::<ErrorCode>();
    assert_eq!(ErrorCode::ALL.len(), 9);
    assert_eq!(TensorType::ALL.len(), 7);
}
