// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/hub_download.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/private_cache_dir.h"
#include "cli/hub_fetch.h"
#include "cli/hub_select.h"
#include "wasinn/version.h"

namespace wasinn_cli::hub {

namespace fs = std::filesystem;
using wasinn::Errc;
using wasinn::Error;
using wasinn::make_error;
using wasinn::Result;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

Headers hub_headers(const PullOptions& o) {
  Headers h;
  if (!o.token.empty()) h.push_back("Authorization: Bearer " + o.token);
  return h;
}

bool hub_host(const PullOptions& o, const std::string& from, const std::string& to) {
  return same_origin(from, to) || same_origin(o.endpoint, to) || same_origin("https://huggingface.co", to) ||
         same_origin("https://hf.co", to);
}

// The Hub's error answer as a user's message: what is missing, or what to do.
Error status_error(const PullOptions& o, const HttpResponse& r, const std::string& repo, const std::string& path,
                   const std::string& revision) {
  const std::string code = r.header("x-error-code");
  std::string detail = r.header("x-error-message");
  if (detail.empty() && !r.body.empty()) {
    const auto j = nlohmann::json::parse(r.body, nullptr, false);
    if (j.is_object() && j.contains("error") && j["error"].is_string()) detail = j["error"].get<std::string>();
  }
  const std::string said = detail.empty() ? "" : fmt::format(" (\"{}\")", detail);
  const std::string what = path.empty() ? repo : repo + "/" + path;
  if (r.status == 401 || r.status == 403) {
    const std::string fix =
        o.token.empty() ? "set HF_TOKEN to a token of an account that may read it (huggingface.co/settings/tokens)"
                        : "the token in HF_TOKEN was refused for it: check that its account may read it";
    if (code == "GatedRepo") {
      return make_error(Errc::security,
                        fmt::format("{} is gated: accept its conditions on its page on the Hub, then {}", repo,
                                    o.token.empty() ? fix : "check HF_TOKEN's token and account"));
    }
    return make_error(Errc::security, fmt::format("{}: {} answered {}{}: the repository is private or gated, or "
                                                  "does not exist; {}",
                                                  what, o.endpoint, r.status, said, fix));
  }
  if (r.status == 404) {
    if (code == "RepoNotFound")
      return make_error(Errc::not_found, fmt::format("no repository {} on {}", repo, o.endpoint));
    if (code == "RevisionNotFound")
      return make_error(Errc::not_found, fmt::format("{} has no revision {}", repo, revision));
    if (!path.empty())
      return make_error(Errc::not_found, fmt::format("{} has no file {} at revision {}", repo, path, revision));
    return make_error(Errc::not_found,
                      fmt::format("{} (revision {}) was not found on {}{}", repo, revision, o.endpoint, said));
  }
  const Errc errc = r.status >= 500 ? Errc::timeout : Errc::runtime_error;
  return make_error(errc, fmt::format("{}: {} answered {}{}", what, r.url, r.status, said));
}

Error unreachable(const PullOptions& o, const HttpResponse& r) {
  return make_error(Errc::timeout, fmt::format("cannot reach {}: {}", o.endpoint, r.transport));
}

fs::path repo_dir(const PullOptions& o, const std::string& repo) {
  std::string folder = "models--" + repo;
  folder.replace(folder.find('/'), 1, "--");
  return o.cache_dir / folder;
}

void tag_cache_dir(const fs::path& cache) {
  const fs::path tag = cache / "CACHEDIR.TAG";
  std::error_code ec;
  if (fs::exists(tag, ec)) return;
  std::ofstream(tag) << "Signature: 8a477f597d28d172789f06886806bc55\n"
                        "# This file is a cache directory tag created by wasinn (the Hugging Face Hub's cache).\n"
                        "# For information about cache directory tags, see:\n"
                        "#\thttps://bford.info/cachedir/\n";
}

struct Listing {
  std::vector<std::string> files;
  std::string commit;  // a cached snapshot's
  bool cached = false;
};

// The Link header's rel="next" URL: the tree API's next page.
std::string next_link(const std::string& link) {
  for (size_t at = 0; at < link.size();) {
    const size_t open = link.find('<', at);
    const size_t close = link.find('>', open);
    if (open == std::string::npos || close == std::string::npos) break;
    const size_t end = std::min(link.find(',', close), link.size());
    if (link.substr(close, end - close).find("rel=\"next\"") != std::string::npos) {
      return link.substr(open + 1, close - open - 1);
    }
    at = end + 1;
  }
  return "";
}

Result<Listing> list_online(const PullOptions& o, const std::string& repo, const std::string& revision) {
  Listing l;
  std::string url =
      fmt::format("{}/api/models/{}/tree/{}?recursive=true", o.endpoint, repo, url_escape(revision, false));
  Headers h = hub_headers(o);
  h.push_back("Accept: application/json");
  for (int page = 0; page < 10000 && !url.empty(); ++page) {
    const HttpResponse r = http_get_text(url, h, o.http, 64 << 20);
    if (!r.transport.empty()) return unreachable(o, r);
    if (r.status != 200) return status_error(o, r, repo, "", revision);
    const auto j = nlohmann::json::parse(r.body, nullptr, false);
    if (!j.is_array()) {
      return make_error(
          Errc::runtime_error,
          fmt::format("{} answered with no file list: is {} a Hugging Face Hub (HF_ENDPOINT, --endpoint)?", r.url,
                      o.endpoint));
    }
    for (const auto& e : j) {
      if (e.is_object() && e.value("type", "") == "file" && e.contains("path") && e["path"].is_string() &&
          safe_path(e["path"].get<std::string>()))
        l.files.push_back(e["path"].get<std::string>());
    }
    url = next_link(r.header("link"));
  }
  return l;
}

std::string cached_commit(const fs::path& dir, const std::string& revision) {
  return is_commit(revision) ? revision : read_text(dir / "refs" / revision);
}

Result<Listing> list_cached(const PullOptions& o, const std::string& repo, const std::string& revision) {
  const fs::path dir = repo_dir(o, repo);
  Listing l;
  l.cached = true;
  l.commit = cached_commit(dir, revision);
  const fs::path snapshot = dir / "snapshots" / l.commit;
  std::error_code ec;
  if (!is_commit(l.commit) || !fs::is_directory(snapshot, ec)) {
    return make_error(Errc::not_found,
                      fmt::format("{} (revision {}) is not in the cache {}", repo, revision, o.cache_dir.string()));
  }
  for (fs::recursive_directory_iterator it(snapshot, ec), end; !ec && it != end; it.increment(ec)) {
    if (fs::is_regular_file(it->path(), ec))
      l.files.push_back(it->path().lexically_relative(snapshot).generic_string());
  }
  std::sort(l.files.begin(), l.files.end());
  return l;
}

struct FileMeta {
  std::string commit, etag, url;
  uint64_t size = 0;
  bool size_known = false;
  bool off_hub = false;  // the bytes come from another host (a CDN): no token to it
};

uint64_t parse_size(const std::string& text, bool& ok) {
  ok = !text.empty() && text.size() < 20 &&
       std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  return ok ? std::stoull(text) : 0;
}

// HEAD .../resolve/REVISION/PATH, as huggingface_hub's get_hf_file_metadata.
Result<FileMeta> resolve(const PullOptions& o, const std::string& repo, const std::string& path,
                         const std::string& revision) {
  std::string url =
      fmt::format("{}/{}/resolve/{}/{}", o.endpoint, repo, url_escape(revision, false), url_escape(path, true));
  Headers h = hub_headers(o);
  h.push_back("Accept-Encoding: identity");
  HttpResponse r;
  for (int hop = 0;; ++hop) {
    r = http_head(url, h, o.http);
    if (!r.transport.empty()) return unreachable(o, r);
    const bool redirect = r.status >= 300 && r.status < 400 && !r.redirect.empty();
    if (!redirect || !hub_host(o, url, r.redirect)) break;
    if (hop == 10) return make_error(Errc::runtime_error, fmt::format("{}: more than 10 redirects", url));
    url = r.redirect;
  }
  if (r.status >= 400) return status_error(o, r, repo, path, revision);
  FileMeta m;
  m.commit = r.header("x-repo-commit");
  if (m.commit.empty()) {
    return make_error(Errc::runtime_error,
                      fmt::format("{} answered {} without X-Repo-Commit: is {} a Hugging Face Hub (HF_ENDPOINT, "
                                  "--endpoint)?",
                                  url, r.status, o.endpoint));
  }
  const std::string linked = r.header("x-linked-etag");
  m.etag = normalize_etag(linked.empty() ? r.header("etag") : linked);
  if (!plain_name(m.etag) || !safe_path(m.commit)) {
    return make_error(Errc::runtime_error,
                      fmt::format("{} answered with no usable ETag ('{}') or commit ('{}')", url, m.etag, m.commit));
  }
  m.off_hub = r.status >= 300 && r.status < 400 && !r.redirect.empty();
  m.url = m.off_hub ? r.redirect : url;
  m.size = parse_size(r.header("x-linked-size"), m.size_known);
  if (!m.size_known && !m.off_hub) m.size = parse_size(r.header("content-length"), m.size_known);
  return m;
}

// One pull's view of a repository: the revision asked for and, once the first file named it, the
// commit the rest are fetched at; only the cache once the Hub could not be reached.
struct RepoPull {
  const PullOptions& o;
  std::string repo;
  std::string revision;
  std::string pinned;
  bool cache_only = false;
  fs::path dir;
};

Result<fs::path> cached_file(const RepoPull& r, const std::string& path) {
  const std::string commit = r.pinned.empty() ? cached_commit(r.dir, r.revision) : r.pinned;
  const fs::path pointer = r.dir / "snapshots" / commit / path;
  std::error_code ec;
  if (!is_commit(commit) || !fs::exists(pointer, ec)) {
    return make_error(Errc::not_found, fmt::format("{}/{} (revision {}) is not in the cache {}", r.repo, path,
                                                   r.revision, r.o.cache_dir.string()));
  }
  report(r.o, PullProgress::Event::cached, r.repo + "/" + path);
  return pointer;
}

Result<fs::path> fetch_file(RepoPull& r, const std::string& path) {
  const std::string name = r.repo + "/" + path;
  const std::string revision = r.pinned.empty() ? r.revision : r.pinned;
  if (r.cache_only) return cached_file(r, path);
  std::error_code ec;
  if (is_commit(revision) && fs::exists(r.dir / "snapshots" / revision / path, ec)) return cached_file(r, path);
  auto meta = resolve(r.o, r.repo, path, revision);
  if (!meta) {
    if (meta.error().code != Errc::timeout) return meta.take_error();
    auto cached = cached_file(r, path);
    if (!cached) return meta.take_error();
    notice(r.o, fmt::format("{}; using the cached {}", meta.error().detail, name));
    r.cache_only = true;
    return cached;
  }
  r.pinned = meta->commit;
  const fs::path pointer = r.dir / "snapshots" / meta->commit / path;
  const fs::path ref = r.dir / "refs" / r.revision;
  if (r.revision != meta->commit && read_text(ref) != meta->commit) {
    auto written = write_atomically(ref, meta->commit);  // a read-only cache that has the file: fine
    if (!written && !fs::exists(pointer, ec)) return written.take_error();
  }
  if (fs::exists(pointer, ec)) {
    report(r.o, PullProgress::Event::cached, name);
    return pointer;
  }
  const fs::path blob = r.dir / "blobs" / meta->etag;
  WASINN_TRY(make_dirs(blob.parent_path()));
  tag_cache_dir(r.o.cache_dir);
  FileLock lock(r.o.cache_dir / ".locks" / r.dir.filename() / (meta->etag + ".lock"), r.o, name);
  if (fs::exists(blob, ec)) {
    report(r.o, PullProgress::Event::cached, name);
  } else {
    Download d{name, meta->url, meta->off_hub ? Headers{} : hub_headers(r.o), blob, "", meta->size, meta->size_known};
    if (is_hex(meta->etag, 64)) d.sha256 = meta->etag;
    WASINN_TRY(download(r.o, d));
  }
  WASINN_TRY(make_pointer(pointer, path, meta->etag));
  return pointer;
}

// A plain URL: DOWNLOADS/HOST/SHA256(URL)[:16]/NAME, and beside it .etag, the ETag it was got with.
// A file there is used again unless the server now gives another ETag.
Result<fs::path> fetch_url(const PullOptions& o, const std::string& url) {
  std::string name = url.substr(0, url.find_first_of("?#"));
  name = name.substr(name.rfind('/') + 1);
  if (!plain_name(name)) name = "download";
  std::string host = url_host(url);
  if (!plain_name(host)) host = "host";
  const fs::path dir = o.download_dir / host / sha256_hex(url).substr(0, 16);
  const fs::path file = dir / name;
  const fs::path etag_file = dir / ".etag";
  std::error_code ec;
  const bool have = fs::exists(file, ec);
  if (o.offline) {
    if (have) {
      report(o, PullProgress::Event::cached, name);
      return file;
    }
    return make_error(Errc::not_found, fmt::format("{} was never downloaded (it would be {})", url, file.string()));
  }
  HttpResponse head;
  std::string at = url;
  for (int hop = 0; hop < 10; ++hop) {
    head = http_head(at, {}, o.http);
    if (!head.transport.empty() || head.status < 300 || head.status >= 400 || head.redirect.empty()) break;
    at = head.redirect;
  }
  const std::string etag = head.transport.empty() && head.status == 200 ? normalize_etag(head.header("etag")) : "";
  const std::string kept = read_text(etag_file);
  if (have && (etag.empty() || etag == kept)) {
    if (!head.transport.empty())
      notice(o, fmt::format("cannot reach {} ({}); using {}", host, head.transport, file.string()));
    report(o, PullProgress::Event::cached, name);
    return file;
  }
  if (have) notice(o, fmt::format("{} changed on the server (ETag {}, was {}): downloading it again", url, etag, kept));
  WASINN_TRY(make_dirs(dir));
  FileLock lock(dir / ".lock", o, name);
  if (etag != kept) ::unlink((file.string() + ".incomplete").c_str());  // a part of another version
  WASINN_TRY(write_atomically(etag_file, etag));
  Download d{name, url, {}, file, "", 0, false};
  if (head.transport.empty() && head.status == 200) d.size = parse_size(head.header("content-length"), d.size_known);
  WASINN_TRY(download(o, d));
  return file;
}

bool valid_repo_part(const std::string& s) {
  if (s.empty() || s.size() > 96 || s.find("--") != std::string::npos || s.find("..") != std::string::npos)
    return false;
  if (s.front() == '-' || s.front() == '.' || s.back() == '-' || s.back() == '.') return false;
  return plain_name(s);
}

bool valid_revision(const std::string& r) { return safe_path(r) && r.find(' ') == std::string::npos; }

}  // namespace

PullOptions options_from_environment() {
  PullOptions o;
  const std::string home = env("HOME");
  const auto expand = [&](std::string p) { return p.rfind("~/", 0) == 0 ? home + p.substr(1) : p; };
  if (std::string e = env("HF_ENDPOINT"); !e.empty()) {
    while (!e.empty() && e.back() == '/') e.pop_back();
    o.endpoint = e;
  }
  std::string xdg = env("XDG_CACHE_HOME");
  if (xdg.empty() && !home.empty()) xdg = home + "/.cache";
  std::string hf_home = expand(env("HF_HOME"));
  if (hf_home.empty() && !xdg.empty()) hf_home = xdg + "/huggingface";
  std::string cache = env("HF_HUB_CACHE");
  if (cache.empty()) cache = env("HUGGINGFACE_HUB_CACHE");
  if (cache.empty() && !hf_home.empty()) cache = hf_home + "/hub";
  o.cache_dir = expand(cache);
  o.download_dir = wasinn::user_cache_dir("downloads");
  o.token = trim(env("HF_TOKEN"));
  if (o.token.empty()) o.token = trim(env("HUGGING_FACE_HUB_TOKEN"));
  const std::string token_path = !env("HF_TOKEN_PATH").empty() ? expand(env("HF_TOKEN_PATH"))
                                 : hf_home.empty()             ? ""
                                                               : hf_home + "/token";
  if (o.token.empty() && !token_path.empty()) o.token = read_text(token_path);
  for (const char* var : {"HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"}) {
    const std::string v = lower(env(var));
    if (v == "1" || v == "on" || v == "yes" || v == "true") o.offline = true;
  }
  o.http.user_agent = std::string("wasinn/") + WASINN_VERSION_STRING;
  return o;
}

Result<HubRef> parse_ref(std::string_view given, const std::string& endpoint) {
  HubRef ref;
  ref.text = std::string(given);
  std::string text = ref.text;
  const auto bad = [&](const std::string& why) {
    return make_error(Errc::invalid_argument,
                      fmt::format("'{}' is not a model reference{}: give owner/repo[:TAG], owner/repo/PATH, "
                                  "hf://owner/repo..., or an http(s):// URL",
                                  ref.text, why.empty() ? "" : " (" + why + ")"));
  };
  const bool is_url = text.rfind("https://", 0) == 0 || text.rfind("http://", 0) == 0;
  if (is_url) {
    const std::string host = url_host(text);
    if (host.empty()) return bad("a URL with no host");
    const bool hub = same_origin(text, endpoint) || host == "huggingface.co" || host == "hf.co";
    const size_t path_at = text.find('/', text.find("://") + 3);
    std::string rest = path_at == std::string::npos ? "" : text.substr(path_at);
    rest = rest.substr(0, rest.find_first_of("?#"));
    const size_t resolve = rest.find("/resolve/") != std::string::npos ? rest.find("/resolve/") : rest.find("/blob/");
    if (!hub || resolve == std::string::npos || std::count(rest.begin(), rest.begin() + resolve, '/') != 2) {
      ref.kind = HubRef::Kind::url;
      ref.url = text;
      return ref;
    }
    // /OWNER/REPO/resolve/REV/PATH, REV percent-encoded when it has a '/'
    const std::string repo = rest.substr(1, resolve - 1);
    const std::string after = rest.substr(rest.find('/', resolve + 1) + 1);
    const size_t slash = after.find('/');
    if (slash == std::string::npos) return bad("no file after the revision");
    std::string revision = after.substr(0, slash);
    for (size_t at;
         (at = revision.find("%2F")) != std::string::npos || (at = revision.find("%2f")) != std::string::npos;)
      revision.replace(at, 3, "/");
    text = repo + "@" + revision + "/" + after.substr(slash + 1);
  } else if (text.rfind("hf://", 0) == 0) {
    text = text.substr(5);
    if (text.rfind("datasets/", 0) == 0 || text.rfind("spaces/", 0) == 0) return bad("only model repositories");
    if (text.rfind("models/", 0) == 0) text = text.substr(7);
  }
  const size_t first = text.find('/');
  if (first == std::string::npos) return bad("no owner/repo");
  const size_t second = text.find('/', first + 1);
  std::string name = text.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
  if (second != std::string::npos) ref.path = text.substr(second + 1);
  if (const size_t colon = name.find(':'); colon != std::string::npos) {
    if (second != std::string::npos) return bad("a :TAG names a repository's model, not a file's");
    ref.tag = name.substr(colon + 1);
    name = name.substr(0, colon);
    if (!plain_name(ref.tag)) return bad("the tag after ':' is letters, digits, '.', '_' or '-'");
  }
  if (const size_t at = name.find('@'); at != std::string::npos) {
    ref.revision = name.substr(at + 1);
    name = name.substr(0, at);
    if (!valid_revision(ref.revision)) return bad("a bad revision after '@'");
  }
  const std::string owner = text.substr(0, first);
  if (!valid_repo_part(owner) || !valid_repo_part(name)) {
    return bad(
        "an owner and a repository name are letters, digits, '.', '_' and '-', neither starting nor ending "
        "with '.' or '-', without '--' or '..'");
  }
  ref.repo = owner + "/" + name;
  if (second != std::string::npos) {
    if (!safe_path(ref.path)) return bad("a file's path is '/'-separated names, none '.' or '..'");
    ref.kind = HubRef::Kind::file;
  }
  return ref;
}

Result<std::vector<fs::path>> pull(const HubRef& ref, const PullOptions& o, fs::path* projector) {
  if (projector) projector->clear();
  if (ref.kind == HubRef::Kind::url) {
    if (o.download_dir.empty()) return make_error(Errc::invalid_argument, "no directory for downloads: set HOME");
    auto file = fetch_url(o, ref.url);
    if (!file) return file.take_error();
    return std::vector<fs::path>{*file};
  }
  RepoPull r{o, ref.repo, ref.revision.empty() ? o.revision : ref.revision, "", o.offline, repo_dir(o, ref.repo)};
  if (!valid_revision(r.revision))
    return make_error(Errc::invalid_argument, fmt::format("bad revision '{}'", r.revision));
  Selection s;
  if (ref.kind == HubRef::Kind::file) {
    s.model = split_parts(ref.path);
    if (lower(ref.path).size() > 5 && lower(ref.path).substr(ref.path.size() - 5) == ".onnx") {
      auto l = o.offline ? list_cached(o, r.repo, r.revision) : list_online(o, r.repo, r.revision);
      if (l) s.extra = onnx_data_files(l->files, ref.path);
    }
  } else {
    auto l = o.offline ? list_cached(o, r.repo, r.revision) : list_online(o, r.repo, r.revision);
    if (!l && l.error().code == Errc::timeout) {
      auto cached = list_cached(o, r.repo, r.revision);
      if (!cached) return l.take_error();
      notice(o, fmt::format("{}; using the cached {} (commit {})", l.error().detail, r.repo, cached->commit));
      l = std::move(cached);
    }
    if (!l) {
      Error e = l.take_error();
      if (o.offline) e.detail = "offline: " + e.detail;
      return e;
    }
    auto chosen = select_files(l->files, ref.tag, r.repo);
    if (!chosen) {
      Error e = chosen.take_error();
      if (l->cached)
        e.detail = fmt::format("{}{} (in the cached snapshot {})", o.offline ? "offline: " : "", e.detail, l->commit);
      return e;
    }
    s = std::move(*chosen);
    if (l->cached) {
      r.cache_only = true;
      r.pinned = l->commit;
    }
  }
  std::vector<fs::path> out;
  for (const auto& path : s.model) {
    auto got = fetch_file(r, path);
    if (!got) {
      Error e = got.take_error();
      if (o.offline && e.code == Errc::not_found) e.detail = "offline: " + e.detail;
      return e;
    }
    out.push_back(*got);
  }
  for (const auto& path : s.extra) {
    auto got = fetch_file(r, path);
    if (!got) return got.take_error();
  }
  if (projector && !s.projector.empty()) {
    auto got = fetch_file(r, s.projector);
    if (!got) return got.take_error();
    *projector = *got;
  }
  return out;
}

}  // namespace wasinn_cli::hub
