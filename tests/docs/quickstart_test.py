#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The README's quick start, run command by command as a reader copies it.

    quickstart_test.py --case quickstart|flags --root ROOT --build BUILD [--fixtures DIR]

quickstart  Every fenced command between README.md's "Quick start" heading and the next heading,
            in the README's order, each one line. The first two are not run (they would run this
            test again): `bash scripts/setup.sh` and `bash scripts/test.sh` must be the scripts
            scripts/ has, the second exactly the command .ci/run runs. The others run as written,
            by bash in ROOT, with only these substitutions:
              - `cmake --install build --prefix ~/.local`: the prefix is a temporary directory
                (and `build` the build tree under test); the installed `bin/wasinn --version` runs;
              - `export PATH=...`: `$HOME/.local` is that prefix; the PATH it gives is used after;
              - `wasinn pull` and `wasinn serve`: HF_ENDPOINT is a fake Hugging Face Hub
                (tests/pull/fake_hub.py) holding the README's repository, whose Q4_K_M file is the
                fixture model llama/tiny.gguf, and HF_HOME a temporary directory;
              - `wasinn serve` runs in the background with `--addr 127.0.0.1:0` added; once it
                prints its API URL, `127.0.0.1:8080` in the commands after it is its address;
              - `xdg-open URL` fetches URL instead of opening a browser.
            Each result is checked: the install's binary, the pulled file (the fixture's bytes in
            the Hub's cache layout), serve's URLs and that it pulled nothing again, curl's and the
            openai client's answers, the chat page. A command of another kind fails the test, so
            nothing the test does not run can sneak into the quick start.
flags       Every `wasinn SUBCOMMAND ... --flag` in README.md's fenced blocks is a flag that
            `wasinn SUBCOMMAND --help` lists (the flags before the module; the guest's after it).

Exit status: 0 passed, 1 failed.
"""
import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "pull"))
from fake_hub import FakeHub, Repo  # noqa: E402

# The README's model, as the Hub holds it (https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF).
REPO = "Qwen/Qwen2.5-0.5B-Instruct-GGUF"
QUANT_FILE = "qwen2.5-0.5b-instruct-q4_k_m.gguf"
DEFAULT_ADDR = "127.0.0.1:8080"


class Failure(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failure(message)


def log(message):
    print(message, flush=True)


def section(readme, title):
    """The text between the heading TITLE and the next heading."""
    m = re.search(rf"^#+ {re.escape(title)}\s*$", readme, re.M)
    check(m, f"README.md has no '{title}' heading")
    rest = readme[m.end():]
    end = re.search(r"^#+ ", rest, re.M)
    return rest[:end.start()] if end else rest


def fenced_lines(text):
    """The lines of every fenced block of text, in order, with their line numbers in text."""
    lines, inside = [], False
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            inside = not inside
            continue
        if inside and line.strip():
            lines.append((n, line))
    check(not inside, "a fenced block is not closed")
    return lines


class QuickStart:
    def __init__(self, args):
        self.args = args
        self.root = Path(args.root)
        self.build = Path(args.build)
        self.tmp = Path(tempfile.mkdtemp(prefix="wasinn-quickstart-"))
        self.prefix = self.tmp / "prefix"
        model = Path(args.fixtures) / "llama" / "tiny.gguf"
        check(model.exists(), f"no {model} (scripts/make_fixtures.py makes it)")
        self.model = model.read_bytes()
        self.hub = FakeHub()
        # The real repository's layout: every quantization, its README and licence. Only Q4_K_M is a
        # model; the others are bytes that no GGUF reader takes, so a wrong pick fails the serve.
        files = {"README.md": b"# Qwen2.5-0.5B-Instruct-GGUF\n", "LICENSE": b"Apache License 2.0\n",
                 QUANT_FILE: self.model}
        for quant in ("q2_k", "q3_k_m", "q4_0", "q5_k_m", "q6_k", "q8_0", "fp16"):
            files[f"qwen2.5-0.5b-instruct-{quant}.gguf"] = f"not {quant}".encode()
        self.repo = self.hub.add(Repo(REPO, files))
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING", "OPENAI_"))}
        self.env.update(HF_HOME=str(self.tmp / "hf"), HF_ENDPOINT=self.hub.url, HF_HUB_DISABLE_TELEMETRY="1")
        self.server = None
        self.server_lines = []
        self.addr = None
        self.pulled = None

    def close(self):
        if self.server and self.server.poll() is None:
            self.server.send_signal(signal.SIGTERM)
            try:
                self.server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.server.kill()
        self.hub.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def sh(self, command, timeout=300):
        """command run by bash in ROOT, as a reader runs it; its output as text."""
        r = subprocess.run(["bash", "-c", command], cwd=self.root, env=self.env, capture_output=True, text=True,
                           timeout=timeout)
        check(r.returncode == 0, f"`{command}`: exit {r.returncode}\nstdout: {r.stdout[-3000:]}\n"
                                 f"stderr: {r.stderr[-3000:]}")
        return r.stdout

    def served(self, command):
        """command with the address serve listens on in place of the README's default."""
        check(self.addr, f"`{command}` comes before `wasinn serve` has started")
        check(DEFAULT_ADDR in command, f"`{command}` does not use serve's default address {DEFAULT_ADDR}")
        return command.replace(DEFAULT_ADDR, self.addr)

    # The steps: (pattern of the README's command, what runs it), in the README's order.
    def setup(self, command):
        check((self.root / "scripts/setup.sh").is_file(), "the quick start runs scripts/setup.sh, which is not there")
        log("setup: scripts/setup.sh is there (not run: it would run this test again)")

    def test_command(self, command):
        ci = [line.strip() for line in (self.root / ".ci/run").read_text().splitlines()
              if line.strip() and not line.startswith("#") and not line.startswith(("set ", "cd "))]
        check(ci == [command], f"the quick start's test command `{command}` is not what .ci/run runs: {ci}")
        check((self.root / "scripts/test.sh").is_file(), "no scripts/test.sh")
        log("test: the quick start's test command is .ci/run's (not run: it runs this test)")

    def install(self, command):
        m = re.fullmatch(r"cmake --install build --prefix ~/\.local", command)
        check(m, f"`{command}`: the install step is `cmake --install build --prefix ~/.local`")
        self.sh(f"cmake --install {shlex.quote(str(self.build))} --prefix {shlex.quote(str(self.prefix))}")
        wasinn = self.prefix / "bin" / "wasinn"
        version = subprocess.run([str(wasinn), "--version"], capture_output=True, text=True, env=self.env)
        check(version.returncode == 0 and version.stdout.startswith("wasinn "),
              f"the installed wasinn --version: exit {version.returncode}: {version.stdout}{version.stderr}")
        backends = subprocess.run([str(wasinn), "backends"], capture_output=True, text=True, env=self.env)
        check(backends.returncode == 0 and f"searched: {self.prefix}/lib/wasinn/backends" in backends.stdout
              and "llamacpp" in backends.stdout,
              f"the installed wasinn does not find its plugins in the prefix: {backends.stdout}{backends.stderr}")
        log(f"install: {command} (prefix {self.prefix}); its wasinn runs and lists the prefix's plugins")

    def export_path(self, command):
        check(command.startswith("export PATH=") and "$HOME/.local/bin" in command,
              f"`{command}`: the PATH step names $HOME/.local/bin")
        path = self.sh(command.replace("$HOME/.local", shlex.quote(str(self.prefix))) + ' && printf %s "$PATH"')
        self.env["PATH"] = path
        found = shutil.which("wasinn", path=path)
        check(found == str(self.prefix / "bin" / "wasinn"), f"after `{command}`, wasinn is {found}")
        log(f"path: {command}; wasinn is the installed one")

    def pull(self, command):
        check(command == f"wasinn pull {REPO}:Q4_K_M", f"`{command}`: the test knows the pull of {REPO}:Q4_K_M")
        out = self.sh(command).strip().splitlines()
        check(len(out) == 1, f"`{command}` printed {out}, not one path")
        path = Path(out[0])
        snapshot = Path(self.env["HF_HOME"]) / "hub" / f"models--{REPO.replace('/', '--')}" / "snapshots"
        check(path == snapshot / self.repo.commit / QUANT_FILE, f"`{command}` stored {path}")
        check(path.read_bytes() == self.model, f"{path} is not the file the Hub served")
        self.pulled = len(self.hub.blob_gets(self.model))
        log(f"pull: {command} -> {path}, the Hub's bytes")

    def serve(self, command):
        check(command.startswith("wasinn serve --openai hf://") and "--addr" not in command,
              f"`{command}`: the test knows `wasinn serve --openai hf://...` on the default address")
        argv = shlex.split(command) + ["--addr", "127.0.0.1:0"]
        self.server = subprocess.Popen(argv, cwd=self.root, env=self.env, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=self._read_server, daemon=True).start()
        api = self.wait_line(r"(http://127\.0\.0\.1:(\d+))/v1\b", 120)
        self.addr = f"127.0.0.1:{api.group(2)}"
        page = self.wait_line(r"(?i)chat.*?(http://127\.0\.0\.1:\d+/\S*)", 10)
        check(page.group(1) == api.group(1) + "/", f"serve's chat page URL {page.group(1)} is not {api.group(1)}/")
        check(len(self.hub.blob_gets(self.model)) == self.pulled,
              "serve downloaded the model again, though `wasinn pull` had put it in the cache")
        log(f"serve: {command} --addr 127.0.0.1:0 -> {api.group(0)} and {page.group(1)}; the cached model served")

    def _read_server(self):
        for line in self.server.stdout:
            self.server_lines.append(line.rstrip("\n"))

    def wait_line(self, pattern, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.server_lines):
                m = re.search(pattern, line)
                if m:
                    return m
            check(self.server.poll() is None, "serve ended: exit %s\n%s" % (self.server.returncode,
                                                                           "\n".join(self.server_lines)))
            time.sleep(0.05)
        raise Failure(f"serve printed no line matching {pattern} in {timeout} s:\n" + "\n".join(self.server_lines))

    def curl(self, command):
        import json
        check("/v1/chat/completions" in command, f"`{command}`: the test knows curl asking /v1/chat/completions")
        answer = json.loads(self.sh(self.served(command), timeout=120))
        message = answer["choices"][0]["message"]
        check(answer["object"] == "chat.completion" and message["role"] == "assistant" and message["content"]
              and answer["usage"]["completion_tokens"] > 0, f"`{command}`: {answer}")
        log(f"curl: {command} -> {message['content'][:60]!r} ({answer['usage']['completion_tokens']} tokens)")

    def openai_client(self, command):
        check(re.fullmatch(r"\.deps/venv/bin/python examples/openai_chat\.py http://127\.0\.0\.1:8080/v1 .+", command),
              f"`{command}`: the test knows examples/openai_chat.py with serve's API URL")
        import json
        out = self.sh(self.served(command), timeout=120)
        with urllib.request.urlopen(f"http://{self.addr}/v1/models", timeout=30) as r:
            names = [m["id"] for m in json.load(r)["data"]]
        check(len(names) == 1 and out.startswith(f"{names[0]}: ") and len(out.strip()) > len(names[0]) + 1,
              f"`{command}` printed {out!r} (serve's models: {names})")
        log(f"openai: {command} -> {out.strip()[:70]!r}")

    def chat_page(self, command):
        check(re.fullmatch(r"xdg-open http://127\.0\.0\.1:8080/", command), f"`{command}`: the chat page's URL")
        url = "http://" + self.served(command).split("http://", 1)[1]
        with urllib.request.urlopen(url, timeout=30) as r:
            page = r.read().decode()
            check(r.status == 200 and r.headers.get_content_type() == "text/html", f"{url}: {r.status} {r.headers}")
        check("<title>wasinn chat</title>" in page and "/v1/chat/completions" in page, f"{url} is not the chat page")
        log(f"page: {url} is the chat page (fetched, not opened)")

    STEPS = [
        (r"bash scripts/setup\.sh", setup),
        (r"bash scripts/test\.sh", test_command),
        (r"cmake --install .*", install),
        (r"export PATH=.*", export_path),
        (r"wasinn pull .*", pull),
        (r"wasinn serve .*", serve),
        (r"curl .*", curl),
        (r"\S*python\S* .*", openai_client),
        (r"xdg-open .*", chat_page),
    ]

    def run(self):
        readme = (self.root / "README.md").read_text()
        lines = fenced_lines(section(readme, "Quick start"))
        check(lines, "the quick start has no fenced command")
        order = []
        for n, line in lines:
            check(not line.rstrip().endswith("\\"), f"quick start line {n}: `{line}` continues on the next line")
            check("/tmp/" not in line, f"quick start line {n}: `{line}` writes a shared path under /tmp")
            command = line.strip()
            steps = [(i, step) for i, (pattern, step) in enumerate(self.STEPS) if re.fullmatch(pattern, command)]
            check(steps, f"quick start line {n}: the test does not know how to run `{command}`")
            index, step = steps[0]
            check(not order or index > order[-1],
                  f"quick start line {n}: `{command}` is out of order (setup, test, install, PATH, pull, "
                  "serve, curl, openai, chat page)")
            order.append(index)
            step(self, command)
        missing = [self.STEPS[i][0] for i in range(len(self.STEPS)) if i not in order]
        check(not missing, f"the quick start lacks a step: {missing}")
        self.server.send_signal(signal.SIGTERM)
        check(self.server.wait(timeout=60) == 0, f"serve after SIGTERM: exit {self.server.returncode}")


def case_quickstart(args):
    q = QuickStart(args)
    try:
        q.run()
    finally:
        q.close()
    log("quickstart: every command of the README's quick start ran as written and answered")


def help_flags(wasinn, subcommand):
    r = subprocess.run([wasinn, *subcommand, "--help"], capture_output=True, text=True)
    check(r.returncode == 0, f"wasinn {' '.join(subcommand)} --help: exit {r.returncode}: {r.stderr}")
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", r.stdout)) | set(re.findall(r"(?<![\w-])(-[A-Za-z])\b", r.stdout))


def case_flags(args):
    wasinn = str(Path(args.build) / "bin" / "wasinn")
    readme = (Path(args.root) / "README.md").read_text()
    known, checked = {}, 0
    for n, line in fenced_lines(readme):
        for m in re.finditer(r"(?:^|[\s;&|(])(?:\S*/)?wasinn ([a-z]+)((?: inspect)?)(.*?)(?=\s\S*wasinn\s|$)", line):
            sub = m.group(1)
            if sub not in ("run", "serve", "pull", "backends", "models", "help", "completion"):
                words, sub = [], "run"  # `wasinn [OPTIONS] app.wasm` is run's
                rest = m.group(1) + m.group(2) + m.group(3)
            else:
                words = [sub] + m.group(2).split()
                rest = m.group(3)
            try:
                tokens = shlex.split(rest.split("&&")[0].split("|")[0])
            except ValueError:
                tokens = rest.split()
            flags = []
            for t in tokens:
                if t.endswith((".wasm", ".wat")) or t == "-":
                    break  # the guest's arguments follow
                t = t.strip("[]),")
                if re.fullmatch(r"--?[A-Za-z][\w-]*(=.*)?", t):
                    flags.append(t.split("=", 1)[0])
            key = tuple(words or ["run"])
            if not flags or key[0] == "help":
                continue
            if key not in known:
                known[key] = help_flags(wasinn, list(key))
            for flag in flags:
                check(flag in known[key], f"README.md fenced line `{line.strip()}`: `wasinn {' '.join(key)}` "
                                          f"has no flag {flag} (wasinn {' '.join(key)} --help)")
                checked += 1
    check(checked, "no wasinn flag found in README.md's fenced blocks")
    log(f"flags: {checked} flags of README.md's fenced wasinn commands are in their --help")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--case", required=True, choices=["quickstart", "flags"])
    p.add_argument("--root", default=str(HERE.parents[1]))
    p.add_argument("--build", default=str(HERE.parents[1] / "build"))
    p.add_argument("--fixtures", default=os.environ.get("WASINN_FIXTURES",
                                                        str(Path.home() / ".cache/wasinn/fixtures")))
    args = p.parse_args()
    try:
        {"quickstart": case_quickstart, "flags": case_flags}[args.case](args)
    except Failure as e:
        print(f"FAIL {args.case}: {e}", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
