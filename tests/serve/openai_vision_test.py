#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Images in chat through `wasinn serve --openai NAME=model.gguf --mmproj NAME=mmproj.gguf`, driven
by PyPI's `openai` (and `anthropic`) clients, each answer equal to llama.cpp's own on the same files
and the same build: llama-server's /v1/chat/completions (`--jinja --mmproj`, the same request) and
llama-mtmd-cli's greedy answer on the prompt llama-server's /apply-template renders (its media
marker pinned to llama-mtmd-cli's `<__media__>` by LLAMA_MEDIA_MARKER; the template given to the
CLI is the prompt itself).

    openai_vision_test.py --case CASE --wasinn BUILD/bin/wasinn --guests BUILD/guests --fixtures DIR
                          --llama-server BIN/llama-server --mtmd-cli BIN/llama-mtmd-cli
                          --ggml-cpu LIB/libggml-cpu.so [--backend-dir DIR]

Cases (ctest runs each as serve.openai-vision.CASE), on the random-weight pairs of
scripts/fixtures/export_llava.py:
  llava, qwen2vl, gemma3
           a user message of text and an image_url data URL (image.png), greedy, 16 tokens: the answer
           and its usage equal llama-server's, the answer llama-mtmd-cli's; streamed, the deltas join
           to it; text that reads '<image>' or '<img src="data:...">' beside the image stays text, as
           llama-server's does; (llava) the
           picture as JPEG, GIF and BMP (PyPI Pillow) answers as llama-server's; the second image (image2.png) answers as llama-server does for it, and otherwise
           than the first (the image matters); the Responses API's input_image and the Messages API's
           base64 image block answer as the chat; the token metrics count the image's tokens as the
           usage says, and the access log has each route's 200
  errors   each a 400 that says what, the server answering correctly after it: a truncated PNG, bytes
           that are no image, a PNG whose header says 12000x12000 (huge.png) or 100000x100000, a WebP, a remote
           http(s) URL (chat, Responses, Messages), a data URL that is not base64, images over
           MAX_IMAGE_BYTES, an input_audio part that is no audio (openai_audio_chat_test.py has audio's
           own errors), a model served without a projector (whose text chat
           with an inline tag in its text is answered); at start,
           --mmproj naming a missing file, a GGUF that is no projector, or no --openai model is a
           usage error (exit 2) before anything loads
  hub      --openai hf://owner/repo:Q8_0 (a fake Hub on 127.0.0.1, tests/pull/fake_hub.py) pulls the
           repository's projector as llama.cpp's -hf picks it and answers an image as llama-server;
           --no-mmproj leaves it out, --mmproj replaces it
  remote   --image-urls MAX,TIMEOUT: a chat's image_url (Responses' input_image, Messages' url image)
           naming http://127.0.0.1/image.png (a Python http.server) answers as llama-server does for the
           image as a data URL; a server silent or slow past TIMEOUT, a body over MAX, a 404, a 302, HTML,
           a refused connection, https to a plain HTTP server (TLS fails), a URL with credentials and
           fetched images over MAX_IMAGE_BYTES each a 400 that says what, the server answering after; off: refused, nothing fetched; a bad MAX or
           TIMEOUT, or no --openai, a usage error (exit 2)
  page     the chat page in headless Chromium: a picture chosen with a message is answered as
           llama-server answers it; with a Piper voice, Speak plays the answer's speech

Exit status: 0 passed, 1 failed, 77 skipped.
"""
import base64
import json
import os
import struct
import subprocess
import sys
import urllib.request
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from case_checks import Failure, Skipped, case_main, check  # noqa: E402
from serve_test import LlamaServer, Server, log  # noqa: E402

THREADS, CTX, N_PREDICT = 1, 512, 16
NN_OPTIONS = json.dumps({"threads": THREADS, "ctx-size": CTX})
PAIRS = {  # case -> (text model, projector), under the fixtures directory
    "llava": ("llama/tiny.gguf", "llava/mmproj-tiny.gguf"),
    "qwen2vl": ("llava/tiny-qwen2vl.gguf", "llava/mmproj-qwen2vl.gguf"),
    "gemma3": ("llava/tiny-gemma3.gguf", "llava/mmproj-gemma3.gguf"),
}
NAME = "vl"
TEXT = "describe the picture"
# Text that reads like an image's place: WasmEdge's marker and its inline tag, text for the model.
MARKUP = 'what are <image> and <img src="data:image/png;base64,iVBORw0KGgo="> in HTML?'
RAW_TEMPLATE = "{% for message in messages %}{{ message['content'] }}{% endfor %}"


def png_declaring(side):
    """A PNG whose header says side x side RGB pixels (40 GB decoded at 100000) and holds one row."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    row = zlib.compress(b"\0" + bytes(3 * side))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", row) + chunk(b"IEND", b""))


def data_url(raw, media="image/png"):
    return f"data:{media};base64," + base64.b64encode(raw).decode()


def chat_messages(url, text=TEXT):
    return [{"role": "user", "content": [{"type": "text", "text": text},
                                         {"type": "image_url", "image_url": {"url": url}}]}]


def other_formats(png):
    """The picture as JPEG, GIF and BMP (PyPI Pillow; none without it)."""
    try:
        import io
        from PIL import Image
    except ImportError:
        log("PyPI's Pillow is not installed: JPEG, GIF and BMP are left out")
        return []
    image = Image.open(io.BytesIO(png)).convert("RGB")
    out = []
    for fmt in ("JPEG", "GIF", "BMP"):
        buf = io.BytesIO()
        image.save(buf, format=fmt)
        out.append((fmt, buf.getvalue()))
    return out


class MtmdServer(LlamaServer):
    """llama.cpp's llama-server --jinja --mmproj on 127.0.0.1 (CPU only), its media marker pinned."""

    def __init__(self, binary, model, mmproj):
        super().__init__(binary, model, ["--mmproj", mmproj], threads=THREADS, ctx=CTX,
                         env=dict(os.environ, LLAMA_ARG_DEVICE="none", LLAMA_MEDIA_MARKER="<__media__>"))

    def post(self, path, body):
        req = urllib.request.Request(self.url(path), data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=120) as r:
            return json.loads(r.read())


class Ctx:
    def __init__(self, args):
        self.args = args
        for path in (args.llama_server, args.mtmd_cli):
            if not os.access(path, os.X_OK):
                raise Skipped(f"no {path} (scripts/deps/llamacpp.sh builds it)")
        component = os.path.join(args.guests, "http_openai.component.wasm")
        if not os.path.exists(component):
            raise Skipped(f"no {component} (built with the HTTP component guests)")
        self.images = {n: self.fixture(f"llava/{n}") for n in ("image.png", "image2.png", "huge.png",
                                                                "not-an-image.png")}
        try:
            import openai  # noqa: F401
        except ImportError as e:
            raise Skipped(f"{e.name} is not installed in this Python (scripts/deps/openai.pip)")

    def fixture(self, rel):
        path = os.path.join(self.args.fixtures, rel)
        if not os.path.exists(path):
            raise Skipped(f"no {path} (scripts/make_fixtures.py makes it)")
        return path

    def image(self, name):
        with open(self.images[name], "rb") as f:
            return f.read()

    def wasinn(self, models, extra=()):
        """wasinn serve --openai for MODELS, [(name, model, mmproj or None)]."""
        args = ["--env", f"NN_OPTIONS={NN_OPTIONS}", "--metrics-addr", "127.0.0.1:0"] + list(extra)
        if self.args.backend_dir:
            args += ["--backend-dir", self.args.backend_dir]
        for name, _, mmproj in models:
            if mmproj:
                args += ["--mmproj", f"{name}={mmproj}"]
        openai_args = []
        for name, model, _ in models:
            openai_args += ["--openai", f"{name}={model}"]
        # Server puts its last argument last: the final --openai's model.
        return Server([self.args.wasinn, "serve"], args + openai_args[:-1], openai_args[-1], name="wasinn serve")


def client(server):
    import openai
    return openai.OpenAI(base_url=server.url("/v1"), api_key="unused", max_retries=0, timeout=120)


def chat(c, messages, **kw):
    r = c.chat.completions.create(model=NAME, messages=messages, max_tokens=N_PREDICT, temperature=0, **kw)
    return r.choices[0].message.content, r.usage.prompt_tokens, r.usage.completion_tokens


def mtmd_answer(ctx, model, mmproj, media, prompt, kind="--image"):
    """llama-mtmd-cli's greedy answer on PROMPT as it is (the template is the message itself), with
    MEDIA given as KIND (--image, --audio)."""
    argv = [ctx.args.mtmd_cli, "-m", model, "--mmproj", mmproj, kind, media, "-p", prompt, "--jinja",
            "--chat-template", RAW_TEMPLATE, "--temp", "0", "-n", str(N_PREDICT), "-t", str(THREADS), "-c", str(CTX),
            "--seed", "1", "-lv", "4"]
    env = dict(os.environ, GGML_BACKEND_PATH=ctx.args.ggml_cpu)
    # Its logger thread may be cut at exit under load (ggml-org/llama.cpp#22142): its timings on
    # stderr, written after the answer, say the answer is whole.
    for _ in range(5):
        p = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
        check(p.returncode == 0, f"llama-mtmd-cli failed ({p.returncode}): {p.stderr.decode(errors='replace')[-2000:]}")
        out = p.stdout.decode(errors="replace")  # a random model may end on part of a character
        if b"llama_perf_context_print:" in p.stderr:
            check(out.startswith("\n") and out.endswith("\n\n"), f"llama-mtmd-cli's output is not framed: {out!r}")
            return out[1:-2]
    raise Failure("llama-mtmd-cli's output was cut in 5 runs")


def case_fixture(ctx):
    from openai_test import sample
    from serve_test import metrics_url, wait_lines
    model, mmproj = (ctx.fixture(p) for p in PAIRS[ctx.args.case])
    one, two = ctx.image("image.png"), ctx.image("image2.png")
    with MtmdServer(ctx.args.llama_server, model, mmproj) as ls:
        want = {}
        for key, raw in (("one", one), ("two", two)):
            body = {"messages": chat_messages(data_url(raw)), "max_tokens": N_PREDICT, "temperature": 0}
            r = ls.post("/v1/chat/completions", body)
            want[key] = (r["choices"][0]["message"]["content"], r["usage"]["prompt_tokens"],
                         r["usage"]["completion_tokens"])
        # The other formats stb_image reads (llava: the one case that asks), the same picture in each.
        for fmt, raw in other_formats(one) if ctx.args.case == "llava" else []:
            body = {"messages": chat_messages(data_url(raw, f"image/{fmt.lower()}")), "max_tokens": N_PREDICT,
                    "temperature": 0}
            r = ls.post("/v1/chat/completions", body)
            want[fmt] = (r["choices"][0]["message"]["content"], r["usage"]["prompt_tokens"],
                         r["usage"]["completion_tokens"])
        # Text that reads like WasmEdge's image marker or inline tag stays text beside a real image,
        # as for llama-server.
        marked = {"messages": chat_messages(data_url(one), MARKUP), "max_tokens": N_PREDICT,
                  "temperature": 0}
        r = ls.post("/v1/chat/completions", marked)
        want["marker-text"] = (r["choices"][0]["message"]["content"], r["usage"]["prompt_tokens"],
                               r["usage"]["completion_tokens"])
        # A frequency penalty below zero over a window that holds the prompt favours the prompt's
        # text tokens, which llama-server counts (its media's positions left out).
        window = {"messages": chat_messages(data_url(one)), "max_tokens": N_PREDICT, "temperature": 0,
                  "frequency_penalty": -2.0, "repeat_last_n": 64}
        r = ls.post("/v1/chat/completions", window)
        want["window"] = (r["choices"][0]["message"]["content"], r["usage"]["prompt_tokens"],
                          r["usage"]["completion_tokens"])
        prompt = ls.post("/apply-template", {"messages": chat_messages(data_url(one))})["prompt"]
    check("<__media__>" in prompt, f"llama-server's rendered prompt has no media marker: {prompt!r}")
    native = mtmd_answer(ctx, model, mmproj, ctx.images["image.png"], prompt)
    check(native == want["one"][0], f"llama-mtmd-cli {native!r} != llama-server {want['one'][0]!r} (prompt {prompt!r})")
    check(want["one"][0] != want["two"][0], f"both images answer {want['one'][0]!r}: the image does not matter")
    with ctx.wasinn([(NAME, model, mmproj)]) as server:
        c = client(server)
        got = chat(c, chat_messages(data_url(one)))
        check(got == want["one"], f"wasinn {got} != llama-server {want['one']} (answer, prompt and completion tokens)")
        got_marked = chat(c, chat_messages(data_url(one), MARKUP))
        check(got_marked == want["marker-text"], f"text {MARKUP!r}: wasinn {got_marked} != llama-server "
              f"{want['marker-text']}")
        got_window = chat(c, chat_messages(data_url(one)), frequency_penalty=-2.0, extra_body={"repeat_last_n": 64})
        check(got_window == want["window"], f"a penalty window over the prompt: wasinn {got_window} != "
              f"llama-server {want['window']}")
        check(got_window[0] != want["one"][0], f"a penalty window over the prompt left the answer {got_window[0]!r}")
        got2 = chat(c, chat_messages(data_url(two)))
        check(got2 == want["two"], f"the second image: wasinn {got2} != llama-server {want['two']}")
        for fmt, raw in other_formats(one) if ctx.args.case == "llava" else []:
            got_fmt = chat(c, chat_messages(data_url(raw, f"image/{fmt.lower()}")))
            check(got_fmt == want[fmt], f"{fmt}: wasinn {got_fmt} != llama-server {want[fmt]}")
        pieces = [ch.choices[0].delta.content or "" for ch in c.chat.completions.create(
            model=NAME, messages=chat_messages(data_url(one)), max_tokens=N_PREDICT, temperature=0, stream=True)
            if ch.choices]
        check("".join(pieces) == want["one"][0], f"streamed {''.join(pieces)!r} != {want['one'][0]!r}")
        r = c.responses.create(model=NAME, max_output_tokens=N_PREDICT, temperature=0, input=[
            {"role": "user", "content": [{"type": "input_text", "text": TEXT},
                                         {"type": "input_image", "image_url": data_url(one)}]}])
        check(r.output_text == want["one"][0], f"Responses' input_image: {r.output_text!r} != {want['one'][0]!r}")
        check(r.usage.input_tokens == want["one"][1], f"Responses' input_tokens {r.usage.input_tokens}")
        messages_text = None
        try:
            import anthropic
            a = anthropic.Anthropic(base_url=server.url(""), api_key="unused", max_retries=0, timeout=120)
            m = a.messages.create(model=NAME, max_tokens=N_PREDICT, extra_body={"temperature": 0}, messages=[
                {"role": "user", "content": [
                    {"type": "text", "text": TEXT},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                 "data": base64.b64encode(one).decode()}}]}])
            messages_text = "".join(b.text for b in m.content if b.type == "text")
            check(messages_text == want["one"][0], f"Messages' image block: {messages_text!r} != {want['one'][0]!r}")
        except ImportError:
            log("PyPI's anthropic is not installed: the Messages shape is left out")
        # Counted as chat: the prompt tokens (the images' among them) as the usage said.
        text = urllib.request.urlopen(metrics_url(server), timeout=10).read().decode()
        prompt_total = sample(text, "wasinn_nn_prompt_tokens_total", graph=NAME)
        answers = 4 + (messages_text is not None)  # the first image's; the second's once; the formats' once each
        expected = want["one"][1] * (answers - 1) + sum(w[1] for k, w in want.items() if k != "one")
        check(prompt_total == expected, f"wasinn_nn_prompt_tokens_total {prompt_total} != {expected} (the usage's)")
        for route in ("/v1/chat/completions", "/v1/responses"):
            lines = wait_lines(server, rf"POST {route} 200 ")
            check(lines and not any("cut:" in line for line in lines), f"{route}'s access-log lines: {lines}")
    formats = ", ".join(k for k in want if k not in ("one", "two", "marker-text", "window"))
    log(f"{ctx.args.case}: {want['one'][0]!r} ({want['one'][1]} prompt tokens) = llama-server = llama-mtmd-cli; "
        f"a penalty window over the prompt: {want['window'][0]!r} = llama-server; "
        f"chat, stream, Responses{', Messages' if messages_text is not None else ''} alike; "
        f"as {formats or 'PNG only'} = llama-server")


def case_hub(ctx):
    """--openai hf://owner/repo:Q8_0 of a repository that also holds projectors: the one llama.cpp's
    -hf picks comes along (the model's folder, the nearest quantization: F16 over F32, not one in
    another folder), so an image is answered as with --mmproj (llama-server's answer); --no-mmproj
    leaves it out (the image is refused as for a model without one); --mmproj replaces it."""
    import shutil
    import tempfile
    sys.path.insert(0, os.path.join(HERE, "..", "pull"))
    from fake_hub import FakeHub, Repo
    model, mmproj = (ctx.fixture(p) for p in PAIRS["llava"])
    one = ctx.image("image.png")
    with open(model, "rb") as f:
        model_bytes = f.read()
    with open(mmproj, "rb") as f:
        proj_bytes = f.read()
    with MtmdServer(ctx.args.llama_server, model, mmproj) as ls:
        r = ls.post("/v1/chat/completions", {"messages": chat_messages(data_url(one)), "max_tokens": N_PREDICT,
                                             "temperature": 0})
        want = (r["choices"][0]["message"]["content"], r["usage"]["prompt_tokens"], r["usage"]["completion_tokens"])
    hub, tmp = FakeHub(), tempfile.mkdtemp(prefix="wasinn-vision-hub-")
    try:
        # Decoys that are no projector: a farther quantization, and one in another folder.
        hub.add(Repo("tester/vl-GGUF", {"vl-Q8_0.gguf": model_bytes, "mmproj-vl-F16.gguf": proj_bytes,
                                        "mmproj-vl-F32.gguf": b"not this one", "old/mmproj-vl-Q8_0.gguf": b"nor this"}))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING", "TRANSFORMERS_"))}
        env.update(HF_HOME=os.path.join(tmp, "hf"), HF_ENDPOINT=hub.url, HF_HUB_DISABLE_TELEMETRY="1")
        common = ["--env", f"NN_OPTIONS={NN_OPTIONS}"]
        if ctx.args.backend_dir:
            common += ["--backend-dir", ctx.args.backend_dir]
        ref = f"{NAME}=hf://tester/vl-GGUF:Q8_0"
        with Server([ctx.args.wasinn, "serve"], common + ["--openai"], ref, env=env, name="wasinn serve") as server:
            got = chat(client(server), chat_messages(data_url(one)))
            check(got == want, f"with the pulled projector: wasinn {got} != llama-server {want}")
            said = [line for line in server.err_lines if "multimodal projector" in line]
            check(said and "mmproj-vl-F16.gguf" in said[0], f"the pull did not say its projector: {said}")
        pulled = [e["path"] for e in hub.log if e["method"] == "GET" and "mmproj" in e["path"]]
        check(not any("F32" in p or "old/" in p for p in pulled), f"a decoy projector was fetched: {pulled}")
        with Server([ctx.args.wasinn, "serve"], common + ["--no-mmproj", "--openai"], ref, env=env,
                    name="wasinn serve") as server:
            bad_request(lambda: chat(client(server), chat_messages(data_url(one))), "projector")
        with Server([ctx.args.wasinn, "serve"], common + ["--mmproj", f"{NAME}={mmproj}", "--openai"], ref, env=env,
                    name="wasinn serve") as server:
            got = chat(client(server), chat_messages(data_url(one)))
            check(got == want, f"--mmproj over the pulled one: wasinn {got} != llama-server {want}")
    finally:
        hub.close()
        shutil.rmtree(tmp, ignore_errors=True)
    log(f"hub: hf://tester/vl-GGUF:Q8_0 came with mmproj-vl-F16.gguf (not the F32 or the other folder's) and "
        f"answered the image as llama-server ({want[0]!r}); --no-mmproj refused the image; --mmproj replaced it")


def case_page(ctx):
    """The chat page (GET /) in headless Chromium (tests/serve/openai_test.py's): a picture chosen
    in its file field goes with the message as an image_url data URL, and the answer shown is
    llama-server's to that request; with a Piper voice chosen (the piper backend built), Speak
    plays /v1/audio/speech's WAV of the answer, its length the route's own answer's."""
    import tempfile
    import wave
    from openai_test import headless_chromium
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait
    start_browser = headless_chromium()
    model, mmproj = (ctx.fixture(p) for p in PAIRS["llava"])
    one = ctx.image("image.png")
    with MtmdServer(ctx.args.llama_server, model, mmproj) as ls:
        r = ls.post("/v1/chat/completions", {"messages": chat_messages(data_url(one)), "max_tokens": N_PREDICT,
                                             "temperature": 0})
        want = r["choices"][0]["message"]["content"]
    backends = ctx.args.backend_dir or os.path.join(os.path.dirname(ctx.args.guests), "lib", "wasinn", "backends")
    voice = None
    if os.path.exists(os.path.join(backends, "libwasinn_backend_piper.so")):
        voice = os.path.join(tempfile.mkdtemp(prefix="wasinn-page-"), "tts.json")
        with open(voice, "w") as f:
            f.write('{"model": "%s"}\n' % ctx.fixture("piper/tiny.onnx"))
    models = [(NAME, model, mmproj)] + ([("tts", voice, None)] if voice else [])
    spoken = None
    with ctx.wasinn(models) as server:
        driver = start_browser()
        try:
            wait = WebDriverWait(driver, 60)
            driver.get(server.url("/"))
            wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#model option")) == len(models))
            Select(driver.find_element(By.ID, "model")).select_by_value(NAME)
            voices = [o.get_attribute("value") for o in driver.find_elements(By.CSS_SELECTOR, "#voice option")]
            check(voices == ["", "tts"] if voice else voices == [""], f"the page's voices: {voices}")
            if voice:
                Select(driver.find_element(By.ID, "voice")).select_by_value("tts")
            for field, value in (("temperature", "0"), ("max-tokens", str(N_PREDICT))):
                driver.find_element(By.ID, field).clear()
                driver.find_element(By.ID, field).send_keys(value)
            driver.find_element(By.ID, "image").send_keys(ctx.images["image.png"])
            driver.find_element(By.ID, "message").send_keys(TEXT)
            driver.find_element(By.ID, "send").click()
            wait.until(lambda d: d.find_element(By.ID, "status").text.startswith(("done", "failed")))
            shown = driver.execute_script(
                "const m = [...document.querySelectorAll('.msg.assistant')].pop(); return m.firstChild ? "
                "m.firstChild.textContent : '';")
            check(shown == want, f"the page shows {shown!r} for the picture, llama-server answers {want!r}")
            thumbs = driver.find_elements(By.CSS_SELECTOR, ".msg.user img.thumb")
            check(len(thumbs) == 1, f"the user's message shows {len(thumbs)} pictures, not 1")
            if voice:
                driver.find_element(By.CSS_SELECTOR, ".msg.assistant .speak").click()
                wait.until(lambda d: d.find_element(By.ID, "status").text in ("spoken",) or
                           d.find_element(By.ID, "status").text.startswith("cannot speak"))
                check(driver.find_element(By.ID, "status").text == "spoken",
                      f"Speak: {driver.find_element(By.ID, 'status').text!r}")
                wait.until(lambda d: d.execute_script(
                    "const a = document.querySelector('.msg.assistant audio'); return a && a.duration > 0;"))
                spoken = driver.execute_script("return document.querySelector('.msg.assistant audio').duration;")
            errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
            check(not errors, f"console errors: {errors}")
        finally:
            driver.quit()
        if voice:
            req = urllib.request.Request(server.url("/v1/audio/speech"), headers={"content-type": "application/json"},
                                         data=json.dumps({"model": "tts", "input": want,
                                                          "response_format": "wav"}).encode())
            with urllib.request.urlopen(req, timeout=120) as resp, wave.open(resp) as w:
                seconds = w.getnframes() / w.getframerate()
            check(abs(spoken - seconds) < 0.05, f"the page played {spoken:.3f} s, the route's WAV is {seconds:.3f} s")
    log(f"page: the picture went with the message and the page showed llama-server's answer {want!r}; "
        + (f"Speak played {spoken:.2f} s, the route's WAV's length" if voice else "no piper backend: Speak not tried"))


def bad_request(fn, *needles, code=None):
    """FN raises the client's BadRequestError whose message holds each of NEEDLES (and CODE)."""
    import openai
    try:
        fn()
    except openai.BadRequestError as e:
        body = e.body if isinstance(e.body, dict) else {}
        message = str(body.get("message", e))
        for n in needles:
            check(n in message, f"the 400 does not say {n!r}: {message}")
        if code:
            check(body.get("code") == code, f"the 400's code is {body.get('code')!r}, not {code!r}: {message}")
        return message
    raise Failure(f"no 400 for {needles}")


def case_errors(ctx):
    model, mmproj = (ctx.fixture(p) for p in PAIRS["llava"])
    one = ctx.image("image.png")
    # At start: a usage error (2) before anything loads.
    for extra, says in (([f"{NAME}=/nonexistent/mmproj.gguf"], "no such file"),
                        ([f"{NAME}={model}"], "not a multimodal projector"),
                        ([f"other={mmproj}"], "no --openai model is named 'other'")):
        argv = [ctx.args.wasinn, "serve", "--addr", "127.0.0.1:0", "--mmproj", *extra, "--openai", f"{NAME}={model}"]
        p = subprocess.run(argv, capture_output=True, timeout=60)
        err = p.stderr.decode(errors="replace")
        check(p.returncode == 2 and says in err, f"{argv}: exit {p.returncode}, not 2 saying {says!r}: {err}")
    p = subprocess.run([ctx.args.wasinn, "serve", "--addr", "127.0.0.1:0", "--mmproj", mmproj, "app.wasm"],
                       capture_output=True, timeout=60)
    check(p.returncode == 2 and "--openai" in p.stderr.decode(), f"--mmproj without --openai: {p.stderr.decode()}")
    limit = 3 * len(one)  # three images fit, four do not
    with ctx.wasinn([(NAME, model, mmproj), ("text", model, None)], extra=["--env", f"MAX_IMAGE_BYTES={limit}"]) as server:
        c = client(server)
        good = chat(c, chat_messages(data_url(one)))

        def still_answers():
            check(chat(c, chat_messages(data_url(one))) == good, "the server answers otherwise after the error")

        cases = [
            ("a truncated PNG", lambda: chat(c, chat_messages(data_url(one[: len(one) // 2]))),
             ("not an image",), "invalid_image"),
            ("bytes that are no image", lambda: chat(c, chat_messages(data_url(ctx.image("not-an-image.png")))),
             ("not an image",), "invalid_image"),
            ("a PNG of 12000x12000 pixels declared", lambda: chat(c, chat_messages(data_url(ctx.image("huge.png")))),
             ("12000x12000 pixels", "8192x8192"), "image_too_large"),
            ("a PNG of 100000x100000 pixels declared", lambda: chat(c, chat_messages(data_url(png_declaring(100000)))),
             ("100000x100000 pixels", "8192x8192"), "image_too_large"),
            ("a WebP", lambda: chat(c, chat_messages(data_url(b"RIFF\x24\0\0\0WEBPVP8 " + bytes(24), "image/webp"))),
             ("WebP", "PNG, JPEG, GIF or BMP"), "invalid_image_format"),
            ("a remote URL", lambda: chat(c, chat_messages("https://example.com/cat.png")),
             ("remote image URLs are off", "data:image/png;base64"), "invalid_image_url"),
            ("a data URL that is not base64", lambda: chat(c, chat_messages("data:image/png;base64,@@@@")),
             ("not base64",), "invalid_image_url"),
            ("images over MAX_IMAGE_BYTES", lambda: chat(c, [{"role": "user", "content": [
                {"type": "text", "text": TEXT}] + [{"type": "image_url", "image_url": {"url": data_url(one)}}] * 4}]),
             (f"limit of {limit} bytes", "MAX_IMAGE_BYTES"), "image_too_large"),
            ("an input_audio part that is no audio", lambda: chat(c, [{"role": "user", "content": [
                {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}]}]),
             ("input_audio.data is no audio file",), "invalid_audio"),
            ("a model without projector", lambda: c.chat.completions.create(
                model="text", messages=chat_messages(data_url(one)), max_tokens=4),
             ("has no projector (mmproj)", "--mmproj"), "model_without_projector"),
            ("Responses' remote input_image", lambda: c.responses.create(model=NAME, input=[
                {"role": "user", "content": [{"type": "input_image", "image_url": "http://example.com/a.png"}]}]),
             ("remote image URLs are off",), None),
        ]
        for what, fn, needles, code in cases:
            message = bad_request(fn, *needles, code=code)
            log(f"{what}: 400 {message}")
            still_answers()
        # A text chat whose text holds an inline tag is text, on a model without projector too.
        r = c.chat.completions.create(model="text", messages=[{"role": "user", "content": MARKUP}], max_tokens=4)
        check(r.choices[0].message.content is not None, "a text chat with markup got no answer")
        try:
            import anthropic
            a = anthropic.Anthropic(base_url=server.url(""), api_key="unused", max_retries=0, timeout=120)
            try:
                a.messages.create(model=NAME, max_tokens=4, messages=[{"role": "user", "content": [
                    {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}]}])
                raise Failure("no 400 for a Messages image by URL")
            except anthropic.BadRequestError as e:
                check("remote image URLs are off" in str(e), f"Messages' URL image: {e}")
                log(f"Messages' image by URL: 400 {e}")
            still_answers()
        except ImportError:
            log("PyPI's anthropic is not installed: the Messages shape is left out")
        check(server.proc.poll() is None, "the server exited")


class ImageHost:
    """A Python http.server on 127.0.0.1 in a thread: /image.png (the fixture), /slow.png (its headers,
    then nothing for SLOW seconds), /silent.png (nothing at all for SLOW seconds), /big.png (BIG
    bytes), /missing.png (404), /page.html (HTML, 200), /moved.png (302 to /image.png); each GET's
    path and headers are kept in `seen`."""

    SLOW = 30

    def __init__(self, png, big):
        import http.server
        import threading
        host = self
        self.seen = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                host.seen.append((self.path, dict(self.headers)))
                if self.path == "/image.png":
                    self.answer(200, "image/png", png)
                elif self.path == "/big.png":
                    self.answer(200, "image/png", big)
                elif self.path == "/page.html":
                    self.answer(200, "text/html", b"<html><body>no image here</body></html>")
                elif self.path == "/moved.png":
                    self.send_response(302)
                    self.send_header("location", "/image.png")
                    self.send_header("content-length", "0")
                    self.end_headers()
                elif self.path == "/silent.png":  # no status line at all
                    host.stop.wait(ImageHost.SLOW)
                elif self.path == "/slow.png":
                    self.send_response(200)
                    self.send_header("content-type", "image/png")
                    self.send_header("content-length", str(len(png)))
                    self.end_headers()
                    self.wfile.write(png[:8])
                    self.wfile.flush()
                    host.stop.wait(ImageHost.SLOW)
                else:
                    self.answer(404, "text/plain", b"not found")

            def answer(self, status, ctype, body):
                self.send_response(status)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.stop = threading.Event()
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path):
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def close(self):
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


def case_remote(ctx):
    """--image-urls: an http image URL answers as llama-server does for the same image as a data URL;
    each failure a 400 that says what; off, refused; the flag's usage errors."""
    import time
    model, mmproj = (ctx.fixture(p) for p in PAIRS["llava"])
    one = ctx.image("image.png")
    limit = 4 * len(one)  # image.png fits; big.png (limit + 1 bytes) does not
    # At start: a usage error (2) for a bad MAX or TIMEOUT, or without --openai.
    for value, says in (("10XB", "unknown unit 'XB'"), ("0", "from 1 byte to 1GiB"), ("2GiB", "from 1 byte to 1GiB"),
                        ("1MiB,soon", "TIMEOUT"), ("1MiB,0s", "from 1ms to 10m")):
        argv = [ctx.args.wasinn, "serve", "--addr", "127.0.0.1:0", "--image-urls", value, "--openai", f"{NAME}={model}"]
        p = subprocess.run(argv, capture_output=True, timeout=60)
        err = p.stderr.decode(errors="replace")
        check(p.returncode == 2 and says in err and "--image-urls 10MiB" in err,
              f"{argv}: exit {p.returncode}, not 2 saying {says!r} and an example: {err}")
    p = subprocess.run([ctx.args.wasinn, "serve", "--addr", "127.0.0.1:0", "--image-urls", "1MiB", "app.wasm"],
                       capture_output=True, timeout=60)
    check(p.returncode == 2 and "--openai" in p.stderr.decode(), f"--image-urls without --openai: {p.stderr.decode()}")
    with MtmdServer(ctx.args.llama_server, model, mmproj) as ls:
        r = ls.post("/v1/chat/completions", {"messages": chat_messages(data_url(one)), "max_tokens": N_PREDICT,
                                             "temperature": 0})
        want = (r["choices"][0]["message"]["content"], r["usage"]["prompt_tokens"], r["usage"]["completion_tokens"])
    host = ImageHost(one, bytes(limit + 1))
    try:
        total = 2 * len(one) + 16  # MAX_IMAGE_BYTES: two fetched images fit, three do not
        with ctx.wasinn([(NAME, model, mmproj)],
                        extra=["--image-urls", f"{limit},2s", "--env", f"MAX_IMAGE_BYTES={total}"]) as server:
            c = client(server)
            got = chat(c, chat_messages(host.url("/image.png")))
            check(got == want, f"wasinn by URL {got} != llama-server by data URL {want}")
            path, headers = host.seen[-1]
            check(path == "/image.png" and not any(k.lower() in ("authorization", "cookie") for k in headers),
                  f"the GET: {path} {headers}")
            r = c.responses.create(model=NAME, max_output_tokens=N_PREDICT, temperature=0, input=[
                {"role": "user", "content": [{"type": "input_text", "text": TEXT},
                                             {"type": "input_image", "image_url": host.url("/image.png")}]}])
            check(r.output_text == want[0], f"Responses' input_image by URL: {r.output_text!r} != {want[0]!r}")
            try:
                import anthropic
                a = anthropic.Anthropic(base_url=server.url(""), api_key="unused", max_retries=0, timeout=120)
                m = a.messages.create(model=NAME, max_tokens=N_PREDICT, extra_body={"temperature": 0}, messages=[
                    {"role": "user", "content": [
                        {"type": "text", "text": TEXT},
                        {"type": "image", "source": {"type": "url", "url": host.url("/image.png")}}]}])
                text = "".join(b.text for b in m.content if b.type == "text")
                check(text == want[0], f"Messages' image by URL: {text!r} != {want[0]!r}")
            except ImportError:
                log("PyPI's anthropic is not installed: the Messages shape is left out")

            def still_answers():
                check(chat(c, chat_messages(host.url("/image.png"))) == want, "the server answers otherwise after")

            started = time.monotonic()
            cases = [
                ("a slow server", "/slow.png", ("2000 ms", "--image-urls"), "invalid_image_url"),
                ("a silent server", "/silent.png", ("2000 ms", "no answer came in time"), "invalid_image_url"),
                ("a body over MAX", "/big.png", (f"limit of {limit} bytes", "--image-urls"), "image_too_large"),
                ("a 404", "/missing.png", ("HTTP 404",), "invalid_image_url"),
                ("a redirect", "/moved.png", ("HTTP 302", "redirects are not followed"), "invalid_image_url"),
                ("bytes that are no image", "/page.html", ("not an image",), "invalid_image"),
            ]
            for what, path, needles, code in cases:
                started = time.monotonic()
                # A failed fetch names its URL; a fetched non-image is refused as a data URL's bytes are.
                named = (path,) if code != "invalid_image" else ()
                message = bad_request(lambda: chat(c, chat_messages(host.url(path))), *named, *needles, code=code)
                took = time.monotonic() - started
                log(f"{what}: 400 in {took:.1f}s: {message}")
                stalled = "slow" in what or "silent" in what
                check(not stalled or took < ImageHost.SLOW / 2, f"{what} held the request {took:.1f}s")
                still_answers()
            # Nothing listens there: the connection's refusal says so.
            dead = host.url("/image.png").replace(f":{host.server.server_address[1]}", ":9")
            message = bad_request(lambda: chat(c, chat_messages(dead)), "the download failed", code="invalid_image_url")
            log(f"a refused connection: 400 {message}")
            # https:// to a server that speaks plain HTTP: the TLS handshake fails, and the 400 says so.
            tls = host.url("/image.png").replace("http://", "https://")
            message = bad_request(lambda: chat(c, chat_messages(tls)), "the download failed", code="invalid_image_url")
            log(f"https to a plain HTTP server: 400 {message}")
            still_answers()
            # Credentials in the URL are refused, never sent.
            creds = host.url("/image.png").replace("http://", "http://user:secret@")
            bad_request(lambda: chat(c, chat_messages(creds)), "credentials", code="invalid_image_url")
            # Fetched images count against MAX_IMAGE_BYTES as data URLs do: two fit, three do not.
            def images(n):
                return [{"role": "user", "content": [{"type": "text", "text": TEXT}] + [
                    {"type": "image_url", "image_url": {"url": host.url("/image.png")}}] * n}]
            got = chat(c, images(2))
            check(got[1] > want[1], f"two images: prompt tokens {got[1]} not above one's {want[1]}")
            message = bad_request(lambda: chat(c, images(3)), f"limit of {total} bytes", "MAX_IMAGE_BYTES",
                                  code="image_too_large")
            log(f"three fetched images over MAX_IMAGE_BYTES: 400 {message}")
            still_answers()
            check(server.proc.poll() is None, "the server exited")
        # Off by default: refused, and nothing fetched.
        fetched = len(host.seen)
        with ctx.wasinn([(NAME, model, mmproj)]) as server:
            c = client(server)
            bad_request(lambda: chat(c, chat_messages(host.url("/image.png"))), "remote image URLs are off",
                        "--image-urls", code="invalid_image_url")
            check(len(host.seen) == fetched, "the server fetched a URL with --image-urls off")
    finally:
        host.close()
    log(f"remote: {want[0]!r} by URL = llama-server by data URL; slow, too large, 404, 302, HTML, refused "
        "connection and credentials each a 400; off: refused")


CASES = {"llava": case_fixture, "qwen2vl": case_fixture, "gemma3": case_fixture, "errors": case_errors,
         "hub": case_hub, "page": case_page, "remote": case_remote}


def main():
    return case_main(__doc__, CASES, Ctx, required=("--llama-server", "--mtmd-cli", "--ggml-cpu"),
                     optional=("--backend-dir",))


if __name__ == "__main__":
    sys.exit(main())
