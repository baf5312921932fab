# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""`wasinn pull` against a fake Hugging Face Hub on 127.0.0.1 (fake_hub.py), with the real binary:
a fresh pull into the Hub's cache layout, quant tags and ONNX repositories, a cut download resumed
(in the same run, and by the next run after a kill), a corrupt download refused, 401/403 and the
token, 404s, HF_HUB_OFFLINE and an unreachable server, plain URLs, and huggingface_hub's own
hf_hub_download sharing the cache both ways.

  python pull_test.py --case NAME --wasinn build/bin/wasinn
Exit 77 (skipped): the interop case without huggingface_hub in this Python (scripts/deps/hub.pip).
"""
import argparse
import hashlib
import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fake_hub import FakeHub, Repo, sha256  # noqa: E402


def blob(tag, size=64 << 10):
    """size bytes that start as a GGUF file does, different for each tag."""
    out = bytearray(b"GGUF")
    seed = tag.encode()
    while len(out) < size:
        seed = hashlib.sha256(seed).digest()
        out += seed
    return bytes(out[:size])


GGUF = {
    "README.md": b"# tiny\nA test repository.\n",
    "mmproj-tiny-F16.gguf": blob("mmproj"),
    "tiny-F16.gguf": blob("f16"),
    "tiny-Q4_K_M.gguf": blob("q4"),
    "tiny-Q8_0.gguf": blob("q8"),
    "split/tiny-Q2_K-00001-of-00002.gguf": blob("q2 part 1"),
    "split/tiny-Q2_K-00002-of-00002.gguf": blob("q2 part 2"),
    "nested/deeper/tiny-Q5_K_M.gguf": blob("q5"),
}
ONNX = {
    "README.md": b"# tiny onnx\n",
    "config.json": b'{"model_type": "tiny"}\n',
    "tokenizer.json": b'{"version": "1.0"}\n',
    "onnx/model.onnx": blob("onnx graph", 4096),
    "onnx/model.onnx_data": blob("onnx weights", 128 << 10),
    "onnx/model_quantized.onnx": blob("onnx quantized", 4096),
}


class Case:
    def __init__(self, wasinn):
        self.wasinn = wasinn
        self.tmp = Path(tempfile.mkdtemp(prefix="wasinn-pull-"))
        self.hub = FakeHub()
        self.gguf = self.hub.add(Repo("tester/tiny-GGUF", GGUF))
        self.onnx = self.hub.add(Repo("tester/tiny-onnx", ONNX))
        self.cache = self.tmp / "hf" / "hub"
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("HF_", "HUGGING", "TRANSFORMERS_", "XDG_"))}
        self.env.update(HOME=str(self.tmp / "home"), XDG_CACHE_HOME=str(self.tmp / "xdg"),
                        HF_HOME=str(self.tmp / "hf"), HF_ENDPOINT=self.hub.url, HF_HUB_DISABLE_TELEMETRY="1")

    def close(self):
        self.hub.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def pull(self, *args, env=None, expect=0):
        r = subprocess.run([self.wasinn, "pull", *args], capture_output=True, text=True, timeout=60,
                           env={**self.env, **(env or {})})
        if expect is not None and r.returncode != expect:
            raise AssertionError("wasinn pull %s: exit %d, not %d\nstdout: %s\nstderr: %s"
                                 % (" ".join(args), r.returncode, expect, r.stdout, r.stderr))
        return r

    def repo_dir(self, repo):
        return self.cache / ("models--" + repo.id.replace("/", "--"))

    def snapshot(self, repo, path):
        return self.repo_dir(repo) / "snapshots" / repo.commit / path


def check(cond, what, *details):
    if not cond:
        raise AssertionError(what + "".join("\n" + str(d) for d in details))


def check_pointer(c, repo, path, printed=None):
    """The snapshot file is a relative symlink to ../../blobs/SHA256 (one more ../ per directory) with the bytes."""
    link = c.snapshot(repo, path)
    data = repo.files[path]
    etag = sha256(data) if repo.is_lfs(path) else hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    check(link.is_symlink(), "%s is not a symlink" % link)
    expected = "../" * (2 + path.count("/")) + "blobs/" + etag
    check(os.readlink(link) == expected, "%s -> %s, not %s" % (link, os.readlink(link), expected))
    check(link.read_bytes() == data, "%s: wrong bytes" % link)
    if printed is not None:
        check(printed == str(link), "printed %r, not %r" % (printed, str(link)))


def case_fresh(c):
    r = c.pull("tester/tiny-GGUF")
    check(r.stdout.splitlines() == [str(c.snapshot(c.gguf, "tiny-Q4_K_M.gguf"))], "stdout: one path", r.stdout)
    check_pointer(c, c.gguf, "tiny-Q4_K_M.gguf")
    repo = c.repo_dir(c.gguf)
    check((repo / "refs" / "main").read_text() == c.gguf.commit, "refs/main holds the commit")
    check(sorted(p.name for p in (repo / "blobs").iterdir()) == [sha256(GGUF["tiny-Q4_K_M.gguf"])],
          "blobs: the one file, no .incomplete", list((repo / "blobs").iterdir()))
    check((c.cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55"),
          "CACHEDIR.TAG")
    check("pulling tester/tiny-GGUF/tiny-Q4_K_M.gguf (64.0 KiB) from 127.0.0.1" in r.stderr and
          "tiny-Q4_K_M.gguf: done" in r.stderr, "plain progress lines off a terminal", r.stderr)
    check(len(r.stderr.splitlines()) == 2, "two lines for one small file", r.stderr)
    check(len(c.hub.requests("hub", "GET", "/api/models/tester/tiny-GGUF/tree/main")) >= 3,
          "the tree's pages followed (Link: rel=next)")
    check(all(e["auth"] is None for e in c.hub.log), "no Authorization without a token")
    # Again: nothing downloaded, the same path.
    again = c.pull("tester/tiny-GGUF")
    check(again.stdout == r.stdout, "the same path again")
    check(len(c.hub.blob_gets(GGUF["tiny-Q4_K_M.gguf"])) == 1, "a cached file is not downloaded again")
    check("tiny-Q4_K_M.gguf: in the cache" in again.stderr, "says it is cached", again.stderr)
    # A nested path, a plain (non-LFS) file whose blob is its git sha1, a revision that is a tag.
    r = c.pull("tester/tiny-GGUF/nested/deeper/tiny-Q5_K_M.gguf", "hf://tester/tiny-GGUF/README.md",
               "--revision", "v1.0")
    check(r.stdout.splitlines() == [str(c.snapshot(c.gguf, "nested/deeper/tiny-Q5_K_M.gguf")),
                                    str(c.snapshot(c.gguf, "README.md"))], "two paths in order", r.stdout)
    check_pointer(c, c.gguf, "nested/deeper/tiny-Q5_K_M.gguf")
    check_pointer(c, c.gguf, "README.md")
    check((repo / "refs" / "v1.0").read_text() == c.gguf.commit, "refs/v1.0")
    # On a terminal: a bar, redrawn in place, at 100% at the end.
    master, slave = pty.openpty()
    p = subprocess.Popen([c.wasinn, "pull", "tester/tiny-GGUF:Q8_0"], stdout=subprocess.PIPE, stderr=slave,
                         env=c.env)
    os.close(slave)
    out = b""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        elif p.poll() is not None:
            break
    stdout = p.communicate(timeout=30)[0].decode()
    os.close(master)
    check(p.returncode == 0 and stdout.strip() == str(c.snapshot(c.gguf, "tiny-Q8_0.gguf")), "pull on a tty", stdout)
    check(b"\r" in out and b"100%" in out and b"tiny-Q8_0.gguf" in out, "a progress bar on a terminal", out)


def case_quant(c):
    r = c.pull("tester/tiny-GGUF:q8_0")
    check(r.stdout.split() == [str(c.snapshot(c.gguf, "tiny-Q8_0.gguf"))], "a tag in any case", r.stdout)
    r = c.pull("tester/tiny-GGUF:F16")
    check(r.stdout.split() == [str(c.snapshot(c.gguf, "tiny-F16.gguf"))], "F16: the model, not the mmproj", r.stdout)
    check(not c.hub.blob_gets(GGUF["mmproj-tiny-F16.gguf"]), "the projector is not pulled")
    r = c.pull("tester/tiny-GGUF:Q2_K")
    check(r.stdout.split() == [str(c.snapshot(c.gguf, "split/tiny-Q2_K-0000%d-of-00002.gguf" % i)) for i in (1, 2)],
          "a split model: every part, in order", r.stdout)
    r = c.pull("tester/tiny-GGUF/split/tiny-Q2_K-00002-of-00002.gguf")
    check(len(r.stdout.split()) == 2, "a part named: every part", r.stdout)
    r = c.pull("tester/tiny-GGUF:IQ1_S", expect=1)
    check("has no GGUF model file tagged IQ1_S" in r.stderr and "tiny-Q8_0.gguf" in r.stderr and
          "mmproj" not in r.stderr, "an absent tag: the models listed", r.stderr)
    check(r.stdout == "", "nothing on stdout after a failure", r.stdout)
    # ONNX: the model, its external data and the JSONs; not the other variant, not the README.
    r = c.pull("tester/tiny-onnx")
    check(r.stdout.split() == [str(c.snapshot(c.onnx, "onnx/model.onnx"))], "the .onnx printed", r.stdout)
    for path in ("onnx/model.onnx", "onnx/model.onnx_data", "config.json", "tokenizer.json"):
        check_pointer(c, c.onnx, path)
    for path in ("onnx/model_quantized.onnx", "README.md"):
        check(not c.snapshot(c.onnx, path).exists(), "%s is not pulled" % path)
    r = c.pull("tester/tiny-onnx:quantized")
    check(r.stdout.split() == [str(c.snapshot(c.onnx, "onnx/model_quantized.onnx"))], "model_TAG.onnx", r.stdout)
    r = c.pull("tester/tiny-onnx/onnx/model.onnx")
    check(r.stdout.split() == [str(c.snapshot(c.onnx, "onnx/model.onnx"))], "an .onnx by path", r.stdout)


def case_resume(c):
    big = blob("cut", 1 << 20)
    repo = c.hub.add(Repo("tester/cut-GGUF", {"cut-Q4_K_M.gguf": big}))
    c.hub.behaviours[sha256(big)] = "cut"
    r = c.pull("tester/cut-GGUF")
    gets = c.hub.blob_gets(big)
    check(len(gets) == 2 and gets[0]["range"] is None and gets[1]["range"] == "bytes=%d-" % (len(big) // 2),
          "cut at half: continued with a Range request", gets)
    check("resuming" in r.stderr, "says it resumes", r.stderr)
    check_pointer(c, repo, "cut-Q4_K_M.gguf", r.stdout.strip())
    # A run killed mid-download leaves blobs/ETAG.incomplete; the next continues it.
    stalled = blob("stall", 1 << 20)
    repo = c.hub.add(Repo("tester/stall-GGUF", {"stall-Q4_K_M.gguf": stalled}))
    c.hub.behaviours[sha256(stalled)] = "stall"
    p = subprocess.Popen([c.wasinn, "pull", "tester/stall-GGUF"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=c.env)
    part = c.repo_dir(repo) / "blobs" / (sha256(stalled) + ".incomplete")
    try:
        check(c.hub.half_sent.wait(30), "the server sent half")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (part.exists() and part.stat().st_size == len(stalled) // 2):
            time.sleep(0.05)
        check(part.exists() and part.stat().st_size == len(stalled) // 2, "half the file in .incomplete")
    finally:
        p.send_signal(signal.SIGKILL)
        p.communicate(timeout=30)
        c.hub.release.set()
    r = c.pull("tester/stall-GGUF")
    gets = c.hub.blob_gets(stalled)
    check(gets[-1]["range"] == "bytes=%d-" % (len(stalled) // 2), "the next run sent Range", gets)
    check("resuming at 512.0 KiB" in r.stderr, "says where it resumes", r.stderr)
    check_pointer(c, repo, "stall-Q4_K_M.gguf", r.stdout.strip())
    check(not part.exists(), "no .incomplete left")
    # Two pulls of one file at once: the second waits on the first's lock, then downloads nothing.
    shared = blob("shared", 1 << 20)
    repo = c.hub.add(Repo("tester/shared-GGUF", {"shared-Q4_K_M.gguf": shared}))
    c.hub.half_sent.clear()
    c.hub.release.clear()
    c.hub.behaviours[sha256(shared)] = "stall"
    args = [c.wasinn, "pull", "tester/shared-GGUF"]
    first = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=c.env, text=True)
    second = None
    try:
        check(c.hub.half_sent.wait(30), "the server sent half")
        second = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=c.env, text=True)

        def waiting():  # /proc/locks: "N: -> FLOCK  ADVISORY  WRITE PID ..." for a blocked flock
            return any("-> FLOCK" in line and line.split()[5] == str(second.pid)
                       for line in Path("/proc/locks").read_text().splitlines())

        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not waiting():
            time.sleep(0.05)
        check(waiting(), "the second pull waits on a lock")
    finally:
        c.hub.release.set()
        outs = [p.communicate(timeout=30) for p in (first, second) if p]
    check(first.returncode == 0 and second.returncode == 0 and outs[0][0] == outs[1][0],
          "both pulled the same file", outs)
    check("waiting for another download of tester/shared-GGUF/shared-Q4_K_M.gguf" in outs[1][1] and
          "in the cache" in outs[1][1], "the second waited, then found it", outs[1][1])
    check(len(c.hub.blob_gets(shared)) == 2, "downloaded once (cut, then resumed)", c.hub.blob_gets(shared))
    check_pointer(c, repo, "shared-Q4_K_M.gguf", outs[0][0].strip())


def case_corrupt(c):
    data = blob("bad")
    repo = c.hub.add(Repo("tester/bad-GGUF", {"bad-Q4_K_M.gguf": data}))
    c.hub.behaviours[sha256(data)] = "corrupt"
    r = c.pull("tester/bad-GGUF", expect=1)
    check("SHA-256" in r.stderr and "corrupt" in r.stderr and sha256(data) in r.stderr, "says why", r.stderr)
    blobs = c.repo_dir(repo) / "blobs"
    check(not any(blobs.iterdir()), "nothing left in blobs", list(blobs.iterdir()))
    check(not c.snapshot(repo, "bad-Q4_K_M.gguf").exists(), "no snapshot link")
    # A kept part whose bytes are wrong is caught after it is continued, and removed.
    good = GGUF["tiny-Q4_K_M.gguf"]
    part = c.repo_dir(c.gguf) / "blobs" / (sha256(good) + ".incomplete")
    part.parent.mkdir(parents=True)
    part.write_bytes(b"X" * 1000)
    r = c.pull("tester/tiny-GGUF", expect=1)
    check("corrupt" in r.stderr and not part.exists(), "a wrong part: refused and removed", r.stderr)
    check(c.hub.blob_gets(good)[-1]["range"] == "bytes=1000-", "the part was continued")
    c.pull("tester/tiny-GGUF")
    check_pointer(c, c.gguf, "tiny-Q4_K_M.gguf")


def case_auth(c):
    data = blob("gated")
    repo = c.hub.add(Repo("tester/gated-GGUF", {"gated-Q4_K_M.gguf": data}, gated=True))
    r = c.pull("tester/gated-GGUF", expect=1)
    check("gated" in r.stderr and "HF_TOKEN" in r.stderr, "401 without a token: set HF_TOKEN", r.stderr)
    r = c.pull("tester/gated-GGUF/gated-Q4_K_M.gguf", expect=1)
    check("HF_TOKEN" in r.stderr, "a file of it: the same", r.stderr)
    r = c.pull("tester/gated-GGUF", env={"HF_TOKEN": "hf_wrong"}, expect=1)
    check("refused" in r.stderr or "check HF_TOKEN" in r.stderr, "a wrong token", r.stderr)
    before = len(c.hub.log)
    r = c.pull("tester/gated-GGUF", env={"HF_TOKEN": c.hub.token})
    check_pointer(c, repo, "gated-Q4_K_M.gguf", r.stdout.strip())
    hub = [e for e in c.hub.log[before:] if e["server"] == "hub"]
    cdn = [e for e in c.hub.log[before:] if e["server"] == "cdn"]
    check(hub and all(e["auth"] == "Bearer " + c.hub.token for e in hub), "the token to the Hub", hub)
    check(cdn and all(e["auth"] is None for e in cdn), "no token to the CDN", cdn)
    # The token `hf auth login` saves: HF_HOME/token.
    shutil.rmtree(c.repo_dir(repo))
    (c.tmp / "hf" / "token").write_text(c.hub.token + "\n")
    c.pull("tester/gated-GGUF")


def case_notfound(c):
    r = c.pull("tester/nope", expect=1)
    check("no repository tester/nope on " + c.hub.url in r.stderr, "no such repository", r.stderr)
    r = c.pull("tester/tiny-GGUF/missing.gguf", expect=1)
    check("tester/tiny-GGUF has no file missing.gguf at revision main" in r.stderr, "no such file", r.stderr)
    r = c.pull("tester/tiny-GGUF", "--revision", "v9", expect=1)
    check("has no revision v9" in r.stderr, "no such revision", r.stderr)
    for args in ([], ["justaname"], ["tester/tiny-GGUF/a/../b.gguf"], ["tester/x:Q4/file.gguf"],
                 ["hf://datasets/a/b"]):
        r = c.pull(*args, expect=2)
        check("error" in r.stderr, "usage error for %r" % args, r.stderr)
    r = c.pull("--revison", "x", "tester/tiny-GGUF", expect=2)
    check("did you mean '--revision'" in r.stderr, "a typo's near name", r.stderr)
    r = c.pull("tester/tiny-GGUF", "--endpoint", "ftp://x", expect=2)
    check("http(s)://" in r.stderr, "a bad endpoint", r.stderr)
    r = c.pull("tester/tiny-GGUF", env={"HF_ENDPOINT": "http://127.0.0.1:9"}, expect=1)
    check("cannot reach http://127.0.0.1:9" in r.stderr, "an unreachable Hub", r.stderr)


def case_offline(c):
    online = c.pull("tester/tiny-GGUF")
    before = len(c.hub.log)
    r = c.pull("tester/tiny-GGUF", env={"HF_HUB_OFFLINE": "1"})
    check(r.stdout == online.stdout and len(c.hub.log) == before, "offline: the cache, no request", r.stdout)
    r = c.pull("--offline", "tester/tiny-GGUF/tiny-Q4_K_M.gguf")
    check(r.stdout == online.stdout and len(c.hub.log) == before, "--offline, a file")
    r = c.pull("tester/tiny-GGUF:Q8_0", env={"HF_HUB_OFFLINE": "1"}, expect=1)
    check("tagged Q8_0" in r.stderr and "offline" in r.stderr, "offline: a tag not cached", r.stderr)
    r = c.pull("tester/tiny-GGUF/tiny-F16.gguf", env={"HF_HUB_OFFLINE": "1"}, expect=1)
    check("offline: tester/tiny-GGUF/tiny-F16.gguf (revision main) is not in the cache" in r.stderr,
          "offline: a file not cached", r.stderr)
    r = c.pull("tester/tiny-onnx", env={"HF_HUB_OFFLINE": "1"}, expect=1)
    check("offline: tester/tiny-onnx (revision main) is not in the cache" in r.stderr,
          "offline: a repository not cached", r.stderr)
    check(len(c.hub.log) == before, "offline: no request at all")
    # The Hub unreachable: what is cached is used, with a word.
    r = c.pull("tester/tiny-GGUF", env={"HF_ENDPOINT": "http://127.0.0.1:9"})
    check(r.stdout == online.stdout and "cannot reach" in r.stderr and "using the cached" in r.stderr,
          "unreachable: the cached copy", r.stderr)


def case_url(c):
    data = blob("plain file")
    url = c.hub.plain("tiny.gguf", data)
    r = c.pull(url + "?download=true")
    path = Path(r.stdout.strip())
    check(path.read_bytes() == data and path.name == "tiny.gguf" and
          str(path).startswith(str(c.tmp / "xdg" / "wasinn" / "downloads" / "127.0.0.1")), "a plain URL", r.stdout)
    r = c.pull(url + "?download=true")
    check(Path(r.stdout.strip()) == path and "in the cache" in r.stderr, "again: not downloaded", r.stderr)
    check(len(c.hub.requests("cdn", "GET", "/plain/tiny.gguf")) == 1, "one GET")
    # A Hub /resolve/ URL: into the Hub's cache.
    r = c.pull(c.hub.url + "/tester/tiny-GGUF/resolve/main/tiny-F16.gguf?download=true")
    check_pointer(c, c.gguf, "tiny-F16.gguf", r.stdout.strip())
    r = c.pull(c.hub.cdn_url + "/plain/missing.gguf", expect=1)
    check("404" in r.stderr, "a URL that is not there", r.stderr)


def case_interop(c):
    try:
        import huggingface_hub  # noqa: F401
    except ImportError:
        print("skipped: huggingface_hub is not installed in %s (scripts/deps/hub.pip)" % sys.executable)
        sys.exit(77)

    def hf_download(repo, filename):
        code = ("import sys\nfrom huggingface_hub import hf_hub_download\n"
                "print(hf_hub_download(sys.argv[1], sys.argv[2], cache_dir=sys.argv[3]))\n")
        r = subprocess.run([sys.executable, "-c", code, repo, filename, str(c.cache)], capture_output=True,
                           text=True, timeout=60, env=c.env)
        check(r.returncode == 0, "hf_hub_download %s %s" % (repo, filename), r.stdout, r.stderr)
        return r.stdout.strip().splitlines()[-1]

    # huggingface_hub reads what wasinn stored, without downloading it again.
    ours = c.pull("tester/tiny-GGUF:Q8_0").stdout.strip()
    theirs = hf_download("tester/tiny-GGUF", "tiny-Q8_0.gguf")
    check(theirs == ours, "hf_hub_download's path is wasinn's", theirs, ours)
    check(len(c.hub.blob_gets(GGUF["tiny-Q8_0.gguf"])) == 1, "huggingface_hub did not download it again")
    # wasinn reads what huggingface_hub stored.
    for path in ("onnx/model.onnx", "onnx/model.onnx_data", "config.json", "tokenizer.json"):
        theirs = hf_download("tester/tiny-onnx", path)
        check(theirs == str(c.snapshot(c.onnx, path)), "huggingface_hub's layout", theirs)

    def downloads():
        return [e for e in c.hub.log if e["method"] == "GET" and
                (e["server"] == "cdn" or e["path"].startswith("/tester/tiny-onnx/resolve/"))]

    gets = len(downloads())
    r = c.pull("tester/tiny-onnx")
    check(r.stdout.strip() == str(c.snapshot(c.onnx, "onnx/model.onnx")), "wasinn's path is theirs", r.stdout)
    check(len(downloads()) == gets,
          "wasinn did not download them again", r.stderr)
    check(r.stderr.count("in the cache") == 4, "four files found cached", r.stderr)
    # huggingface_hub's own reading of the cache sees no problem in what wasinn wrote.
    code = ("import sys\nfrom huggingface_hub import scan_cache_dir\ninfo = scan_cache_dir(sys.argv[1])\n"
            "print(len(info.warnings))\nfor r in info.repos:\n"
            "    for rev in r.revisions:\n        print(r.repo_id, rev.commit_hash, sorted(rev.refs), len(rev.files))\n")
    r = subprocess.run([sys.executable, "-c", code, str(c.cache)], capture_output=True, text=True, timeout=60,
                       env=c.env)
    check(r.returncode == 0, "scan_cache_dir", r.stdout, r.stderr)
    lines = r.stdout.splitlines()
    check(lines[0] == "0", "no warnings", r.stdout)
    check("tester/tiny-GGUF %s ['main'] 1" % c.gguf.commit in lines and
          "tester/tiny-onnx %s ['main'] 4" % c.onnx.commit in lines, "both repositories as scanned", r.stdout)


CASES = {name[5:]: f for name, f in globals().items() if name.startswith("case_")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", required=True, choices=sorted(CASES))
    ap.add_argument("--wasinn", required=True)
    args = ap.parse_args()
    c = Case(args.wasinn)
    started = time.monotonic()
    try:
        CASES[args.case](c)
    finally:
        c.close()
    print("pull.%s: ok (%.1f s)" % (args.case, time.monotonic() - started))


if __name__ == "__main__":
    main()
