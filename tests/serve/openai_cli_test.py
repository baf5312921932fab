#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""`wasinn serve --openai MODEL...` (src/cli/openai_models.cpp), Hub references in --nn-preload
(src/cli/model_refs.cpp) and --public-path (the chat page behind --api-key), with the real binary,
PyPI's `openai` client and tests/pull/fake_hub.py (a Hugging Face Hub on 127.0.0.1) serving the
tiny GGUF fixture; HF_HOME is a fresh temporary directory.

    openai_cli_test.py --case CASE --wasinn BUILD/bin/wasinn --guests BUILD/guests --fixtures DIR
                       [--backend-dir DIR] [--build-dir BUILD]

Cases (ctest runs each as serve.openai-cli.CASE):
  hub           --openai hf://tester/tiny-GGUF:Q8_0: pulled into HF_HOME (wasinn pull's progress lines),
                served; the start lines name the API's and the chat page's URLs; models.list() is the
                file's name, tiny-Q8_0; a chat completion (temperature 0) answers; a second start uses
                the cached file (its bytes not fetched again), a third with HF_HUB_OFFLINE=1 serves it
                without asking the Hub anything
  local         --openai mine=PATH PATH: one file under two names, both listed and answering
  usage         --openai with no model (the error shows a path and an hf:// example), two models of one
                name, a component path with --openai (either side), a bad reference, a missing file,
                --openai with --oip-http: exit 2, a message saying what to do, nothing listening; a
                Hub model that is not there: exit 1 naming --openai and the reference
  preload       --nn-preload default:GGML:AUTO:hf://...:Q8_0 with the http_openai component: pulled and
                served; the same preload from a config file on `wasinn run` offline (the cache's copy);
                a failed pull stops the start (exit 1) naming the flag and the reference
  page-key      --openai with --api-key: GET / is 200 without the key, HEAD / passes the key check (the
                page is public, --public-path /); /v1/models without the key 401, with it 200; POST / and any
                other path without the key 401
  page-browser  the same server in headless Chromium (selenium): the page loads and says it needs the
                key; the key typed into its field lists the model and a message gets an answer
  public-path   a generic component's root is not public with --api-key; --public-path /ok makes GET
                and HEAD of exactly /ok public, nothing else; a path without '/' is a usage error
  install       `cmake --install BUILD --prefix TMP --component runtime`: the component lands in
                TMP/share/wasinn/guests and TMP/bin/wasinn serve --openai PATH finds it and serves

Exit status: 0 passed, 1 failed, 77 skipped.
"""
import argparse
import http.client
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
sys.path.insert(0, os.path.join(HERE, "..", "pull"))
from case_checks import SKIP, Failure, Skipped, check, run_cases  # noqa: E402
from fake_hub import FakeHub, Repo  # noqa: E402
from serve_test import Server, log, request, wait_line  # noqa: E402
import openai_test  # noqa: E402

REPO = "tester/tiny-GGUF"
KEY = "sk-wasinn-cli-test"
NN_OPTIONS = '{"threads": 1}'


class Ctx(openai_test.Ctx):
    """openai_test's (the fixture, the guest and the openai client, or skipped), with a fake Hub."""

    def __init__(self, args):
        super().__init__(args)
        self.tmp = tempfile.mkdtemp(prefix="wasinn-openai-cli-")
        self._hub = None
        # The Hub's variables of whoever runs the test never reach wasinn.
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING", "TRANSFORMERS_"))}
        self.env.update(HF_HOME=os.path.join(self.tmp, "hf"), HF_HUB_DISABLE_TELEMETRY="1")

    def hub(self):
        """The fake Hub, serving the tiny GGUF as two quantizations of one repository."""
        if self._hub is None:
            with open(self.model, "rb") as f:
                data = f.read()
            self._hub = FakeHub()
            self._hub.add(Repo(REPO, {"README.md": b"# tiny\n", "tiny-Q4_K_M.gguf": data, "tiny-Q8_0.gguf": data}))
            self.env["HF_ENDPOINT"] = self._hub.url
        return self._hub

    def close(self):
        if self._hub:
            self._hub.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def common(self):
        extra = ["--env", f"NN_OPTIONS={NN_OPTIONS}"]
        if self.args.backend_dir:
            extra += ["--backend-dir", self.args.backend_dir]
        return extra

    def openai(self, models, extra=(), env=None, wasinn=None):
        """wasinn serve --addr 127.0.0.1:0 [common] EXTRA --openai MODELS... (Server puts the last last)."""
        models = list(models)
        args = self.common() + list(extra) + ["--openai"] + models[:-1]
        return Server([wasinn or self.args.wasinn, "serve"], args, models[-1], env=env or self.env,
                      name="wasinn serve --openai")

    def run(self, argv, env=None, timeout=120):
        return subprocess.run([self.args.wasinn] + argv, capture_output=True, text=True, timeout=timeout,
                              env=env or self.env, stdin=subprocess.DEVNULL)


def client(server, api_key="unused"):
    import openai
    return openai.OpenAI(base_url=server.url("/v1"), api_key=api_key, max_retries=0, timeout=120)


def need_openai():
    try:
        import openai  # noqa: F401
    except ImportError:
        raise Skipped("PyPI's openai is not installed in this Python (scripts/deps/openai.pip)")


def chat(server, model, api_key="unused"):
    r = client(server, api_key).chat.completions.create(
        model=model, messages=[{"role": "user", "content": "Name a colour."}], max_tokens=4, temperature=0)
    check(r.model == model and r.choices[0].message.content is not None, f"chat with {model}: {r!r}")
    check(r.usage.completion_tokens >= 1, f"chat with {model}: no token generated: {r.usage!r}")
    return r


def check_start_lines(server, names):
    """The lines after 'Serving HTTP on ...': the API's URL (an OpenAI client's base_url) and the page's."""
    base = server.url("")
    api = wait_line(server, re.escape(f"OpenAI API: {base}/v1 (models: {', '.join(names)})"))
    check(api, f"no API URL line\n{server.tail()}")
    check(wait_line(server, re.escape(f"Chat page: {base}/")), f"no chat page line\n{server.tail()}")


def case_hub(ctx):
    need_openai()
    hub = ctx.hub()
    with ctx.openai([f"hf://{REPO}:Q8_0"]) as server:
        check_start_lines(server, ["tiny-Q8_0"])
        with server.lock:
            err = "\n".join(server.err_lines)
        check(f"pulling {REPO}/tiny-Q8_0.gguf" in err and "tiny-Q8_0.gguf: done" in err,
              f"no pull progress on stderr\n{server.tail()}")
        names = [m.id for m in client(server).models.list()]
        check(names == ["tiny-Q8_0"], f"models.list(): {names}")
        r = chat(server, "tiny-Q8_0")
    blob_dir = os.path.join(ctx.env["HF_HOME"], "hub", "models--tester--tiny-GGUF", "blobs")
    check(len(os.listdir(blob_dir)) == 1, f"the cache's blobs: {os.listdir(blob_dir)}")
    check(len(hub.requests("cdn", "GET")) == 1, f"one download of the bytes: {hub.requests('cdn')}")
    # Started again: the cached file is used, its bytes not fetched again.
    with ctx.openai([f"hf://{REPO}:Q8_0"]) as server:
        check(wait_line(server, "tiny-Q8_0.gguf: in the cache"), f"not taken from the cache\n{server.tail()}")
        chat(server, "tiny-Q8_0")
    check(len(hub.requests("cdn", "GET")) == 1, f"the bytes fetched again: {hub.requests('cdn')}")
    asked = len(hub.log)
    offline = {**ctx.env, "HF_HUB_OFFLINE": "1"}
    with ctx.openai([f"hf://{REPO}:Q8_0"], env=offline) as server:
        names = [m.id for m in client(server).models.list()]
        check(names == ["tiny-Q8_0"], f"offline models.list(): {names}")
        chat(server, "tiny-Q8_0")
    check(len(hub.log) == asked, f"offline, the Hub was asked {hub.log[asked:]}")
    log(f"hub: pulled {REPO}:Q8_0 into HF_HOME and served it as tiny-Q8_0 ({r.choices[0].message.content!r}); "
        "offline, the cache's copy without a request to the Hub")


def case_local(ctx):
    need_openai()
    with ctx.openai([f"mine={ctx.model}", ctx.model]) as server:
        check_start_lines(server, ["mine", "tiny"])
        names = [m.id for m in client(server).models.list()]
        check(names == ["mine", "tiny"], f"models.list(): {names}")
        chat(server, "mine")
        chat(server, "tiny")
    log("local: mine=PATH and PATH served as 'mine' and 'tiny'")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def refused(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        return False
    except OSError:
        return True


def expect_failure(ctx, argv, code, *wanted, env=None):
    """`wasinn serve --addr 127.0.0.1:PORT ARGV` exits CODE saying each of WANTED, and never listened."""
    port = free_port()
    r = ctx.run(["serve", "--addr", f"127.0.0.1:{port}"] + argv, env=env)
    shown = " ".join(argv)
    check(r.returncode == code, f"serve {shown}: exit {r.returncode}, not {code}\n{r.stderr}")
    for w in wanted:
        check(w in r.stderr, f"serve {shown}: no {w!r} in its error:\n{r.stderr}")
    check("Serving HTTP" not in r.stderr and refused(port), f"serve {shown} listened\n{r.stderr}")
    return r.stderr


def case_usage(ctx):
    component = os.path.join(ctx.args.guests, "http_openai.component.wasm")
    ctx.hub()
    expect_failure(ctx, ["--openai"], 2, "--openai needs a model", "wasinn serve --openai path/to/model.gguf",
                   "hf://")
    expect_failure(ctx, ["--openai", ctx.model, ctx.model], 2, "two models named 'tiny'", "--openai tiny-2=")
    expect_failure(ctx, ["--openai", f"a={ctx.model}", f"a={ctx.model}"], 2, "two models named 'a'")
    expect_failure(ctx, ["--openai", ctx.model, component], 2, "drop --openai to serve that component")
    expect_failure(ctx, [component, "--openai", ctx.model], 2, "drop --openai to serve that component")
    expect_failure(ctx, ["--openai", "owner/"], 2, "--openai 'owner/'", "is not a model reference",
                   "hf://owner/repo")
    expect_failure(ctx, ["--openai", "hf://datasets/tester/x"], 2, "only model repositories")
    expect_failure(ctx, ["--openai", "./missing.gguf"], 2, "no such file './missing.gguf'")
    expect_failure(ctx, ["--openai", f"a:b={ctx.model}"], 2, "is not a model reference")
    expect_failure(ctx, ["--openai", f"a b={ctx.model}"], 2, "a model's NAME has no")
    expect_failure(ctx, ["--oip-http", "127.0.0.1:0", "--openai", ctx.model], 2, "one or the other")
    # Not a usage error: a start-up failure, naming the flag and the reference.
    expect_failure(ctx, ["--openai", "hf://tester/not-there"], 1, "--openai 'hf://tester/not-there'",
                   "cannot pull hf://tester/not-there")
    expect_failure(ctx, ["--openai", f"hf://{REPO}:Q8_0"], 1, "cannot pull",
                   env={**ctx.env, "HF_HUB_OFFLINE": "1", "HF_HOME": os.path.join(ctx.tmp, "empty")})
    log("usage: each mistake exits 2 with what to do, a Hub model that is not there exits 1; none listened")


def case_preload(ctx):
    need_openai()
    ctx.hub()
    component = os.path.join(ctx.args.guests, "http_openai.component.wasm")
    args = ctx.common() + ["--nn-preload", f"default:GGML:AUTO:hf://{REPO}:Q8_0", "--env", "MODELS=default"]
    with Server([ctx.args.wasinn, "serve"], args, component, env=ctx.env, name="wasinn serve") as server:
        with server.lock:
            err = "\n".join(server.err_lines)
        check(f"pulling {REPO}/tiny-Q8_0.gguf" in err, f"no pull progress\n{server.tail()}")
        names = [m.id for m in client(server).models.list()]
        check(names == ["default"], f"models.list(): {names}")
        chat(server, "default")
    # The config file's nn-preload on `wasinn run`, offline: the copy the serve above pulled.
    config = os.path.join(ctx.tmp, "config.toml")
    with open(config, "w") as f:
        f.write(f'nn-preload = ["llm:ggml:auto:hf://{REPO}/tiny-Q8_0.gguf"]\n')
    guest = os.path.join(ctx.args.guests, "echo_args.wasm")
    offline = {**ctx.env, "HF_HUB_OFFLINE": "1"}
    r = ctx.run(["run", "--config", config, guest, "hello"], env=offline)
    check(r.returncode == 0 and "hello" in r.stdout, f"run with the config's preload: exit {r.returncode}\n"
          f"{r.stdout}\n{r.stderr}")
    check("tiny-Q8_0.gguf: in the cache" in r.stderr, f"run did not say it used the cache:\n{r.stderr}")
    # `models inspect` takes the same reference (offline too: the cache's copy) and reads the real GGUF.
    r = ctx.run(["models", "inspect", "--json", f"hf://{REPO}:Q8_0"] + ctx.common()[2:], env=offline)
    check(r.returncode == 0 and '"backend": "llamacpp"' in r.stdout,
          f"models inspect hf://: exit {r.returncode}\n{r.stdout}\n{r.stderr}")
    # A pull that fails is the start's failure, naming the flag (or the file's line) and the reference.
    r = ctx.run(["run", "--nn-preload", "x:GGML:AUTO:hf://tester/not-there:Q4_K_M", guest])
    check(r.returncode == 1 and "--nn-preload 'x:GGML:AUTO:hf://tester/not-there:Q4_K_M': cannot pull "
          "hf://tester/not-there:Q4_K_M" in r.stderr, f"a failed pull: exit {r.returncode}\n{r.stderr}")
    with open(config, "w") as f:
        f.write('nn-preload = ["llm:ggml:auto:hf://tester/not-there"]\n')
    r = ctx.run(["run", "--config", config, guest], env=offline)
    check(r.returncode == 1 and "config.toml:1" in r.stderr and "cannot pull hf://tester/not-there" in r.stderr,
          f"a config file's failed pull: exit {r.returncode}\n{r.stderr}")
    port = free_port()
    r = ctx.run(["serve", "--addr", f"127.0.0.1:{port}", "--nn-preload", "x:GGML:AUTO:hf://tester/not-there",
                 component])
    check(r.returncode == 1 and "--nn-preload 'x:GGML:AUTO:hf://tester/not-there'" in r.stderr and refused(port),
          f"serve with a failed pull: exit {r.returncode}\n{r.stderr}")
    log("preload: hf:// in --nn-preload pulled and served; the config file's on run used the cache offline; "
        "models inspect read it by its reference; failed pulls stop the start naming where the reference was given")


def case_page_key(ctx):
    with ctx.openai([ctx.model], extra=["--api-key", KEY]) as server:
        auth = {"Authorization": f"Bearer {KEY}"}
        page = request(server, "GET", "/")
        check(page.status == 200 and page.headers.get("content-type", "").startswith("text/html")
              and b"api-key" in page.body, f"GET / without a key: {page!r}")
        # HEAD / passes the key check (the guest answers it as it routes it).
        head = request(server, "HEAD", "/")
        check(head.status != 401, f"HEAD / without a key: {head!r}")
        for method, path, headers, want in (
                ("GET", "/?from=bookmark", {}, 200),
                ("GET", "/", {"Authorization": "Bearer wrong"}, 200),
                ("GET", "/v1/models", {}, 401),
                ("GET", "/v1/models", {"Authorization": "Bearer wrong"}, 401),
                ("GET", "/v1/models", auth, 200),
                ("POST", "/", {}, 401),
                ("GET", "/index.html", {}, 401),
                ("GET", "//", {}, 401),
                ("POST", "/v1/chat/completions", {"content-type": "application/json"}, 401)):
            body = b"{}" if method == "POST" else None
            r = request(server, method, path, body=body, headers=headers)
            check(r.status == want, f"{method} {path} {headers}: {r.status}, not {want}: {r.body[:200]!r}")
    log("page-key: / is public for GET and HEAD; the API, POST / and every other path need the key")


def case_page_browser(ctx):
    start_browser = openai_test.headless_chromium()
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
    with ctx.openai([f"chat={ctx.model}"], extra=["--api-key", KEY]) as server:
        driver = start_browser()
        try:
            wait = WebDriverWait(driver, 60)
            driver.get(server.url("/"))
            wait.until(lambda d: "needs an API key" in d.find_element(By.ID, "status").text)
            key = driver.find_element(By.ID, "api-key")
            key.send_keys(KEY)
            key.send_keys(Keys.TAB)  # the field's change event lists the models again, with the key
            wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#model option")) == 1)
            names = [o.get_attribute("value") for o in driver.find_elements(By.CSS_SELECTOR, "#model option")]
            check(names == ["chat"], f"the page's models: {names}")
            for field, value in (("temperature", "0"), ("max-tokens", "8")):
                driver.find_element(By.ID, field).clear()
                driver.find_element(By.ID, field).send_keys(value)
            driver.find_element(By.ID, "message").send_keys("Name a colour.")
            driver.find_element(By.ID, "send").click()
            wait.until(lambda d: d.find_element(By.ID, "status").text.startswith(("done", "failed")))
            status = driver.find_element(By.ID, "status").text
            answer = driver.find_elements(By.CSS_SELECTOR, ".msg.assistant")[-1]
            check(status.startswith("done") and "error" not in answer.get_attribute("class"),
                  f"with the key typed in: status {status!r}, answer {answer.get_property('textContent')!r}")
            # The only console errors: the browser's own line for the 401 of the first, keyless, list.
            errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE" and "401" not in e["message"]]
            check(not errors, f"console errors: {errors}")
        finally:
            driver.quit()
    log("page-browser: the page loaded without the key, asked for it, and with it typed in listed the model "
        "and answered")


def case_public_path(ctx):
    component = os.path.join(ctx.args.guests, "http_faults.component.wasm")
    if not os.path.exists(component):
        raise Skipped(f"no {component}")
    with Server([ctx.args.wasinn, "serve"], ["--api-key", KEY], component, env=ctx.env) as server:
        for path in ("/", "/ok"):
            r = request(server, "GET", path)
            check(r.status == 401, f"a component's GET {path} without the key and no --public-path: {r!r}")
    with Server([ctx.args.wasinn, "serve"], ["--api-key", KEY, "--public-path", "/ok"], component,
                env=ctx.env) as server:
        for method, path, want in (("GET", "/ok", 200), ("HEAD", "/ok", 200), ("GET", "/ok?x=1", 200),
                                   ("POST", "/ok", 401), ("PUT", "/ok", 401), ("GET", "/ok/", 401),
                                   ("GET", "/OK", 401), ("GET", "/", 401), ("GET", "/okay", 401)):
            r = request(server, method, path, body=b"x" if method in ("POST", "PUT") else None)
            check(r.status == want, f"--public-path /ok: {method} {path}: {r.status}, not {want}")
        r = request(server, "POST", "/ok", body=b"x", headers={"Authorization": f"Bearer {KEY}"})
        check(r.status == 200, f"POST /ok with the key: {r!r}")
    expect_failure(ctx, ["--public-path", "ok", component], 2, "--public-path", "starts with '/'")
    log("public-path: no path is public by default; --public-path /ok opens GET and HEAD of exactly /ok")


def case_install(ctx):
    need_openai()
    build = ctx.args.build_dir
    if not build:
        raise Skipped("no --build-dir")
    prefix = os.path.join(ctx.tmp, "prefix")
    r = subprocess.run(["cmake", "--install", build, "--prefix", prefix, "--component", "runtime"],
                       capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, f"cmake --install failed:\n{r.stdout}\n{r.stderr}")
    installed = os.path.join(prefix, "share", "wasinn", "guests", "http_openai.component.wasm")
    check(os.path.isfile(installed), f"no {installed} after cmake --install")
    # The plugins and the component from the prefix alone: no variable points into the build tree.
    env = {k: v for k, v in ctx.env.items() if k not in ("WASINN_BACKEND_PATH", "WASINN_LOAD_CHECK")}
    args = ["--env", f"NN_OPTIONS={NN_OPTIONS}", "--openai"]
    with Server([os.path.join(prefix, "bin", "wasinn"), "serve"], args, ctx.model, env=env,
                name="installed wasinn serve --openai") as server:
        check_start_lines(server, ["tiny"])
        names = [m.id for m in client(server).models.list()]
        check(names == ["tiny"], f"models.list(): {names}")
    # Without the component there, the error says where it looked.
    os.remove(installed)
    r = subprocess.run([os.path.join(prefix, "bin", "wasinn"), "serve", "--addr", "127.0.0.1:0", "--openai",
                        ctx.model], capture_output=True, text=True, timeout=60, env=env)
    check(r.returncode == 1 and os.path.join(prefix, "share", "wasinn", "guests") in r.stderr,
          f"no component installed: exit {r.returncode}\n{r.stderr}")
    log(f"install: {installed} installed and found by {prefix}/bin/wasinn serve --openai")


CASES = {"hub": case_hub, "local": case_local, "usage": case_usage, "preload": case_preload,
         "page-key": case_page_key, "page-browser": case_page_browser, "public-path": case_public_path,
         "install": case_install}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--case", required=True, choices=sorted(CASES))
    p.add_argument("--wasinn", required=True)
    p.add_argument("--guests", required=True)
    p.add_argument("--fixtures", required=True)
    p.add_argument("--backend-dir")
    p.add_argument("--build-dir")
    args = p.parse_args()
    if os.environ.get("WASINN_FIXTURES"):
        args.fixtures = os.environ["WASINN_FIXTURES"]
    try:
        ctx = Ctx(args)
    except Skipped as e:
        print(f"SKIP {args.case}: {e}")
        return SKIP
    try:
        return run_cases(CASES, [args.case], ctx)
    finally:
        ctx.close()


if __name__ == "__main__":
    sys.exit(main())
