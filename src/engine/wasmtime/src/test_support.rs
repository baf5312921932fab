// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! Fakes shared by the crate's tests and serving's (the `test-support` feature): a `WitHost`
//! table over a `FakeGuest` that makes tensors and reads their data back, and traps on everything
//! else (the C++ rules are tested by the C++ suite).
use std::ffi::c_void;

use crate::host::*;

/// What the fake table keeps for one guest.
#[derive(Default)]
pub struct FakeGuest {
    pub tensors: Vec<Vec<u8>>,
    pub constructed_from: Vec<usize>, // where each tensor's bytes were read: guest memory, in place
}

unsafe fn fake(guest: Guest) -> &'static mut FakeGuest {
    &mut *(guest as *mut FakeGuest)
}

unsafe extern "C" fn tensor_new(
    g: Guest,
    _d: *const u32,
    rank: usize,
    ty: WitStr,
    data: WitBytes,
    out: *mut WitOut,
) -> WitStatus {
    if rank > 4 {
        (*out).message = WitStr::of("rank over the fake's limit");
        return WitStatus::Trap;
    }
    assert_eq!(ty.to_string_lossy(), "U8");
    let g = fake(g);
    g.constructed_from.push(data.data as usize);
    g.tensors.push(std::slice::from_raw_parts(data.data, data.len).to_vec());
    (*out).rep = (g.tensors.len() - 1) as u32;
    WitStatus::Ok
}

unsafe extern "C" fn tensor_data(g: Guest, t: u32, out: *mut WitOut) -> WitStatus {
    let bytes = &fake(g).tensors[t as usize];
    (*out).data = bytes.as_ptr() as *const c_void;
    (*out).len = bytes.len();
    WitStatus::Ok
}

unsafe extern "C" fn by_rep(_: Guest, _: u32, out: *mut WitOut) -> WitStatus {
    (*out).message = WitStr::of("not in this test");
    WitStatus::Trap
}
unsafe extern "C" fn error_new(_: Guest, _: WitStr, _: WitStr, out: *mut WitOut) -> WitStatus {
    by_rep(std::ptr::null_mut(), 0, out)
}
unsafe extern "C" fn load(_: Guest, _: *const WitBytes, _: usize, _: WitStr, _: WitStr, out: *mut WitOut) -> WitStatus {
    by_rep(std::ptr::null_mut(), 0, out)
}
unsafe extern "C" fn by_name(_: Guest, _: WitStr, out: *mut WitOut) -> WitStatus {
    by_rep(std::ptr::null_mut(), 0, out)
}
unsafe extern "C" fn compute_named(_: Guest, _: u32, _: *const WitNamed, _: usize, out: *mut WitOut) -> WitStatus {
    by_rep(std::ptr::null_mut(), 0, out)
}
unsafe extern "C" fn named(_: Guest, _: u32, _: WitStr, out: *mut WitOut) -> WitStatus {
    by_rep(std::ptr::null_mut(), 0, out)
}
unsafe extern "C" fn set_input(_: Guest, _: u32, _: WitStr, _: u32, out: *mut WitOut) -> WitStatus {
    by_rep(std::ptr::null_mut(), 0, out)
}
unsafe extern "C" fn set_named(_: Guest, _: u32, _: WitStr, _: WitStr, out: *mut WitOut) -> WitStatus {
    by_rep(std::ptr::null_mut(), 0, out)
}
unsafe extern "C" fn guest_share(g: Guest, out: *mut WitOut) -> WitStatus {
    (*out).data = g as *const std::ffi::c_void;
    WitStatus::Ok
}
unsafe extern "C" fn guest_release(_: Guest) {}
unsafe extern "C" fn drop_resource(_: Guest, _: WitResource, _: u32, _: *mut WitOut) -> WitStatus {
    WitStatus::Ok
}

/// A table with no slot set (every function pointer None), which `slot!` refuses to call.
// SAFETY: WitHost is function pointers only, each an Option, whose all-zero value is None.
const UNSET: WitHost = unsafe { std::mem::zeroed() };

/// The fake table; a slot wit_host.h gains is unset here until a test needs it.
pub const TABLE: WitHost = WitHost {
    tensor_new: Some(tensor_new),
    tensor_dimensions: Some(by_rep),
    tensor_ty: Some(by_rep),
    tensor_data: Some(tensor_data),
    error_new: Some(error_new),
    error_code: Some(by_rep),
    error_data: Some(by_rep),
    graph_load: Some(load),
    graph_load_by_name: Some(by_name),
    graph_init_execution_context: Some(by_rep),
    graph_execution_context_compute_inputs: Some(compute_named),
    graph_execution_context_set_input: Some(set_input),
    graph_execution_context_compute: Some(by_rep),
    graph_execution_context_get_output: Some(named),
    drop: Some(drop_resource),
    describe_inputs: Some(by_rep),
    describe_outputs: Some(by_rep),
    properties_list_properties: Some(by_rep),
    properties_get_property: Some(named),
    properties_set_property: Some(set_named),
    properties_set_context_property: Some(set_named),
    prompt_init: Some(by_rep),
    context_compute: Some(named),
    context_set_property: Some(set_named),
    context_start: Some(set_named),
    context_next: Some(by_rep),
    context_metadata: Some(by_rep),
    guest_share: Some(guest_share),
    guest_release: Some(guest_release),
    cancel: Some(by_rep),
    ..UNSET
};
