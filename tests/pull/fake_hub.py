# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A Hugging Face Hub on 127.0.0.1 for `wasinn pull`'s tests, speaking the HTTP API the Hub's own
client (huggingface_hub) relies on:

- GET /api/models/OWNER/NAME/tree/REV?recursive=true: the file list, paginated (a Link header
  with rel="next", as the Hub does), each LFS file with its "lfs": {"oid": sha256, "size"};
- HEAD/GET /OWNER/NAME/resolve/REV/PATH: X-Repo-Commit always; an LFS file answers 302 to a
  second server (the "CDN", another origin) with X-Linked-Etag ("sha256") and X-Linked-Size on the
  redirect itself; a plain file answers 200 with ETag (its git blob sha1) and its bytes;
  errors as the Hub gives them: 401 + X-Error-Code GatedRepo for a gated repository without the
  token, 404 + RepoNotFound, RevisionNotFound or EntryNotFound;
- the CDN: GET/HEAD /blobs/SHA256 with Range (206, Content-Range), and behaviours a test sets
  per blob: "cut" (half the body, then the connection dropped, once), "stall" (half the body, then
  nothing until released, once), "corrupt" (one byte changed, always).

Every request is logged (server, method, path, Range, Authorization) for the tests to count.
"""
import hashlib
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote, unquote, urlsplit

LFS_SUFFIXES = (".gguf", ".onnx", ".onnx_data", ".bin")
PAGE = 3  # tree entries per page: the listing takes several pages, as a big repository's does


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def git_sha1(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class Repo:
    def __init__(self, repo_id, files, gated=False, tags=("v1.0",)):
        self.id = repo_id
        self.files = dict(files)
        self.gated = gated
        self.commit = hashlib.sha1(repo_id.encode()).hexdigest()
        self.revisions = {"main": self.commit, self.commit: self.commit, **{t: self.commit for t in tags}}

    def is_lfs(self, path):
        return path.endswith(LFS_SUFFIXES)


class FakeHub:
    def __init__(self, token="hf_" + "t" * 34):
        self.token = token
        self.repos = {}
        self.blobs = {}  # sha256 -> bytes
        self.behaviours = {}  # sha256 -> "cut" | "stall" | "corrupt"
        self.log = []
        self.lock = threading.Lock()
        self.half_sent = threading.Event()  # a "stall" blob's first half is out
        self.release = threading.Event()  # lets a stalled answer end
        self.hub = self._server(HubHandler)
        self.cdn = self._server(CdnHandler)
        self.url = "http://127.0.0.1:%d" % self.hub.server_address[1]
        self.cdn_url = "http://127.0.0.1:%d" % self.cdn.server_address[1]

    def _server(self, handler):
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        server.fake = self
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server

    def add(self, repo):
        self.repos[repo.id] = repo
        for path, data in repo.files.items():
            if repo.is_lfs(path):
                self.blobs[sha256(data)] = data
        return repo

    def plain(self, path, data):
        """A file on the CDN server outside the Hub's layout, for plain URLs."""
        self.blobs["plain/" + path] = data
        return "%s/plain/%s" % (self.cdn_url, path)

    def record(self, server, handler):
        with self.lock:
            self.log.append({"server": server, "method": handler.command, "path": urlsplit(handler.path).path,
                             "range": handler.headers.get("Range"),
                             "auth": handler.headers.get("Authorization")})

    def requests(self, server=None, method=None, path=None):
        with self.lock:
            return [e for e in self.log if (server is None or e["server"] == server) and
                    (method is None or e["method"] == method) and (path is None or e["path"] == path)]

    def blob_gets(self, data):
        return self.requests("cdn", "GET", "/blobs/" + sha256(data))

    def close(self):
        self.release.set()
        for s in (self.hub, self.cdn):
            s.shutdown()
            s.server_close()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    @property
    def fake(self):
        return self.server.fake

    def answer(self, status, headers=(), body=b""):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def error(self, status, code, message, commit=None):
        headers = [("X-Error-Code", code), ("X-Error-Message", message), ("Content-Type", "application/json")]
        if commit:
            headers.append(("X-Repo-Commit", commit))
        self.answer(status, headers, json.dumps({"error": message}).encode())


class HubHandler(Handler):
    def do_HEAD(self):
        self.route()

    def do_GET(self):
        self.route()

    def repo_or_error(self, repo_id, revision):
        """The repository, or None after answering the Hub's error."""
        repo = self.fake.repos.get(repo_id)
        if repo is None:
            self.error(404, "RepoNotFound", "Repository not found")
            return None
        if repo.gated and self.headers.get("Authorization") != "Bearer " + self.fake.token:
            self.error(401, "GatedRepo", "Access to model %s is restricted. You must have access to it and be "
                       "authenticated to access it. Please log in." % repo_id)
            return None
        if revision not in repo.revisions:
            self.error(404, "RevisionNotFound", "Invalid rev id: %s" % revision)
            return None
        return repo

    def route(self):
        self.fake.record("hub", self)
        url = urlsplit(self.path)
        parts = url.path.split("/")
        if url.path.startswith("/api/models/") and len(parts) >= 7 and parts[5] == "tree":
            return self.tree("/".join(parts[3:5]), unquote(parts[6]), parse_qs(url.query))
        if len(parts) >= 6 and parts[3] == "resolve":
            return self.resolve("/".join(parts[1:3]), unquote(parts[4]), unquote("/".join(parts[5:])))
        self.answer(404, [("Content-Type", "text/plain")], b"not found")

    def tree(self, repo_id, revision, query):
        repo = self.repo_or_error(repo_id, revision)
        if repo is None:
            return
        entries, dirs = [], set()
        for path in sorted(repo.files):
            for i in range(1, path.count("/") + 1):
                d = "/".join(path.split("/")[:i])
                if d not in dirs:
                    dirs.add(d)
                    entries.append({"type": "directory", "oid": "0" * 40, "size": 0, "path": d})
            data = repo.files[path]
            entry = {"type": "file", "oid": git_sha1(data), "size": len(data), "path": path}
            if repo.is_lfs(path):
                entry["lfs"] = {"oid": sha256(data), "size": len(data), "pointerSize": 134}
            entries.append(entry)
        cursor = int(query.get("cursor", ["0"])[0])
        page = entries[cursor:cursor + PAGE]
        headers = [("Content-Type", "application/json")]
        if cursor + PAGE < len(entries):
            next_url = "%s/api/models/%s/tree/%s?recursive=true&cursor=%d" % (
                self.fake.url, repo_id, quote(revision, safe=""), cursor + PAGE)
            headers.append(("Link", '<%s>; rel="next"' % next_url))
        self.answer(200, headers, json.dumps(page).encode())

    def resolve(self, repo_id, revision, path):
        repo = self.repo_or_error(repo_id, revision)
        if repo is None:
            return
        commit = repo.revisions[revision]
        if path not in repo.files:
            return self.error(404, "EntryNotFound", "%s does not exist on \"%s\"" % (path, revision), commit)
        data = repo.files[path]
        if repo.is_lfs(path):
            digest = sha256(data)
            body = b"Found. Redirecting to the CDN"
            self.answer(302, [("Location", "%s/blobs/%s?X-Amz-Signature=fake" % (self.fake.cdn_url, digest)),
                              ("X-Repo-Commit", commit), ("X-Linked-Etag", '"%s"' % digest),
                              ("X-Linked-Size", str(len(data))), ("ETag", '"%s"' % git_sha1(data))], body)
        else:
            self.answer(200, [("X-Repo-Commit", commit), ("ETag", '"%s"' % git_sha1(data)),
                              ("Content-Type", "application/octet-stream")], data)


class CdnHandler(Handler):
    def do_HEAD(self):
        self.serve()

    def do_GET(self):
        self.serve()

    def serve(self):
        fake = self.fake
        fake.record("cdn", self)
        path = urlsplit(self.path).path
        key = path[len("/blobs/"):] if path.startswith("/blobs/") else path[1:]
        data = fake.blobs.get(key)
        if data is None:
            return self.answer(404, [("Content-Type", "text/plain")], b"no such blob")
        behaviour = fake.behaviours.get(key)
        if behaviour == "corrupt":
            data = data[:len(data) // 2] + bytes([data[len(data) // 2] ^ 0xFF]) + data[len(data) // 2 + 1:]
        start = 0
        rng = self.headers.get("Range")
        if rng:
            start = int(rng.split("=")[1].split("-")[0])
            if start >= len(data):
                return self.answer(416, [("Content-Range", "bytes */%d" % len(data))])
        body = data[start:]
        self.send_response(206 if rng else 200)
        if rng:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", '"%s"' % (key if not key.startswith("plain/") else sha256(data)[:16]))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        if self.command == "HEAD":
            return
        if behaviour in ("cut", "stall") and not rng:
            del fake.behaviours[key]  # once
            self.wfile.write(body[:len(body) // 2])
            self.wfile.flush()
            if behaviour == "stall":
                fake.half_sent.set()
                fake.release.wait(30)
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        self.wfile.write(body)
