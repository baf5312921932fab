# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A CA made at test time with the `openssl` command, and what the TLS tests need from it: a
server certificate for 127.0.0.1 and localhost, a client certificate, and a key that belongs to
neither (for the mismatch errors). Standard library only."""
import os
import subprocess


def _openssl(*args, cwd):
    r = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args)}: {r.stderr}")


def make_tls_files(directory):
    """Writes ca.pem, server.pem/server.key, client.pem/client.key and other.key into DIRECTORY;
    returns {name: path}."""
    os.makedirs(directory, exist_ok=True)
    d = directory
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
             "-subj", "/CN=wasinn test CA", "-keyout", "ca.key", "-out", "ca.pem",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)
    for name, ext in (("server", "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth"),
                      ("client", "extendedKeyUsage=clientAuth")):
        _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj",
                 f"/CN=wasinn test {name}", "-keyout", f"{name}.key", "-out", f"{name}.csr", cwd=d)
        with open(os.path.join(d, f"{name}.ext"), "w") as f:
            f.write("basicConstraints=CA:FALSE\n" + ext + "\n")
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                 "-days", "2", "-extfile", f"{name}.ext", "-out", f"{name}.pem", cwd=d)
    _openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-out", "other.key", cwd=d)
    with open(os.path.join(d, "garbage.pem"), "w") as f:
        f.write("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n")
    return {n: os.path.join(d, n) for n in ("ca.pem", "server.pem", "server.key", "client.pem", "client.key",
                                            "other.key", "garbage.pem")}
