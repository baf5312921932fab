// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! The C table of `src/engine/wit_host.h`, mirrored: ownership, threading and the meaning of
//! each status are stated there once.
use std::ffi::c_void;

pub type Guest = *mut c_void;

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WitStatus {
    Ok = 0,
    Err = 1,
    Trap = 2,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WitResource {
    Tensor = 0,
    Graph = 1,
    Context = 2,
    Error = 3,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct WitStr {
    pub data: *const u8,
    pub len: usize,
}

impl WitStr {
    pub fn of(s: &str) -> WitStr {
        WitStr {
            data: s.as_ptr(),
            len: s.len(),
        }
    }
    /// The C++ side's string, copied.
    ///
    /// # Safety
    /// `data` must point to `len` readable bytes.
    pub unsafe fn to_string_lossy(&self) -> String {
        if self.len == 0 {
            return String::new();
        }
        String::from_utf8_lossy(std::slice::from_raw_parts(self.data, self.len)).into_owned()
    }
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct WitBytes {
    pub data: *const u8,
    pub len: usize,
}

impl WitBytes {
    pub fn of(b: &[u8]) -> WitBytes {
        WitBytes {
            data: b.as_ptr(),
            len: b.len(),
        }
    }
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct WitNamed {
    pub name: WitStr,
    pub tensor: u32,
}

/// wit_host.h's `wasinn_wit_io`: one tensor-description of wasinn:nn-ext's describe.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct WitIo {
    pub name: WitStr,
    pub ty: WitStr,
    pub dims: *const i64,
    pub rank: usize,
    pub has_dims: i32,
}

#[repr(C)]
pub struct WitOut {
    pub rep: u32,
    pub data: *const c_void,
    pub len: usize,
    pub message: WitStr,
}

impl Default for WitOut {
    fn default() -> WitOut {
        WitOut {
            rep: 0,
            data: std::ptr::null(),
            len: 0,
            message: WitStr {
                data: std::ptr::null(),
                len: 0,
            },
        }
    }
}

impl WitOut {
    /// `data` as a slice of `len` elements (empty when null).
    ///
    /// # Safety
    /// The C++ side's promise: `data` holds `len` elements of `T`, valid until the next call.
    pub unsafe fn slice<'a, T>(&self) -> &'a [T] {
        if self.data.is_null() || self.len == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(self.data as *const T, self.len)
        }
    }
}

type Out = *mut WitOut;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct WitHost {
    pub tensor_new: unsafe extern "C" fn(Guest, *const u32, usize, WitStr, WitBytes, Out) -> WitStatus,
    pub tensor_dimensions: unsafe extern "C" fn(Guest, u32, Out) -> WitStatus,
    pub tensor_type: unsafe extern "C" fn(Guest, u32, Out) -> WitStatus,
    pub tensor_data: unsafe extern "C" fn(Guest, u32, Out) -> WitStatus,
    pub error_new: unsafe extern "C" fn(Guest, WitStr, WitStr, Out) -> WitStatus,
    pub error_code: unsafe extern "C" fn(Guest, u32, Out) -> WitStatus,
    pub error_data: unsafe extern "C" fn(Guest, u32, Out) -> WitStatus,
    pub load: unsafe extern "C" fn(Guest, *const WitBytes, usize, WitStr, WitStr, Out) -> WitStatus,
    pub load_by_name: unsafe extern "C" fn(Guest, WitStr, Out) -> WitStatus,
    pub init_execution_context: unsafe extern "C" fn(Guest, u32, Out) -> WitStatus,
    pub compute_named: unsafe extern "C" fn(Guest, u32, *const WitNamed, usize, Out) -> WitStatus,
    pub set_input: unsafe extern "C" fn(Guest, u32, WitStr, u32, Out) -> WitStatus,
    pub compute: unsafe extern "C" fn(Guest, u32, Out) -> WitStatus,
    pub get_output: unsafe extern "C" fn(Guest, u32, WitStr, Out) -> WitStatus,
    pub drop: unsafe extern "C" fn(Guest, WitResource, u32, Out) -> WitStatus,
    pub describe: unsafe extern "C" fn(Guest, u32, i32, Out) -> WitStatus,
    pub list_properties: unsafe extern "C" fn(Guest, u32, Out) -> WitStatus,
    pub get_property: unsafe extern "C" fn(Guest, u32, WitStr, Out) -> WitStatus,
    pub set_property: unsafe extern "C" fn(Guest, u32, i32, WitStr, WitStr, Out) -> WitStatus,
    pub prompt_init: unsafe extern "C" fn(Guest, u32, Out) -> WitStatus,
    pub prompt_compute: unsafe extern "C" fn(Guest, u32, WitStr, Out) -> WitStatus,
    pub prompt_set_property: unsafe extern "C" fn(Guest, u32, WitStr, WitStr, Out) -> WitStatus,
    pub prompt_start: unsafe extern "C" fn(Guest, u32, WitStr, WitStr, Out) -> WitStatus,
    pub prompt_next: unsafe extern "C" fn(Guest, u32, Out) -> WitStatus,
    pub prompt_metadata: unsafe extern "C" fn(Guest, u32, Out) -> WitStatus,
    pub guest_share: unsafe extern "C" fn(Guest, Out) -> WitStatus,
    pub guest_release: unsafe extern "C" fn(Guest),
    pub cancel: unsafe extern "C" fn(Guest, u32, Out) -> WitStatus,
}
