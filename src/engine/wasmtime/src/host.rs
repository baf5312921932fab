// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! The C table of `src/engine/wit_host_table.h` (its slots generated from the WIT) and the types
//! its functions take and give, generated from the header by build.rs (rust-bindgen: the C names,
//! in `c`) and named here as the Rust code calls them; what this file adds is behaviour. Ownership, threading and the meaning of each
//! status are stated in the header once.
use std::ffi::c_void;

/// wit_host.h's types as C names them, generated (build.rs, c_mirrors.rs); serve/http's and
/// serve/pipeline's headers use them, so their generated code names these.
pub mod c {
    #![allow(non_camel_case_types, non_upper_case_globals, non_snake_case, dead_code)]
    include!(concat!(env!("OUT_DIR"), "/wit_host.rs"));
}

pub use c::wasinn_wit_bytes as WitBytes;
/// The table: every function pointer an `Option` (C lets a slot be NULL); `slot!` calls one.
pub use c::wasinn_wit_host as WitHost;
pub use c::wasinn_wit_named as WitNamed;
pub use c::wasinn_wit_out as WitOut;
/// The kind of resource `drop` is told (a Rust enum: it only goes from Rust to C).
pub use c::wasinn_wit_resource as WitResource;
/// What a table function answers: `WitStatus::Ok`, `Err` or `Trap`, or a value wit_host.h may
/// add one day, which the Rust side must handle (a newtype over the C enum's integer).
pub use c::wasinn_wit_status as WitStatus;
pub use c::wasinn_wit_str as WitStr;
/// wasinn:nn-ext's describe: one tensor-description (a record generated from the WIT, build.rs).
pub use c::wasinn_wit_tensor_description as WitTensorDescription;

pub type Guest = *mut c_void;

/// A slot of a C function table (`WitHost`, serve_host.h's admission table, a config's
/// callbacks): the function, or a panic that names the slot the C++ side left NULL. Every slot a
/// call needs goes through here: `unsafe { slot!(host, graph_load_by_name)(guest, name, &mut out) }`.
#[macro_export]
macro_rules! slot {
    ($table:expr, $name:ident) => {
        match $table.$name {
            Some(f) => f,
            None => $crate::host::unset_slot(stringify!($name)),
        }
    };
}

pub use crate::slot;

#[cold]
#[track_caller]
pub fn unset_slot(name: &str) -> ! {
    panic!("the C++ side's table has no `{name}` (NULL): every slot the Rust side calls must be set")
}

impl WitStatus {
    /// A status wit_host.h does not define, as the trap it is.
    pub fn unknown(self) -> String {
        format!(
            "wasi:nn: the host answered status {}, which wit_host.h does not define",
            self.0
        )
    }
}

impl WitStr {
    pub fn of(s: &str) -> WitStr {
        WitStr {
            data: s.as_ptr().cast(),
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
        String::from_utf8_lossy(std::slice::from_raw_parts(self.data.cast::<u8>(), self.len)).into_owned()
    }
}

impl WitBytes {
    pub fn of(b: &[u8]) -> WitBytes {
        WitBytes {
            data: b.as_ptr(),
            len: b.len(),
        }
    }
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
