// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! The heap of the library's Rust (Wasmtime, hyper, tokio, serving): mimalloc, chosen once, at
//! the first allocation. Serving's small requests spend 5-10% of their time in glibc's malloc
//! and its arena locks (docs/benchmarks.md, "serve-p3-reuse"); mimalloc's per-thread heaps take
//! most of that. The system's malloc instead where a sanitizer runs the process (its leak check
//! scans only the heap it owns, so pointers held in mimalloc's pages would read as leaks) or
//! where WASINN_RUST_ALLOCATOR=system asks for it. The C++ side always uses the system's malloc;
//! no memory crosses between the two (each side frees what it allocated).
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU8, Ordering};

use mimalloc::MiMalloc;

const UNDECIDED: u8 = 0;
const SYSTEM: u8 = 1;
const MIMALLOC: u8 = 2;

static CHOICE: AtomicU8 = AtomicU8::new(UNDECIDED);

pub struct RustHeap;

#[global_allocator]
static HEAP: RustHeap = RustHeap;

#[inline]
fn mimalloc() -> bool {
    match CHOICE.load(Ordering::Relaxed) {
        UNDECIDED => decide(),
        choice => choice == MIMALLOC,
    }
}

// Neither step allocates from this heap: getenv and dlsym are libc's (dlsym may use malloc, the
// system's). Racing first allocations decide alike; compare_exchange keeps one answer for good.
#[cold]
fn decide() -> bool {
    let wanted = unsafe { libc::getenv(c"WASINN_RUST_ALLOCATOR".as_ptr()) };
    let system_asked = !wanted.is_null() && unsafe { std::ffi::CStr::from_ptr(wanted) } == c"system";
    let sanitized = [c"__asan_init", c"__tsan_init", c"__msan_init", c"__lsan_init"]
        .iter()
        .any(|name| !unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) }.is_null());
    let mine = if system_asked || sanitized { SYSTEM } else { MIMALLOC };
    match CHOICE.compare_exchange(UNDECIDED, mine, Ordering::Relaxed, Ordering::Relaxed) {
        Ok(_) => mine == MIMALLOC,
        Err(first) => first == MIMALLOC,
    }
}

unsafe impl GlobalAlloc for RustHeap {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if mimalloc() {
            MiMalloc.alloc(layout)
        } else {
            System.alloc(layout)
        }
    }
    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if mimalloc() {
            MiMalloc.alloc_zeroed(layout)
        } else {
            System.alloc_zeroed(layout)
        }
    }
    // The choice never changes after the first allocation, so a block is freed by the heap that
    // gave it.
    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if mimalloc() {
            MiMalloc.dealloc(ptr, layout)
        } else {
            System.dealloc(ptr, layout)
        }
    }
    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if mimalloc() {
            MiMalloc.realloc(ptr, layout, new_size)
        } else {
            System.realloc(ptr, layout, new_size)
        }
    }
}

/// "mimalloc" or "system": the heap this process's Rust allocates from (`wasinn --version`).
#[no_mangle]
pub extern "C" fn wasinn_rust_heap_name() -> *const std::ffi::c_char {
    if mimalloc() {
        c"mimalloc".as_ptr()
    } else {
        c"system".as_ptr()
    }
}
