// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! HTTPS (serve_host.h's `tls_cert`, `tls_key` and `tls_client_ca`): rustls (ring), with HTTP/2 or
//! HTTP/1.1 chosen by ALPN; and `wasinn_tls_check`, the same files checked for the OIP server's
//! transports, so every server reads them, and refuses a bad one, alike.
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::{RootCertStore, ServerConfig};
use tokio_rustls::TlsAcceptor;
use wasmtime::{format_err, Result};
use wasmtime_c_api::wasmtime_error_t;

use crate::host::WitStr;

fn pem_error(path: &str, what: &str, kind: &str, e: rustls::pki_types::pem::Error) -> wasmtime::Error {
    match e {
        rustls::pki_types::pem::Error::Io(io) => format_err!("{what} {path}: cannot read it: {io}"),
        rustls::pki_types::pem::Error::NoItemsFound => format_err!("{what} {path}: holds no PEM {kind}"),
        e => format_err!("{what} {path}: not a PEM {kind} file ({e})"),
    }
}

fn certificates(path: &str, what: &str) -> Result<Vec<CertificateDer<'static>>> {
    let read = CertificateDer::pem_file_iter(path)
        .and_then(|certs| certs.collect::<std::result::Result<Vec<_>, _>>())
        .map_err(|e| pem_error(path, what, "certificate", e))?;
    if read.is_empty() {
        return Err(format_err!(
            "{what} {path}: holds no certificate (PEM: -----BEGIN CERTIFICATE-----)"
        ));
    }
    Ok(read)
}

/// The server's TLS settings from PEM files: the certificate chain, its private key, and the CAs
/// whose client certificates are required ("": none asked). An error names the file at fault.
pub(crate) fn server_config(cert: &str, key: &str, client_ca: &str) -> Result<ServerConfig> {
    let chain = certificates(cert, "the TLS certificate")?;
    let key_der = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| pem_error(key, "the TLS key", "private key (PKCS#8, PKCS#1 or SEC1)", e))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| format_err!("TLS: {e}"))?;
    let builder = if client_ca.is_empty() {
        builder.with_no_client_auth()
    } else {
        let mut roots = RootCertStore::empty();
        for ca in certificates(client_ca, "the TLS client CA file")? {
            roots
                .add(ca)
                .map_err(|e| format_err!("the TLS client CA file {client_ca}: {e}"))?;
        }
        let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
            .build()
            .map_err(|e| format_err!("the TLS client CA file {client_ca}: {e}"))?;
        builder.with_client_cert_verifier(verifier)
    };
    let mut config = builder.with_single_cert(chain, key_der).map_err(|e| match e {
        rustls::Error::InconsistentKeys(_) => {
            format_err!("the TLS key {key} does not go with the certificate {cert}: {e}")
        }
        rustls::Error::InvalidCertificate(_) => format_err!("the TLS certificate {cert}: {e}"),
        _ => format_err!("the TLS key {key}: {e}"),
    })?;
    // HTTP/2 when the client offers it (browsers, gRPC, curl), else HTTP/1.1.
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

pub(super) fn acceptor(cert: &str, key: &str, client_ca: &str) -> Result<TlsAcceptor> {
    Ok(TlsAcceptor::from(Arc::new(server_config(cert, key, client_ca)?)))
}

/// Checks PEM files as a server would take them (serve_host.h): NULL when they are good, else
/// an error naming the file at fault.
///
/// # Safety
/// The strings point to their lengths of readable bytes.
#[no_mangle]
pub unsafe extern "C" fn wasinn_tls_check(
    cert: WitStr,
    key: WitStr,
    client_ca: WitStr,
) -> Option<Box<wasmtime_error_t>> {
    let (cert, key, client_ca) = (
        cert.to_string_lossy(),
        key.to_string_lossy(),
        client_ca.to_string_lossy(),
    );
    match server_config(&cert, &key, &client_ca) {
        Ok(_) => None,
        Err(e) => Some(Box::new(wasmtime_error_t::from(e))),
    }
}
