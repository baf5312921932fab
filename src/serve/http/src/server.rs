// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! The server's life (serve_host.h's `wasinn_serve_start`, `_stop`, `_wait` and `_read_stats`):
//! the component pre-instantiated with its imports, the address bound, the guest workers' and
//! the HTTP side's runtimes started, the accept loop; then stopping, and draining what is in
//! flight within the grace.
use std::hash::BuildHasher;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use wasmtime::component::Linker;
use wasmtime::{format_err, Result};
use wasmtime_wasi_http::handler::ProxyHandler;
use wasmtime_wasi_http::p2::bindings::ProxyPre;
use wasmtime_wasi_http::p3::bindings::ServicePre;

use super::busy_poll::Counted;
use super::connection::{serve_connection, OpenConnection};
use super::lanes::{End, Lanes};
use super::p3_reuse::Instances;
use super::shared::{Callbacks, GuestPre, Settings, Shared};
use super::store::RequestState;
use super::{component_of, engine_of, ServeConfig, ServeStats};
use crate::host::{slot, WitHost};
use crate::long_call::LongCalls;
use crate::{spin_llm, wit_nn};

pub struct Server {
    shared: Arc<Shared>,
    address: String,
    stop: watch::Sender<bool>,
    accept: Option<tokio::task::JoinHandle<()>>,
    io_rt: Option<tokio::runtime::Runtime>,
    guest_rt: Option<tokio::runtime::Runtime>,
    /// A reused 0.3 instance's connections (None: they run on io_rt).
    lanes: Option<Lanes>,
}

/// On each of the server's threads: SIGPIPE blocked there, so a write to a client that has gone
/// fails with EPIPE instead of ending the process. The host is C++ (the signal's default stands,
/// unlike in a Rust program) and tokio's vectored writes, hyper's and rustls', are writev()s,
/// which have no MSG_NOSIGNAL. Thread by thread, as the OIP server's civetweb threads: the
/// embedding process's own handling of SIGPIPE is left as it was.
fn block_sigpipe() {
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// The imports a served component may use: WASI 0.2 and 0.3, wasi:http, wasi:nn (its long calls
/// as `long` says).
fn linker(engine: &wasmtime::Engine, nn: WitHost, long: LongCalls) -> Result<Linker<RequestState>> {
    let mut linker: Linker<RequestState> = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_async(&mut linker)?;
    wasmtime_wasi_http::p2::add_only_http_to_linker_async(&mut linker)?;
    wasmtime_wasi::p3::add_to_linker(&mut linker)?;
    wasmtime_wasi_http::p3::add_to_linker(&mut linker)?;
    wit_nn::define(&mut linker, nn, long)?;
    Ok(linker)
}

fn resolve(addr: &str) -> Result<SocketAddr> {
    addr.to_socket_addrs()
        .map_err(|e| format_err!("listening address {addr}: {e} (expected HOST:PORT, e.g. 127.0.0.1:8080)"))?
        .next()
        .ok_or_else(|| format_err!("listening address {addr}: the name resolves to no address"))
}

impl Server {
    pub(super) fn start(cfg: &ServeConfig) -> Result<Server> {
        let callbacks = Callbacks::of(cfg);
        if cfg.engine.is_null() || cfg.component.is_null() || cfg.nn.is_null() {
            return Err(format_err!(
                "wasinn_serve_start: null engine, component or wasi:nn table"
            ));
        }
        let engine = engine_of(cfg.engine);
        let component = component_of(cfg.component);
        spin_llm::check_imports(&engine, &component)?;
        let nn = unsafe { *cfg.nn };
        let instance = linker(&engine, nn, LongCalls::InPlace)?.instantiate_pre(&component)?;
        let settings = Settings::of(cfg);
        // Told apart by the export, as `wasmtime serve` does: wasi:http/handler@0.3.0, else 0.2's.
        // A reused 0.3 instance runs on a lane (lanes.rs), where long wasi:nn calls leave the thread.
        let pre = match ServicePre::new(instance.clone()) {
            Ok(_) if settings.reuse.total > 1 => GuestPre::P3(ServicePre::new(
                linker(&engine, nn, LongCalls::OffThread)?.instantiate_pre(&component)?,
            )?),
            Ok(p3) => GuestPre::P3(p3),
            Err(_) => GuestPre::P2(ProxyPre::new(instance)?),
        };
        for (host, _) in &settings.dirs {
            if !std::path::Path::new(host).is_dir() {
                return Err(format_err!("preopened directory {host}: no such directory"));
            }
        }
        // The certificate's files are read before anything listens: a bad one is the start's error.
        let (cert, key, client_ca) = unsafe {
            (
                cfg.tls_cert.to_string_lossy(),
                cfg.tls_key.to_string_lossy(),
                cfg.tls_client_ca.to_string_lossy(),
            )
        };
        let tls = if cert.is_empty() && key.is_empty() {
            None
        } else {
            Some(super::tls::acceptor(&cert, &key, &client_ca)?)
        };
        let addr_text = unsafe { cfg.addr.to_string_lossy() };
        let addr = resolve(&addr_text)?;
        let listener = std::net::TcpListener::bind(addr)
            .map_err(|e| format_err!("listening address {addr_text}: cannot listen there: {e}"))?;
        listener.set_nonblocking(true)?;
        let address = listener.local_addr()?.to_string();

        // A reused 0.3 instance runs where its connection is, on a lane per worker (lanes.rs), and
        // io_rt only accepts; an instance per request runs on a guest thread.
        let reused = matches!(&pre, GuestPre::P3(_)) && settings.reuse.total > 1;
        let lanes = if reused {
            Some(Lanes::start(settings.workers, block_sigpipe, settings.busy_poll)?)
        } else {
            None
        };
        let guest_rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(if reused { 1 } else { settings.workers })
            .thread_name("wasinn-guest")
            .on_thread_start(block_sigpipe)
            .enable_all()
            .build()?;
        let io_rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(if reused { 1 } else { 2 })
            .thread_name("wasinn-http")
            .on_thread_start(block_sigpipe)
            .enable_all()
            .build()?;
        // The requests admitted at once: a guest thread's one at a time, or a reused 0.3
        // instance's concurrent ones (those waiting on I/O hold no thread), as serve_host.h says.
        let places = if reused {
            settings.workers.saturating_mul(settings.reuse.at_once)
        } else {
            settings.workers
        };
        unsafe { slot!(callbacks.admission, resize)(callbacks.admission.policy, places) };
        let shared = Arc::new_cyclic(|weak| Shared {
            engine,
            p3_instances: match (&pre, &lanes) {
                (GuestPre::P3(p3), Some(lanes)) => (0..lanes.count())
                    .map(|_| {
                        ProxyHandler::new(Instances {
                            shared: weak.clone(),
                            pre: p3.clone(),
                            reuse: settings.reuse,
                        })
                    })
                    .collect(),
                _ => Vec::new(),
            },
            pre,
            callbacks,
            settings,
            guest_rt: guest_rt.handle().clone(),
            draining: AtomicBool::new(false),
            cutting: AtomicBool::new(false),
            in_flight: AtomicU64::new(0),
            running: AtomicU64::new(0),
            idle: tokio::sync::Notify::new(),
            connections: AtomicU64::new(0),
            connections_refused: AtomicU64::new(0),
            // std's per-process random hash keys: request ids of two runs do not collide.
            id_prefix: std::collections::hash_map::RandomState::new().hash_one(std::process::id()),
            requests: AtomicU64::new(0),
            tls,
            host_for_http10: hyper::header::HeaderValue::from_str(&address).ok(),
        });
        let (stop, stop_rx) = watch::channel(false);
        let accept = {
            let shared = shared.clone();
            let lane_handles: Vec<tokio::runtime::Handle> = lanes.as_ref().map(Lanes::handles).unwrap_or_default();
            let next_lane = AtomicUsize::new(0);
            let _guard = io_rt.enter();
            let listener = tokio::net::TcpListener::from_std(listener)?;
            io_rt.spawn(async move {
                let mut stop_accepting = stop_rx.clone();
                loop {
                    tokio::select! {
                        accepted = listener.accept() => match accepted {
                            Ok((stream, peer)) => {
                                // Past --max-connections a connection is closed at once and counted: a
                                // client that opens many cannot hold every descriptor and task.
                                if shared.connections.load(Relaxed) >= shared.settings.max_connections {
                                    shared.connections_refused.fetch_add(1, Relaxed);
                                    drop(stream);
                                    continue;
                                }
                                let open = OpenConnection::new(&shared);
                                let (shared, stop_rx) = (shared.clone(), stop_rx.clone());
                                match lane_handles.len() {
                                    0 => {
                                        tokio::spawn(serve_connection(shared, stream, peer, stop_rx, open));
                                    }
                                    // Round robin over the lanes; the socket is registered again with
                                    // its lane's own I/O driver, or every readiness event would reach
                                    // the lane through this runtime's thread (a wake-up per event).
                                    n => {
                                        let Ok(socket) = stream.into_std() else { continue };
                                        lane_handles[next_lane.fetch_add(1, Relaxed) % n].spawn(Counted::new(async move {
                                            if let Ok(stream) = tokio::net::TcpStream::from_std(socket) {
                                                serve_connection(shared, stream, peer, stop_rx, open).await;
                                            }
                                        }));
                                    }
                                }
                            }
                            // Out of descriptors, say: wait a little instead of spinning.
                            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                        },
                        _ = async { let _ = stop_accepting.wait_for(|s| *s).await; } => break,
                    }
                }
            })
        };
        Ok(Server {
            shared,
            address,
            stop,
            accept: Some(accept),
            io_rt: Some(io_rt),
            guest_rt: Some(guest_rt),
            lanes,
        })
    }

    pub(super) fn address(&self) -> &str {
        &self.address
    }

    /// Stops accepting; requests in flight go on (wait decides how long).
    pub(super) fn stop(&self) {
        self.shared.draining.store(true, Relaxed);
        let _ = self.stop.send(true);
    }

    /// After stop: waits for the requests in flight, at most `grace`. Returns how many were cut.
    pub(super) fn wait(&mut self, grace: Duration) -> u64 {
        let shared = self.shared.clone();
        let accept = self.accept.take();
        let Some(io_rt) = self.io_rt.as_ref() else { return 0 };
        io_rt.block_on(async {
            if let Some(a) = accept {
                let _ = a.await;
            }
            let drained = async {
                loop {
                    let idle = shared.idle.notified();
                    if shared.in_flight.load(Relaxed) == 0 {
                        break;
                    }
                    idle.await;
                }
            };
            let _ = tokio::time::timeout(grace, drained).await;
        });
        let cut = self.shared.in_flight.load(Relaxed);
        self.shared.cutting.store(true, Relaxed);
        // Requests still waiting for a worker are answered 503 (admission.rs).
        unsafe { slot!(self.shared.callbacks.admission, close)(self.shared.callbacks.admission.policy) };
        if let Some(rt) = self.io_rt.take() {
            rt.shutdown_timeout(Duration::from_millis(100));
        }
        if let Some(mut lanes) = self.lanes.take() {
            lanes.stop(End::of(cut));
        }
        if let Some(rt) = self.guest_rt.take() {
            End::of(cut).shut_down(rt);
        }
        cut
    }

    pub(super) fn stats(&self) -> ServeStats {
        let s = &self.shared;
        ServeStats {
            in_flight: s.in_flight.load(Relaxed),
            running: s.running.load(Relaxed),
            connections: s.connections.load(Relaxed),
            connections_refused: s.connections_refused.load(Relaxed),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.io_rt.is_some() {
            self.stop();
            self.wait(Duration::ZERO);
        }
    }
}
