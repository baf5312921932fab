// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// http_openai's chat page (GET /): a person picks a model, types, and sees the answer stream in
// from /v1/chat/completions; stop button, system prompt, temperature; a picture attached to a
// message (an image_url data URL, for a model served with its projector); an answer spoken by a
// voice (/v1/audio/voices' models) through /v1/audio/speech. Everything is in the
// component (no CDN, no other request but the API's), so it works where the server is offline.
// Behind --api-key, its API calls carry the key typed into its key field; the page itself loads
// without one where the server makes / public (wasinn serve --openai, --public-path /).
#include <cstring>

#include "http_openai.h"

namespace openai {
namespace {

const char kPage[] = R"PAGE(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>wasinn chat</title>
<style>
  body { font: 15px/1.45 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d2230; }
  header { background: #1d2230; color: #fff; padding: 10px 16px; display: flex; gap: 14px; align-items: center;
           flex-wrap: wrap; }
  header h1 { font-size: 17px; margin: 0 8px 0 0; }
  header label { font-size: 13px; display: flex; gap: 6px; align-items: center; }
  header input, header select { font: inherit; padding: 2px 4px; }
  #temperature, #max-tokens { width: 64px; }
  main { max-width: 860px; margin: 0 auto; padding: 12px 16px 120px; }
  #system { width: 100%; box-sizing: border-box; font: inherit; padding: 6px; min-height: 38px; }
  .msg { white-space: pre-wrap; padding: 9px 12px; border-radius: 8px; margin: 10px 0; }
  .user { background: #dbe7ff; margin-left: 18%; }
  .assistant { background: #fff; margin-right: 18%; border: 1px solid #dde; }
  .error { background: #ffe0e0; }
  footer { position: fixed; bottom: 0; left: 0; right: 0; background: #fff; border-top: 1px solid #ccd;
           padding: 10px 16px; }
  footer form { max-width: 860px; margin: 0 auto; display: flex; gap: 8px; }
  #message { flex: 1; font: inherit; padding: 8px; }
  button { font: inherit; padding: 6px 14px; }
  #status { font-size: 12px; color: #667; max-width: 860px; margin: 4px auto 0; }
  .thumb { display: block; max-width: 240px; max-height: 180px; margin-top: 6px; border-radius: 4px; }
  #image { max-width: 190px; font-size: 12px; align-self: center; }
  .speak { font-size: 12px; padding: 2px 8px; margin-top: 6px; display: block; }
</style>
</head>
<body>
<header>
  <h1>wasinn chat</h1>
  <label>model <select id="model"></select></label>
  <label>temperature <input id="temperature" type="number" min="0" max="2" step="0.1" value="0.7"></label>
  <label>max tokens <input id="max-tokens" type="number" min="1" step="1" value="256"></label>
  <label>API key <input id="api-key" type="password" placeholder="if the server needs one"></label>
  <label>voice <select id="voice"><option value="">(none)</option></select></label>
</header>
<main>
  <textarea id="system" placeholder="System prompt (optional)"></textarea>
  <div id="log"></div>
</main>
<footer>
  <form id="form">
    <input id="message" placeholder="Type a message" autocomplete="off">
    <input id="image" type="file" accept="image/png,image/jpeg,image/gif,image/bmp"
           title="a picture (PNG, JPEG, GIF, BMP) for the next message, for a model served with its projector">
    <button id="send" type="submit">Send</button>
    <button id="stop" type="button" disabled>Stop</button>
  </form>
  <div id="status">loading models...</div>
</footer>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
const history = [];
let running = null;

function headers() {
  const h = { "content-type": "application/json" };
  const key = $("api-key").value.trim();
  if (key) h["authorization"] = "Bearer " + key;
  return h;
}

function say(role, text, image) {
  const div = document.createElement("div");
  div.className = "msg " + role;
  div.textContent = text;
  if (image) {
    const img = document.createElement("img");
    img.className = "thumb";
    img.src = image;
    div.appendChild(img);
  }
  $("log").appendChild(div);
  div.scrollIntoView({ block: "end" });
  return div;
}

// The picture chosen for the message, as a data URL (what image_url takes).
function readImage(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

// The answer in `div` spoken by the chosen voice (/v1/audio/speech, WAV), played under it.
async function speak(div, text, button) {
  button.disabled = true;
  $("status").textContent = "speaking...";
  try {
    const r = await fetch("/v1/audio/speech", {
      method: "POST", headers: headers(),
      body: JSON.stringify({ model: $("voice").value, input: text, response_format: "wav" }),
    });
    if (!r.ok) {
      const body = await r.json().catch(() => ({}));
      throw new Error(keyProblem(r) || (body.error ? body.error.message : r.status + " " + r.statusText));
    }
    let audio = div.querySelector("audio");
    if (!audio) {
      audio = document.createElement("audio");
      audio.controls = true;
      div.appendChild(audio);
    }
    audio.src = URL.createObjectURL(await r.blob());
    await audio.play().catch(() => {});  // a browser may want a gesture first: the controls stay
    $("status").textContent = "spoken";
  } catch (e) {
    $("status").textContent = "cannot speak: " + e.message;
  }
  button.disabled = false;
}

// The server's 401 (wasinn serve --api-key): what the person should do about it.
function keyProblem(r) {
  if (r.status !== 401) return "";
  return $("api-key").value.trim() ? "the server refused this API key: check the key field"
                                   : "this server needs an API key: type it in the API key field";
}

async function loadModels() {
  try {
    const r = await fetch("/v1/models", { headers: headers() });
    const body = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(keyProblem(r) || (body.error ? body.error.message : r.status + " " + r.statusText));
    $("model").replaceChildren(...body.data.map((m) => new Option(m.id, m.id)));
    // The voices: the models /v1/audio/voices names (Piper's), none when it answers nothing.
    const v = await fetch("/v1/audio/voices", { headers: headers() }).then((x) => x.json()).catch(() => ({}));
    $("voice").replaceChildren(new Option("(none)", ""), ...(v.data || []).map((m) => new Option(m.model, m.model)));
    $("status").textContent = body.data.length + " model(s)";
  } catch (e) {
    $("model").replaceChildren();
    $("status").textContent = "cannot list the models: " + e.message;
    if (e.message.includes("API key")) $("api-key").focus();
  }
}

async function send(text) {
  running = new AbortController();  // from here: a second Send waits for this one
  const messages = [];
  const system = $("system").value.trim();
  if (system) messages.push({ role: "system", content: system });
  const file = $("image").files[0];
  let image = "";
  try {
    image = file ? await readImage(file) : "";
  } catch (e) {
    $("status").textContent = "cannot read " + file.name + ": " + e.message;
    running = null;
    return;
  }
  $("image").value = "";
  history.push({ role: "user", content: image ? [{ type: "text", text: text },
                                                 { type: "image_url", image_url: { url: image } }] : text });
  say("user", text, image);
  const out = say("assistant", "");
  $("send").disabled = true;
  $("stop").disabled = false;
  $("status").textContent = "answering...";
  let answer = "", finish = "";
  try {
    const r = await fetch("/v1/chat/completions", {
      method: "POST", headers: headers(), signal: running.signal,
      body: JSON.stringify({ model: $("model").value, messages: messages.concat(history), stream: true,
                             temperature: Number($("temperature").value),
                             max_tokens: Number($("max-tokens").value) }),
    });
    if (!r.ok) {
      const body = await r.json().catch(() => ({}));
      throw new Error(keyProblem(r) || (body.error ? body.error.message : r.status + " " + r.statusText));
    }
    const reader = r.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!event.startsWith("data: ") || event === "data: [DONE]") continue;
        const chunk = JSON.parse(event.slice(6));
        if (chunk.error) throw new Error(chunk.error.message);
        for (const c of chunk.choices || []) {
          if (c.delta && c.delta.content) out.textContent = answer += c.delta.content;
          if (c.finish_reason) finish = c.finish_reason;
        }
      }
    }
    $("status").textContent = "done (" + (finish || "stop") + ")";
    if ($("voice").value && answer) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "speak";
      button.textContent = "Speak";
      button.addEventListener("click", () => speak(out, answer, button));
      out.appendChild(button);
    }
  } catch (e) {
    if (e.name === "AbortError") {
      $("status").textContent = "stopped";
    } else {
      out.classList.add("error");
      out.textContent = answer + (answer ? "\n" : "") + e.message;
      $("status").textContent = "failed";
    }
  }
  history.push({ role: "assistant", content: answer });
  running = null;
  $("send").disabled = false;
  $("stop").disabled = true;
}

$("form").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("message").value.trim();
  if (!text || running) return;
  $("message").value = "";
  send(text);
});
$("stop").addEventListener("click", () => running && running.abort());
$("api-key").addEventListener("change", loadModels);

loadModels();
</script>
</body>
</html>
)PAGE";

}  // namespace

void chat_page(wh_response_outparam out) { hg_respond(out, 200, "text/html; charset=utf-8", kPage, sizeof kPage - 1); }

}  // namespace openai
