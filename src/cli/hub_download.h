// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Models from the Hugging Face Hub (or a mirror) into the Hub's own cache, as huggingface_hub
// lays it out, so that what huggingface_hub, transformers or llama.cpp fetched is reused and
// what wasinn fetched is theirs too:
//
//   CACHE/models--OWNER--NAME/blobs/ETAG                  a file's bytes (ETAG: an LFS file's sha256)
//   CACHE/models--OWNER--NAME/snapshots/COMMIT/PATH       a relative symlink to ../../blobs/ETAG
//   CACHE/models--OWNER--NAME/refs/REVISION               the commit REVISION named, as text
//
// A file is resolved as huggingface_hub does: HEAD ENDPOINT/OWNER/NAME/resolve/REVISION/PATH
// (X-Repo-Commit, X-Linked-Etag or ETag, X-Linked-Size or Content-Length; a redirect to another
// host, a CDN, is where the bytes come from, without the token), then a GET into
// blobs/ETAG.incomplete, continued with a Range request when one is there, checked against the
// ETag's sha256 (an LFS file), renamed to blobs/ETAG when whole. One download of a blob at a time,
// under huggingface_hub's own lock file (CACHE/.locks/models--OWNER--NAME/ETAG.lock, flock).
// Plain URLs go to DOWNLOADS/HOST/HASH/NAME instead (hub_download.cpp says how).
//
// pull() is the one entry point: `wasinn pull` calls it, and so can anything else that takes a
// Hub reference (a preload's hf://...).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/hub_http.h"
#include "core/error.h"

namespace wasinn_cli::hub {

// What a reference names.
//   owner/repo[@REV][:TAG]        a repository: its model, chosen as hub_select.h says
//   owner/repo[@REV]/PATH         one file (a split GGUF part: all its parts)
//   hf://...                      the same
//   https://HUB/owner/repo/resolve/REV/PATH (or /blob/): that file (HUB: the endpoint's host,
//                                 huggingface.co or hf.co)
//   http(s)://...                 any other URL: one file
struct HubRef {
  enum class Kind { repo, file, url };
  Kind kind = Kind::repo;
  std::string repo;      // "owner/name"
  std::string path;      // Kind::file
  std::string tag;       // Kind::repo: a quantization (Q4_K_M) or an ONNX variant (quantized)
  std::string revision;  // from @REV or a URL; empty: PullOptions::revision
  std::string url;       // Kind::url
  std::string text;      // as given
};

// An error (invalid_argument) says what forms a reference takes. `endpoint`: whose URLs are Hub
// files (besides huggingface.co and hf.co).
wasinn::Result<HubRef> parse_ref(std::string_view text, const std::string& endpoint);

// What a pull reports as it goes, for a progress display.
struct PullProgress {
  enum class Event { start, bytes, done, cached, notice };
  Event event = Event::start;
  std::string name;    // "owner/repo/PATH", or a URL's file name; notice: the message
  std::string source;  // the URL the bytes come from
  uint64_t bytes = 0;  // the file's bytes there so far (resumed ones included)
  uint64_t total = 0;  // 0: not known
  uint64_t resumed_from = 0;
};

struct PullOptions {
  std::string endpoint = "https://huggingface.co";  // no trailing '/'
  std::filesystem::path cache_dir;                  // the Hub cache (.../huggingface/hub)
  std::filesystem::path download_dir;               // plain URLs' files
  std::string revision = "main";
  std::string token;     // Authorization: Bearer TOKEN to the Hub (never to a CDN or a plain URL)
  bool offline = false;  // only what the cache holds
  HttpSettings http;
  std::function<void(const PullProgress&)> progress;  // may be empty; called on the pulling thread
};

// The defaults as huggingface_hub reads its environment: HF_ENDPOINT; HF_HUB_CACHE, else
// HUGGINGFACE_HUB_CACHE, else HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
// ~/.cache/huggingface/hub; HF_TOKEN, else HUGGING_FACE_HUB_TOKEN, else the file HF_TOKEN_PATH
// (default HF_HOME/token, where `hf auth login` writes it); HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE)
// 1/ON/YES/TRUE. Plain URLs: $XDG_CACHE_HOME/wasinn/downloads, else ~/.cache/wasinn/downloads.
PullOptions options_from_environment();

// The local paths of the model files `ref` names (a split GGUF: each part; ONNX: the .onnx, its
// data and JSONs beside it), fetching what the cache lacks. Errors: invalid_argument (a bad
// reference or option), not_found (no such repository, revision or file; or, offline, not in the
// cache), security (401/403: gated or private, HF_TOKEN), timeout (the server unreachable, or a
// download cut: the same pull again resumes it), runtime_error (anything else: a corrupt
// download, a full disk, an answer that is not the Hub's). Each message is one line for a user.
// With `projector`, a GGUF repository's multimodal projector (hub_select.h's best_projector) is
// pulled too and its path set there ("" when the repository has none, or `ref` names a file).
wasinn::Result<std::vector<std::filesystem::path>> pull(const HubRef& ref, const PullOptions& o,
                                                        std::filesystem::path* projector = nullptr);

}  // namespace wasinn_cli::hub
