// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! Pipelines (lib.rs) through the C entry points component_pipeline.cpp calls, over a
//! component written in WAT, on an engine made by the C API as wasinn makes it (epoch
//! interruption on). The guest imports nothing; the fake wasi:nn table only satisfies the linker.
use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use wasmtime_c_api::{
    wasm_config_new, wasm_engine_new_with_config, wasm_engine_t, wasmtime_component_new, wasmtime_component_t,
    wasmtime_config_epoch_interruption_set, wasmtime_engine_increment_epoch, wasmtime_error_t,
};

use crate::*;
use wasinn_engine::test_support::{FakeGuest, TABLE};

/// A pipeline whose first input's name picks what infer does, by its first letter: "invalid"
/// and "failed" answer those errors, "trap" traps, "spin" spins (a few seconds, then fails),
/// "grow" grows memory by dims[0] pages (failed when refused); any other name (use "x") echoes
/// every input with each byte + 1, in place. Its realloc is a bump allocator reset by infer's
/// post-return, which traps when the memory cannot grow.
const PIPELINE: &str = r#"
(component
  (core module $m
    (memory (export "memory") 1)
    (global $heap (mut i32) (i32.const 0x10000))
    (data (i32.const 0x100) "image")
    (data (i32.const 0x108) "scores")
    (data (i32.const 0x110) "label")
    (data (i32.const 0x120) "the guest refuses this input")
    (data (i32.const 0x140) "the guest failed on purpose")
    (data (i32.const 0x160) "memory.grow refused")

    (func $realloc (export "realloc") (param i32 i32 i32 i32) (result i32)
      (local $p i32) (local $end i32)
      (local.set $p (i32.and (i32.add (global.get $heap) (i32.sub (local.get 2) (i32.const 1)))
                             (i32.sub (i32.const 0) (local.get 2))))
      (local.set $end (i32.add (local.get $p) (local.get 3)))
      (if (i32.gt_u (local.get $end) (i32.mul (memory.size) (i32.const 0x10000)))
        (then (if (i32.eq (memory.grow (i32.shr_u (i32.sub (i32.add (local.get $end) (i32.const 0xffff))
                                                            (i32.mul (memory.size) (i32.const 0x10000)))
                                                   (i32.const 16)))
                          (i32.const -1))
                (then unreachable))))
      (global.set $heap (local.get $end))
      (local.get $p))
    (func (export "reset") (param i32)
      (global.set $heap (i32.const 0x10000)))

    ;; tensor-spec: name (ptr, len) at 0, tensor-type at 8, dimensions (ptr, len) at 12
    (func $spec (param $at i32) (param $name i32) (param $len i32) (param $ty i32) (param $dims i32) (param $rank i32)
      (i32.store (local.get $at) (local.get $name))
      (i32.store offset=4 (local.get $at) (local.get $len))
      (i32.store8 offset=8 (local.get $at) (local.get $ty))
      (i32.store offset=12 (local.get $at) (local.get $dims))
      (i32.store offset=16 (local.get $at) (local.get $rank)))
    (func (export "describe") (result i32)
      (i64.store (i32.const 0x200) (i64.const -1))
      (i64.store (i32.const 0x208) (i64.const 3))
      (i64.store (i32.const 0x210) (i64.const 224))
      (i64.store (i32.const 0x218) (i64.const 224))
      (i64.store (i32.const 0x220) (i64.const 1))
      (i64.store (i32.const 0x228) (i64.const 1000))
      (call $spec (i32.const 0x300) (i32.const 0x100) (i32.const 5) (i32.const 4) (i32.const 0x200) (i32.const 4))
      (call $spec (i32.const 0x314) (i32.const 0x108) (i32.const 6) (i32.const 1) (i32.const 0x220) (i32.const 2))
      (call $spec (i32.const 0x328) (i32.const 0x110) (i32.const 5) (i32.const 6) (i32.const 0x230) (i32.const 0))
      (i32.store (i32.const 0x340) (i32.const 0x300))
      (i32.store (i32.const 0x344) (i32.const 1))
      (i32.store (i32.const 0x348) (i32.const 0x314))
      (i32.store (i32.const 0x34c) (i32.const 2))
      (i32.const 0x340))

    ;; result<list<tensor>, error>: the case at 0, then the list (ptr, len) or the error's case
    ;; and its string (ptr, len) from 4
    (func $ok (param $list i32) (param $n i32) (result i32)
      (i32.store8 (i32.const 0x380) (i32.const 0))
      (i32.store (i32.const 0x384) (local.get $list))
      (i32.store (i32.const 0x388) (local.get $n))
      (i32.const 0x380))
    (func $error (param $case i32) (param $msg i32) (param $len i32) (result i32)
      (i32.store8 (i32.const 0x380) (i32.const 1))
      (i32.store8 (i32.const 0x384) (local.get $case))
      (i32.store (i32.const 0x388) (local.get $msg))
      (i32.store (i32.const 0x38c) (local.get $len))
      (i32.const 0x380))
    ;; a tensor is 28 bytes: name (ptr, len) at 0, dimensions at 8, tensor-type at 16, data at 20
    (func (export "infer") (param $list i32) (param $n i32) (result i32)
      (local $mode i32) (local $t i32) (local $p i32) (local $end i32) (local $k i32)
      (if (local.get $n) (then (if (i32.load offset=4 (local.get $list))
        (then (local.set $mode (i32.load8_u (i32.load (local.get $list))))))))
      (if (i32.eq (local.get $mode) (i32.const 0x69)) ;; i
        (then (return (call $error (i32.const 0) (i32.const 0x120) (i32.const 28)))))
      (if (i32.eq (local.get $mode) (i32.const 0x66)) ;; f
        (then (return (call $error (i32.const 1) (i32.const 0x140) (i32.const 27)))))
      (if (i32.eq (local.get $mode) (i32.const 0x74)) ;; t
        (then unreachable))
      (if (i32.eq (local.get $mode) (i32.const 0x73)) ;; s: bounded, so that a deadline that does not fire fails the test instead of hanging it
        (then (local.set $k (i32.const -1))
              (loop $spin (br_if $spin (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))
              (return (call $error (i32.const 1) (i32.const 0x140) (i32.const 27)))))
      (if (i32.eq (local.get $mode) (i32.const 0x67)) ;; g
        (then (if (i32.eq (memory.grow (i32.load (i32.load offset=8 (local.get $list)))) (i32.const -1))
                (then (return (call $error (i32.const 1) (i32.const 0x160) (i32.const 19)))))
              (return (call $ok (i32.const 0) (i32.const 0)))))
      (local.set $t (local.get $list))
      (block $done (loop $tensors
        (br_if $done (i32.eq (local.get $t) (i32.add (local.get $list) (i32.mul (local.get $n) (i32.const 28)))))
        (local.set $p (i32.load offset=20 (local.get $t)))
        (local.set $end (i32.add (local.get $p) (i32.load offset=24 (local.get $t))))
        (block $last (loop $bytes
          (br_if $last (i32.eq (local.get $p) (local.get $end)))
          (i32.store8 (local.get $p) (i32.add (i32.load8_u (local.get $p)) (i32.const 1)))
          (local.set $p (i32.add (local.get $p) (i32.const 1)))
          (br $bytes)))
        (local.set $t (i32.add (local.get $t) (i32.const 28)))
        (br $tensors)))
      (call $ok (local.get $list) (local.get $n))))
  (core instance $i (instantiate $m))
  (alias core export $i "memory" (core memory $mem))
  (alias core export $i "realloc" (core func $realloc))
  (alias core export $i "reset" (core func $reset))

  (type $tensor-type (enum "FP16" "FP32" "FP64" "BF16" "U8" "I32" "I64"))
  (type $tensor (record (field "name" string) (field "dimensions" (list u32)) (field "tensor-type" $tensor-type)
                        (field "data" (list u8))))
  (type $spec (record (field "name" string) (field "tensor-type" $tensor-type) (field "dimensions" (list s64))))
  (type $description (record (field "inputs" (list $spec)) (field "outputs" (list $spec))))
  (type $error (variant (case "invalid-input" string) (case "failed" string)))
  (func $describe (result $description) (canon lift (core func $i "describe") (memory $mem)))
  (func $infer (param "inputs" (list $tensor)) (result (result (list $tensor) (error $error)))
    (canon lift (core func $i "infer") (memory $mem) (realloc $realloc) (post-return $reset)))
  ;; The types are exported before the functions that use them, as a WIT interface's are.
  (instance $model
    (export "tensor-type" (type $tensor-type))
    (export "tensor" (type $tensor))
    (export "tensor-spec" (type $spec))
    (export "description" (type $description))
    (export "error" (type $error))
    (export "describe" (func $describe))
    (export "infer" (func $infer)))
  (export "wasinn:pipeline/model@0.1.0" (instance $model)))
"#;

/// A tensor of a request or an answer, owned.
#[derive(Clone, Debug, PartialEq)]
struct Tensor {
    name: String,
    dims: Vec<u32>,
    ty: String,
    data: Vec<u8>,
}

fn tensor(name: &str, dims: &[u32], ty: &str, data: Vec<u8>) -> Tensor {
    Tensor {
        name: name.into(),
        dims: dims.to_vec(),
        ty: ty.into(),
        data,
    }
}

struct Answer {
    status: i32,
    message: String,
    tensors: Vec<Tensor>,
}

type Spec = (String, String, Vec<i64>);

fn spec(name: &str, ty: &str, dims: &[i64]) -> Spec {
    (name.into(), ty.into(), dims.to_vec())
}

unsafe fn slice<'a, T>(p: *const T, n: usize) -> &'a [T] {
    if n == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(p, n)
    }
}

fn message_of(e: Box<wasmtime_error_t>) -> String {
    format!("{:?}", wasmtime::Error::from(*e))
}

unsafe extern "C" fn free_guest(user: *mut c_void, guest: Guest) {
    drop(Box::from_raw(guest as *mut FakeGuest));
    (*(user as *const AtomicUsize)).fetch_add(1, Ordering::SeqCst);
}

/// A pipeline as component_pipeline.cpp opens one; `guests_freed` counts guest_free's calls.
struct Pipe {
    pipeline: *mut Pipeline,
    guests_freed: Box<AtomicUsize>,
    _component: Box<wasmtime_component_t>,
    engine: Box<wasm_engine_t>,
}

impl Pipe {
    fn open(wat: &str, max_memory_bytes: u64) -> Result<Pipe, String> {
        let mut config = wasm_config_new();
        wasmtime_config_epoch_interruption_set(&mut config, true);
        let engine = wasm_engine_new_with_config(config);
        let mut component = std::ptr::null_mut();
        if let Some(e) = unsafe { wasmtime_component_new(&engine, wat.as_ptr(), wat.len(), &mut component) } {
            panic!("the test component does not compile: {}", message_of(e));
        }
        let component = unsafe { Box::from_raw(component) };
        let guests_freed = Box::new(AtomicUsize::new(0));
        let config = PipelineConfig {
            engine: &*engine,
            component: &*component,
            nn: &TABLE,
            max_memory_bytes,
            hostcall_fuel: 129 << 20, // hostcall_fuel_for's least
            inherit_stdio: false,
            user: &*guests_freed as *const AtomicUsize as *mut c_void,
            guest_free: Some(free_guest),
        };
        let mut pipeline = std::ptr::null_mut();
        if let Some(e) = unsafe { wasinn_pipeline_new(&config, &mut pipeline) } {
            return Err(message_of(e));
        }
        Ok(Pipe {
            pipeline,
            guests_freed,
            _component: component,
            engine,
        })
    }

    fn instance(&self) -> Result<Inst<'_>, String> {
        self.instance_within(0)
    }

    fn instance_within(&self, deadline_ticks: u64) -> Result<Inst<'_>, String> {
        let guest = Box::into_raw(Box::<FakeGuest>::default()) as Guest;
        let mut raw = std::ptr::null_mut();
        match unsafe { wasinn_pipeline_instantiate(self.pipeline, guest, deadline_ticks, &mut raw) } {
            Some(e) => Err(message_of(e)),
            None => Ok(Inst {
                raw,
                _pipe: PhantomData,
            }),
        }
    }

    fn guests_freed(&self) -> usize {
        self.guests_freed.load(Ordering::SeqCst)
    }
}

impl Drop for Pipe {
    fn drop(&mut self) {
        unsafe { wasinn_pipeline_free(self.pipeline) };
    }
}

struct Inst<'p> {
    raw: *mut PipelineInstance,
    _pipe: PhantomData<&'p Pipe>,
}

impl Drop for Inst<'_> {
    fn drop(&mut self) {
        unsafe { wasinn_pipeline_instance_free(self.raw) };
    }
}

fn blank() -> PipelineAnswer {
    let none = WitStr {
        data: std::ptr::null(),
        len: 0,
    };
    PipelineAnswer {
        status: -1,
        tensors: std::ptr::null(),
        count: 0,
        specs: std::ptr::null(),
        inputs: 0,
        outputs: 0,
        message: none,
        models: std::ptr::null(),
        model_count: 0,
    }
}

impl Inst<'_> {
    fn infer(&mut self, inputs: &[Tensor], deadline_ticks: u64) -> Answer {
        let args: Vec<PipelineTensor> = inputs
            .iter()
            .map(|t| PipelineTensor {
                name: WitStr::of(&t.name),
                dims: t.dims.as_ptr(),
                rank: t.dims.len(),
                type_: WitStr::of(&t.ty),
                data: WitBytes {
                    data: t.data.as_ptr(),
                    len: t.data.len(),
                },
            })
            .collect();
        let mut a = blank();
        unsafe {
            wasinn_pipeline_infer(self.raw, args.as_ptr(), args.len(), deadline_ticks, &mut a);
            let tensors = slice(a.tensors, a.count)
                .iter()
                .map(|t| Tensor {
                    name: t.name.to_string_lossy(),
                    dims: slice(t.dims, t.rank).to_vec(),
                    ty: t.type_.to_string_lossy(),
                    data: slice(t.data.data, t.data.len).to_vec(),
                })
                .collect();
            Answer {
                status: a.status,
                message: a.message.to_string_lossy(),
                tensors,
            }
        }
    }

    /// The models describe's answer names (the component's models export), or the status and message.
    fn models(&mut self) -> Result<Vec<String>, (i32, String)> {
        let mut a = blank();
        unsafe {
            wasinn_pipeline_describe(self.raw, 0, &mut a);
            if a.status != 0 {
                return Err((a.status, a.message.to_string_lossy()));
            }
            Ok(slice(a.models, a.model_count)
                .iter()
                .map(|m| m.to_string_lossy())
                .collect())
        }
    }

    /// The inputs' and the outputs' specs, or the status and message.
    fn describe(&mut self) -> Result<(Vec<Spec>, Vec<Spec>), (i32, String)> {
        self.describe_within(0)
    }

    fn describe_within(&mut self, deadline_ticks: u64) -> Result<(Vec<Spec>, Vec<Spec>), (i32, String)> {
        let mut a = blank();
        unsafe {
            wasinn_pipeline_describe(self.raw, deadline_ticks, &mut a);
            if a.status != 0 {
                return Err((a.status, a.message.to_string_lossy()));
            }
            assert_eq!(
                (a.count, a.message.len),
                (0, 0),
                "describe's answer holds an earlier infer's"
            );
            let specs: Vec<Spec> = slice(a.specs, a.inputs + a.outputs)
                .iter()
                .map(|s| {
                    (
                        s.name.to_string_lossy(),
                        s.type_.to_string_lossy(),
                        slice(s.dims, s.rank).to_vec(),
                    )
                })
                .collect();
            let (inputs, outputs) = specs.split_at(a.inputs);
            Ok((inputs.to_vec(), outputs.to_vec()))
        }
    }
}

fn x() -> Vec<Tensor> {
    vec![tensor("x", &[2], "U8", vec![1, 2])]
}

#[test]
fn describe_gives_the_specs_as_the_guest_wrote_them() {
    let pipe = Pipe::open(PIPELINE, 0).expect("open");
    let mut i = pipe.instance().expect("instantiate");
    let (inputs, outputs) = i.describe().expect("describe");
    assert_eq!(inputs, vec![spec("image", "U8", &[-1, 3, 224, 224])]);
    assert_eq!(
        outputs,
        vec![spec("scores", "FP32", &[1, 1000]), spec("label", "I64", &[])]
    );
    // An infer's deadline that has passed since does not interrupt describe.
    assert_eq!(i.infer(&x(), 1).status, 0);
    for _ in 0..3 {
        wasmtime_engine_increment_epoch(&pipe.engine);
    }
    assert_eq!(i.describe().map(|(inputs, _)| inputs.len()), Ok(1));
}

/// PIPELINE with a models export naming "image" and "label" (its data's strings), as a pipeline
/// that loads two models by name declares them.
fn with_models() -> String {
    PIPELINE
        .replace(
            "    (func (export \"describe\") (result i32)",
            "    (func (export \"models\") (result i32)
      (i32.store (i32.const 0x3a0) (i32.const 0x100))
      (i32.store (i32.const 0x3a4) (i32.const 5))
      (i32.store (i32.const 0x3a8) (i32.const 0x110))
      (i32.store (i32.const 0x3ac) (i32.const 5))
      (i32.store (i32.const 0x3b0) (i32.const 0x3a0))
      (i32.store (i32.const 0x3b4) (i32.const 2))
      (i32.const 0x3b0))
    (func (export \"describe\") (result i32)",
        )
        .replace(
            "  (func $describe (result $description)",
            "  (func $models (result (list string)) (canon lift (core func $i \"models\") (memory $mem)))
  (func $describe (result $description)",
        )
        .replace(
            "    (export \"describe\" (func $describe))",
            "    (export \"describe\" (func $describe))
    (export \"models\" (func $models))",
        )
}

#[test]
fn describe_names_the_models_of_the_models_export_and_none_without_it() {
    let pipe = Pipe::open(&with_models(), 0).expect("open");
    let mut i = pipe.instance().expect("instantiate");
    assert_eq!(i.models(), Ok(vec!["image".to_string(), "label".to_string()]));
    assert_eq!(i.describe().map(|(inputs, _)| inputs.len()), Ok(1));
    // A component built before the export existed is served as before, naming none.
    let old = Pipe::open(PIPELINE, 0).expect("open");
    assert_eq!(old.instance().expect("instantiate").models(), Ok(vec![]));
}

#[test]
fn infer_hands_mebibytes_and_several_inputs_over_and_back() {
    let pipe = Pipe::open(PIPELINE, 0).expect("open");
    let mut i = pipe.instance().expect("instantiate");
    let inputs = vec![
        tensor(
            "x",
            &[4, 1024, 1024],
            "U8",
            (0..4 << 20).map(|i: u32| (i * 7) as u8).collect(),
        ),
        tensor("y", &[2, 3], "FP32", (0..24).collect()),
        tensor("z", &[0], "I64", vec![]),
    ];
    let expected: Vec<Tensor> = inputs
        .iter()
        .map(|t| Tensor {
            data: t.data.iter().map(|b| b.wrapping_add(1)).collect(),
            ..t.clone()
        })
        .collect();
    // Twice on one instance: the second request reuses the memory the first grew.
    for round in 0..2 {
        let a = i.infer(&inputs, 0);
        assert_eq!(a.status, 0, "round {round}: {}", a.message);
        let names: Vec<&str> = a.tensors.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["x", "y", "z"]);
        // Not assert_eq: a mismatch would print 4 MiB.
        assert!(
            a.tensors == expected,
            "round {round}: the answer differs from the inputs + 1"
        );
    }
    let a = i.infer(&[], 0);
    assert_eq!((a.status, a.tensors.len()), (0, 0), "{}", a.message);
}

#[test]
fn the_guests_errors_are_statuses_1_and_2_and_the_instance_serves_on() {
    let pipe = Pipe::open(PIPELINE, 0).expect("open");
    let mut i = pipe.instance().expect("instantiate");
    let a = i.infer(&[tensor("invalid", &[], "U8", vec![])], 0);
    assert_eq!(
        (a.status, a.message.as_str(), a.tensors.len()),
        (1, "the guest refuses this input", 0)
    );
    let a = i.infer(&[tensor("failed", &[], "U8", vec![])], 0);
    assert_eq!(
        (a.status, a.message.as_str(), a.tensors.len()),
        (2, "the guest failed on purpose", 0)
    );
    let a = i.infer(&x(), 0);
    assert_eq!(
        (a.status, a.message.as_str()),
        (0, ""),
        "the error's message outlived it"
    );
    assert_eq!(a.tensors[0].data, [2, 3]);
}

#[test]
fn a_trap_is_status_3_and_the_instance_answers_nothing_else() {
    let pipe = Pipe::open(PIPELINE, 0).expect("open");
    let mut i = pipe.instance().expect("instantiate");
    let a = i.infer(&[tensor("trap", &[], "U8", vec![])], 0);
    assert_eq!(a.status, 3);
    assert!(a.message.contains("unreachable"), "{}", a.message);
    let a = i.infer(&x(), 0);
    assert_eq!(a.status, 3, "an instance that trapped answered: {}", a.message);
    assert_eq!(
        i.describe().map(|_| ()),
        Err((3, "this pipeline instance trapped before".into()))
    );
    drop(i);
    let mut fresh = pipe.instance().expect("instantiate");
    assert_eq!(fresh.infer(&x(), 0).status, 0);
    drop(fresh);
    assert_eq!(pipe.guests_freed(), 2, "each instance frees its guest state once");
}

/// Runs `f` while a thread ticks the pipe's engine a millisecond apart, as the caller's
/// ticker (epoch_ticker.h) does.
fn ticking<R>(pipe: &Pipe, f: impl FnOnce() -> R) -> R {
    let engine: &wasm_engine_t = &pipe.engine;
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !stop.load(Ordering::Relaxed) {
                wasmtime_engine_increment_epoch(engine);
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        let r = f();
        stop.store(true, Ordering::Relaxed);
        r
    })
}

/// A spin of 2^32 steps (seconds), so that a deadline that does not fire fails a test instead of
/// hanging it.
const SPIN: &str =
    "(local.set $k (i32.const -1)) (loop $spin (br_if $spin (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))";

#[test]
fn the_deadline_stops_a_spinning_guest() {
    let pipe = Pipe::open(PIPELINE, 0).expect("open");
    let mut i = pipe.instance().expect("instantiate");
    let started = Instant::now();
    let a = ticking(&pipe, || {
        let far = i.infer(&x(), 1_000_000);
        assert_eq!(far.status, 0, "a deadline not reached: {}", far.message);
        i.infer(&[tensor("spin", &[], "U8", vec![])], 20)
    });
    assert_eq!(a.status, 3, "{}", a.message);
    // What component_pipeline.cpp tells a deadline from another failure by.
    assert!(a.message.contains("interrupt"), "{}", a.message);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "stopped after {:?}",
        started.elapsed()
    );
}

#[test]
fn a_start_function_or_describe_that_spins_stops_at_the_deadline() {
    // Instances are made while serving, and describe runs at start: no guest code is unbounded.
    let start = PIPELINE.replace(
        "(global $heap (mut i32) (i32.const 0x10000))",
        &format!("(global $heap (mut i32) (i32.const 0x10000)) (func $start (local $k i32) {SPIN}) (start $start)"),
    );
    let pipe = Pipe::open(&start, 0).expect("open");
    let started = Instant::now();
    let made = ticking(&pipe, || pipe.instance_within(20).map(|_| ()));
    let e = made.expect_err("the start function spins");
    assert!(e.contains("interrupt"), "{e}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "stopped after {:?}",
        started.elapsed()
    );
    assert_eq!(pipe.guests_freed(), 1, "a failed instantiation frees its guest");

    let describe = PIPELINE.replace(
        "(func (export \"describe\") (result i32)",
        &format!("(func (export \"describe\") (result i32) (local $k i32) {SPIN}"),
    );
    let pipe = Pipe::open(&describe, 0).expect("open");
    let mut i = pipe.instance().expect("instantiate");
    let started = Instant::now();
    let (status, message) = ticking(&pipe, || i.describe_within(20)).expect_err("describe spins");
    assert_eq!(status, 3, "{message}");
    assert!(message.contains("interrupt"), "{message}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "stopped after {:?}",
        started.elapsed()
    );
}

#[test]
fn the_memory_limit_refuses_growth_past_it() {
    let pipe = Pipe::open(PIPELINE, 4 << 20).expect("open");
    let mut i = pipe.instance().expect("instantiate");
    let a = i.infer(&[tensor("grow", &[16], "U8", vec![])], 0);
    assert_eq!(a.status, 0, "1 MiB more, under 4 MiB: {}", a.message);
    let a = i.infer(&[tensor("grow", &[64], "U8", vec![])], 0);
    assert_eq!((a.status, a.message.as_str()), (2, "memory.grow refused"));
    // The host's lowering of an input calls the guest's realloc, which cannot grow: a trap.
    let a = i.infer(&[tensor("x", &[8 << 20], "U8", vec![0; 8 << 20])], 0);
    assert_eq!(a.status, 3, "{}", a.message);
    drop(i);

    // A limit under the guest's initial memory fails instantiation, which still frees the guest.
    let tiny = Pipe::open(PIPELINE, 1).expect("open");
    let err = tiny.instance().err().expect("a 1-byte limit refuses a 64 KiB memory");
    assert!(err.contains("memory"), "{err}");
    assert_eq!(tiny.guests_freed(), 1);
}

#[test]
fn a_component_without_the_model_export_is_refused_at_new() {
    let err = Pipe::open("(component)", 0).err().expect("refused");
    assert!(err.contains("exports no wasinn:pipeline/model@0.1.0"), "{err}");
}
