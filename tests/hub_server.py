"""A local Hugging Face Hub for tests: the real `huggingface_hub`, `datasets` and `transformers` clients talk to it
over HTTP through `HF_ENDPOINT` (no internet, no monkeypatching).

It serves the routes those clients call (checked against huggingface_hub 2.4, datasets 5.2, transformers 5.23):
`/api/whoami-v2`, `/api/repos/create|delete`, `/api/validate-yaml`, repo info (`/api/{type}s/{ns}/{name}[/revision/
{rev}]`), `tree`, `paths-info`, `preupload`, `commit` (NDJSON), `refs`, `commits`, `branch`, `tag`, the Git LFS batch
API with a single-part PUT upload and verify, and `resolve` (GET/HEAD, byte ranges). Repos (model, dataset, space)
live on disk under a storage folder: one JSON file per repo with its commit history, file contents in a
content-addressed blob store keyed by sha256. Every new repo starts with the Hub's "initial commit" holding a default
`.gitattributes`, which, with size and binary content, decides what is uploaded through LFS.

Usage::

    with running_hub(tmp_path / "hub") as hub:
        env = hub.env(tmp_path / "hf_home")          # for a client subprocess
        run_python("from datasets import load_dataset; ...", env)
    # or the pytest fixture `hub` (register this module in `pytest_plugins`)
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import datetime as dt
import fnmatch
import hashlib
import hmac
import json
import os
import re
import secrets
import signal
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
from collections import deque
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

import pytest
import yaml

REPO_TYPES = {"models": "model", "datasets": "dataset", "spaces": "space"}
URL_PREFIXES = {"model": "", "dataset": "datasets/", "space": "spaces/"}
LFS_SIZE_THRESHOLD = 10 * 1024 * 1024  # the Hub stores regular files above 10 MiB through LFS
TREE_PAGE_SIZE, TREE_PAGE_SIZE_EXPANDED = 1000, 50  # the Hub's page sizes for `tree`
_LFS_EXTENSIONS = (
    "7z arrow bin bz2 ckpt ftz gz h5 joblib lz4 mlmodel model msgpack npy npz onnx ot parquet pb pickle pkl pt pth rar "
    "safetensors tar tflite tgz wasm xz zip zst mds mp3 ogg wav flac jpg jpeg png webp mp4 webm"
).split()
# Modelled on the .gitattributes huggingface.co writes into the initial commit of a new repo.
DEFAULT_GITATTRIBUTES = "".join(
    f"{pattern} filter=lfs diff=lfs merge=lfs -text\n"
    for pattern in [f"*.{ext}" for ext in _LFS_EXTENSIONS] + ["*.lfs.*", "*.tar.*", "saved_model/**/*", "*tfevents*"]
)
_FRONT_MATTER = re.compile(r"^(\s*---[\r\n]+)([\S\s]*?)([\r\n]+---(\r\n|\n|$))")  # as huggingface_hub.repocard
_COMMIT_SHA = re.compile(r"^[0-9a-f]{40}$")


class HubError(Exception):
    """An HTTP error answered the way the Hub does (status, `X-Error-Code`, `X-Error-Message`, JSON `error`)."""

    def __init__(self, status: int, message: str, code: str | None = None, headers: dict | None = None, **fields):
        super().__init__(message)
        self.status, self.message, self.code, self.headers, self.fields = status, message, code, headers or {}, fields


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _git_blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _lfs_pointer(sha256: str, size: int) -> bytes:
    return f"version https://git-lfs.github.com/spec/v1\noid sha256:{sha256}\nsize {size}\n".encode()


def _matches(pattern: str, path: str) -> bool:
    """gitattributes/gitignore-style match: a pattern without '/' matches the file name anywhere."""
    pattern = pattern.rstrip("/")
    if "/" not in pattern:
        return any(fnmatch.fnmatchcase(part, pattern) for part in path.split("/"))
    return fnmatch.fnmatchcase(path, pattern.lstrip("/")) or path.startswith(pattern.lstrip("/") + "/")


def read_card_metadata(text: str) -> dict | None:
    """The YAML metadata block of a README.md (None when there is none); raises yaml.YAMLError if invalid."""
    match = _FRONT_MATTER.search(text)
    return yaml.safe_load(match.group(2)) if match else None


class HubStorage:
    """Repos on disk: `blobs/<sha256>` (contents) and `repos/<type>/<ns>/<name>.json` (refs + commit history).

    Args:
        root: Storage folder (created if missing; repos already there are served again).
        username: The user `whoami` reports and the namespace of repos created without one.
    """

    def __init__(self, root: str | os.PathLike, username: str = "hub-test-user"):
        self.root, self.username = Path(root), username
        (self.root / "blobs").mkdir(parents=True, exist_ok=True)
        self.lock = threading.RLock()

    # -- blobs
    def blob_path(self, sha256: str) -> Path:
        return self.root / "blobs" / sha256

    def put_bytes(self, data: bytes) -> str:
        sha256 = hashlib.sha256(data).hexdigest()
        if not self.blob_path(sha256).exists():
            tmp = self.root / "blobs" / f".tmp-{secrets.token_hex(8)}"
            tmp.write_bytes(data)
            os.replace(tmp, self.blob_path(sha256))
        return sha256

    def put_stream(self, stream, expected_sha256: str, expected_size: int) -> None:
        """Store an uploaded LFS object, checking its sha256 and size (the LFS basic transfer contract)."""
        digest, size = hashlib.sha256(), 0
        tmp = self.root / "blobs" / f".tmp-{secrets.token_hex(8)}"
        with open(tmp, "wb") as out:
            while chunk := stream.read(1 << 20):
                digest.update(chunk)
                size += len(chunk)
                out.write(chunk)
        if digest.hexdigest() != expected_sha256 or size != expected_size:
            tmp.unlink()
            raise HubError(400, f"Uploaded object does not match oid {expected_sha256} / size {expected_size}")
        os.replace(tmp, self.blob_path(expected_sha256))

    def file_entry(self, sha256: str, lfs: bool) -> dict:
        size = self.blob_path(sha256).stat().st_size
        if lfs:
            pointer = _lfs_pointer(sha256, size)
            return {
                "sha256": sha256,
                "size": size,
                "lfs": True,
                "oid": _git_blob_sha(pointer),
                "pointerSize": len(pointer),
            }
        return {"sha256": sha256, "size": size, "lfs": False, "oid": _git_blob_sha(self.blob_path(sha256).read_bytes())}

    # -- repos
    def _repo_file(self, repo_type: str, repo_id: str) -> Path:
        return self.root / "repos" / repo_type / f"{repo_id}.json"

    def load(self, repo_type: str, repo_id: str) -> dict:
        path = self._repo_file(repo_type, repo_id)
        if not path.exists():
            raise HubError(404, f"Repository Not Found: {repo_type} {repo_id}", "RepoNotFound")
        return json.loads(path.read_text())

    def save(self, repo: dict) -> None:
        path = self._repo_file(repo["type"], repo["id"])
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp-{secrets.token_hex(4)}")
        tmp.write_text(json.dumps(repo))
        os.replace(tmp, path)

    def create(self, repo_type: str, repo_id: str, private: bool) -> dict:
        with self.lock:
            if self._repo_file(repo_type, repo_id).exists():
                raise HubError(409, f"You already created this {repo_type} repo")
            repo = {
                "type": repo_type,
                "id": repo_id,
                "private": private,
                "createdAt": _now(),
                "_id": secrets.token_hex(12),
                "refs": {"heads": {}, "tags": {}, "pr": {}},
                "commits": {},
            }
            attributes = self.put_bytes(DEFAULT_GITATTRIBUTES.encode())
            self.add_commit(
                repo, "main", {".gitattributes": self.file_entry(attributes, lfs=False)}, "initial commit", ""
            )
            return repo

    def delete(self, repo_type: str, repo_id: str) -> None:
        with self.lock:
            self.load(repo_type, repo_id)
            self._repo_file(repo_type, repo_id).unlink()

    def add_commit(self, repo: dict, ref: str, files: dict, title: str, message: str, parent: str | None = None) -> str:
        """Record a commit of the full file map `files` on ref `ref` (a branch, or `refs/pr/N`) and save the repo."""
        parents = [parent] if parent else []
        date = _now()
        sha = hashlib.sha1(
            json.dumps([parents, files, title, message, date, secrets.token_hex(8)]).encode()
        ).hexdigest()
        repo["commits"][sha] = {
            "id": sha,
            "parents": parents,
            "title": title,
            "message": message,
            "date": date,
            "author": self.username,
            "files": files,
        }
        self._set_ref(repo, ref, sha)
        self.save(repo)
        return sha

    @staticmethod
    def _set_ref(repo: dict, ref: str, sha: str) -> None:
        if ref.startswith("refs/pr/"):
            repo["refs"]["pr"][ref.removeprefix("refs/pr/")] = sha
        else:
            repo["refs"]["heads"][ref.removeprefix("refs/heads/")] = sha

    @staticmethod
    def resolve(repo: dict, revision: str) -> str:
        """A branch, tag, `refs/pr/N` or full commit sha -> commit sha (RevisionNotFound otherwise)."""
        refs = repo["refs"]
        name = revision.removeprefix("refs/heads/").removeprefix("refs/tags/")
        if revision.startswith("refs/pr/") and revision.removeprefix("refs/pr/") in refs["pr"]:
            return refs["pr"][revision.removeprefix("refs/pr/")]
        for candidate in (refs["heads"].get(name), refs["tags"].get(name)):
            if candidate:
                return candidate
        if _COMMIT_SHA.match(revision) and revision in repo["commits"]:
            return revision
        raise HubError(404, f"Invalid rev id: {revision}", "RevisionNotFound")

    def read_text(self, entry: dict | None) -> str | None:
        return self.blob_path(entry["sha256"]).read_text(errors="replace") if entry else None

    def lfs_patterns(self, files: dict) -> list[tuple[str, bool]]:
        """(pattern, is_lfs) for each line of the revision's .gitattributes."""
        lines = (self.read_text(files.get(".gitattributes")) or "").splitlines()
        return [
            (ln.split()[0], "filter=lfs" in ln.split()[1:]) for ln in lines if ln.strip() and not ln.startswith("#")
        ]


def _history(repo: dict, sha: str) -> Iterator[dict]:
    """Commits reachable from `sha` along first parents, newest first."""
    while sha:
        commit = repo["commits"][sha]
        yield commit
        sha = commit["parents"][0] if commit["parents"] else None


def _folders(files: dict) -> dict[str, str]:
    """Every folder of a file map -> a stable tree id derived from its contents."""
    contents: dict[str, list[str]] = {}
    for path, entry in files.items():
        parts = path.split("/")
        for depth in range(1, len(parts)):
            contents.setdefault("/".join(parts[:depth]), []).append(f"{path}:{entry['oid']}")
    return {folder: hashlib.sha1("\n".join(sorted(items)).encode()).hexdigest() for folder, items in contents.items()}


class HubApp:
    """Routing and answers of the Hub API on top of a HubStorage (independent of the HTTP plumbing).

    Args:
        storage: Where repos live.
        endpoint: Base URL the server is reached at (used in the URLs it returns).
    """

    def __init__(self, storage: HubStorage, endpoint: str):
        self.storage, self.endpoint = storage, endpoint
        self.secret = secrets.token_bytes(16)  # signs LFS upload URLs, as a presigned storage URL would be
        self.tree_page_size, self.tree_page_size_expanded = TREE_PAGE_SIZE, TREE_PAGE_SIZE_EXPANDED

    # -- entry point
    def handle(self, method: str, raw_path: str, headers, body) -> tuple[int, dict, bytes | Path | None, tuple | None]:
        """Answer one request: (status, headers, JSON bytes or a blob path or None, byte range or None)."""
        url = urlsplit(raw_path)
        seg = [unquote(part) for part in url.path.strip("/").split("/")]
        query = {key: values[-1] for key, values in parse_qs(url.query).items()}
        token = (headers.get("Authorization") or "").removeprefix("Bearer ").strip()
        if seg[:2] == ["api", "whoami-v2"]:
            return self._json(self._whoami(token))
        if seg[:1] == ["api"] and seg[1:2] == ["repos"] and method in ("POST", "DELETE"):
            self._require_token(token)
            payload = json.loads(body.read() or b"{}")
            repo_type = payload.get("type") or "model"
            if not payload.get("name"):
                raise HubError(400, "Missing repo name")
            repo_id = f"{payload.get('organization') or self.storage.username}/{payload['name']}"
            if seg[2:] == ["create"]:
                return self._create(repo_type, repo_id, payload)
            if seg[2:] == ["delete"]:
                self.storage.delete(repo_type, repo_id)
                return self._json({})
        if seg[:2] == ["api", "validate-yaml"] and method == "POST":
            return self._validate_yaml(json.loads(body.read() or b"{}"))
        if seg[0] == "__lfs__":
            return self._lfs_object(method, seg[1:], query, body)
        if seg[0] == "api" and len(seg) >= 4 and seg[1] in REPO_TYPES:
            return self._repo_api(method, REPO_TYPES[seg[1]], f"{seg[2]}/{seg[3]}", seg[4:], query, body, token)
        repo_type, rest = (
            ("dataset", seg[1:])
            if seg[0] == "datasets"
            else ("space", seg[1:])
            if seg[0] == "spaces"
            else ("model", seg)
        )
        if len(rest) >= 6 and rest[1].endswith(".git") and rest[2:] == ["info", "lfs", "objects", "batch"]:
            self._require_token(token)
            return self._lfs_batch(repo_type, f"{rest[0]}/{rest[1].removesuffix('.git')}", json.loads(body.read()))
        if len(rest) >= 5 and rest[2] == "resolve" and method in ("GET", "HEAD"):
            return self._resolve(repo_type, f"{rest[0]}/{rest[1]}", rest[3], "/".join(rest[4:]), headers, token)
        raise HubError(404, f"Not served by the test Hub: {method} {url.path}")

    # -- helpers
    @staticmethod
    def _json(payload, status: int = 200, headers: dict | None = None):
        return status, {"Content-Type": "application/json", **(headers or {})}, json.dumps(payload).encode(), None

    @staticmethod
    def _require_token(token: str) -> None:
        if not token:
            raise HubError(401, "Invalid credentials in Authorization header")

    def _whoami(self, token: str) -> dict:
        self._require_token(token)
        return {
            "type": "user",
            "id": hashlib.sha1(self.storage.username.encode()).hexdigest()[:24],
            "name": self.storage.username,
            "fullname": self.storage.username,
            "email": None,
            "orgs": [],
            "isPro": False,
            "auth": {"type": "access_token", "accessToken": {"displayName": "test", "role": "write"}},
        }

    def _repo_url(self, repo_type: str, repo_id: str) -> str:
        return f"{self.endpoint}/{URL_PREFIXES[repo_type]}{repo_id}"

    def _load_readable(self, repo_type: str, repo_id: str, token: str) -> dict:
        repo = self.storage.load(repo_type, repo_id)
        if repo["private"] and not token:
            raise HubError(401, "Repository Not Found", "RepoNotFound")
        return repo

    def _create(self, repo_type: str, repo_id: str, payload: dict):
        if repo_type not in URL_PREFIXES:
            raise HubError(400, f"Invalid repo type {repo_type}")
        try:
            self.storage.create(
                repo_type, repo_id, payload.get("visibility") == "private" or bool(payload.get("private"))
            )
        except HubError as err:
            # the Hub's 409 carries the url: create_repo(exist_ok=True) reads it
            raise HubError(409, err.message, url=self._repo_url(repo_type, repo_id)) from err
        return self._json({"url": self._repo_url(repo_type, repo_id), "name": repo_id, "id": repo_id})

    def _validate_yaml(self, payload: dict):
        try:
            metadata = read_card_metadata(payload.get("content", ""))
        except yaml.YAMLError as err:
            return self._json({"errors": [{"message": f"Invalid YAML in README.md metadata: {err}"}]}, 400)
        if metadata is None:
            return self._json({"warnings": [{"message": "empty or missing yaml metadata in repo card"}]})
        if not isinstance(metadata, dict):
            return self._json({"errors": [{"message": "README.md metadata must be a YAML mapping"}]}, 400)
        return self._json({})

    # -- /api/{type}s/{ns}/{name}/...
    def _repo_api(self, method: str, repo_type: str, repo_id: str, rest: list[str], query: dict, body, token: str):
        action = rest[0] if rest else "info"
        if action.startswith("xet-"):
            raise HubError(
                501, "The local test Hub does not serve Xet storage: set HF_HUB_DISABLE_XET=1 (see hub.env())"
            )
        write = method in ("POST", "DELETE", "PUT") and action != "paths-info"
        if write:
            self._require_token(token)
        repo = self._load_readable(repo_type, repo_id, token)
        revision = "/".join(rest[1:]) or "main"
        if action in ("info", "revision") and method == "GET":
            return self._json(self._info(repo, revision, query))
        if action == "tree" and method == "GET":
            # tree/{rev}/{path}: the revision is one quoted segment, the path may be quoted or not
            return self._tree(repo, rest[1] if len(rest) > 1 else "main", "/".join(rest[2:]), query)
        if action == "paths-info" and method == "POST":
            form = parse_qs(body.read().decode())
            return self._paths_info(repo, revision, form.get("paths", []), form.get("expand", ["False"])[-1])
        if action == "preupload" and method == "POST":
            return self._preupload(repo, revision, json.loads(body.read()))
        if action == "commit" and method == "POST":
            return self._commit(repo, revision, body.read(), query.get("create_pr") == "1")
        if action == "refs" and method == "GET":
            return self._json(self._refs(repo, query.get("include_prs") == "1"))
        if action == "commits" and method == "GET":
            commits = _history(repo, self.storage.resolve(repo, revision))
            return self._json(
                [
                    {
                        "id": c["id"],
                        "title": c["title"],
                        "message": c["message"],
                        "date": c["date"],
                        "authors": [{"user": c["author"]}],
                    }
                    for c in commits
                ]
            )
        if action in ("branch", "tag") and method in ("POST", "DELETE"):
            return self._ref_change(repo, action, method, revision, json.loads(body.read() or b"{}"))
        raise HubError(404, f"Not served by the test Hub: {method} /api/{repo_type}s/{repo_id}/{'/'.join(rest)}")

    def _files(self, repo: dict, revision: str) -> tuple[str, dict]:
        sha = self.storage.resolve(repo, revision)
        return sha, repo["commits"][sha]["files"]

    def _info(self, repo: dict, revision: str, query: dict) -> dict:
        sha, files = self._files(repo, revision)
        siblings = []
        for path, entry in sorted(files.items()):
            sibling = {"rfilename": path}
            if query.get("blobs", "").lower() == "true":
                sibling.update(size=entry["size"], blobId=entry["oid"])
                if entry["lfs"]:
                    sibling["lfs"] = {
                        "size": entry["size"],
                        "sha256": entry["sha256"],
                        "pointerSize": entry["pointerSize"],
                    }
            siblings.append(sibling)
        try:
            card = read_card_metadata(self.storage.read_text(files.get("README.md")) or "")
        except yaml.YAMLError:
            card = None
        owner, _ = repo["id"].split("/")
        info = {
            "_id": repo["_id"],
            "id": repo["id"],
            "author": owner,
            "sha": sha,
            "private": repo["private"],
            "createdAt": repo["createdAt"],
            "lastModified": repo["commits"][sha]["date"],
            "disabled": False,
            "gated": False,
            "downloads": 0,
            "likes": 0,
            "tags": list((card or {}).get("tags") or []),
            "siblings": siblings,
            "usedStorage": sum(e["size"] for e in files.values()),
        }
        if isinstance(card, dict):
            info["cardData"] = card
        if repo["type"] == "model":
            info["modelId"] = repo["id"]
        return info

    def _entry_json(self, repo: dict, sha: str, path: str, entry: dict | None, tree_id: str | None, expand: bool):
        if entry is None:
            item = {"type": "directory", "oid": tree_id, "size": 0, "path": path}
        else:
            item = {"type": "file", "oid": entry["oid"], "size": entry["size"], "path": path}
            if entry["lfs"]:
                item["lfs"] = {"oid": entry["sha256"], "size": entry["size"], "pointerSize": entry["pointerSize"]}
        if expand:  # the last commit that changed the path
            history = list(_history(repo, sha))
            last = history[-1]
            for newer, older in zip(history, history[1:], strict=False):
                if self._subtree(newer["files"], path) != self._subtree(older["files"], path):
                    last = newer
                    break
            item["lastCommit"] = {"id": last["id"], "title": last["title"], "date": last["date"]}
        return item

    @staticmethod
    def _subtree(files: dict, path: str) -> dict:
        return {p: e["oid"] for p, e in files.items() if p == path or p.startswith(path + "/")}

    def _tree(self, repo: dict, revision: str, path: str, query: dict):
        sha, files = self._files(repo, revision)
        path = path.strip("/")
        folders = _folders(files)
        if path and path not in folders:
            raise HubError(404, f"{path} does not exist on {revision}", "EntryNotFound", {"X-Repo-Commit": sha})
        prefix = path + "/" if path else ""
        recursive = query.get("recursive", "false").lower() in ("true", "1")
        expand = query.get("expand", "false").lower() in ("true", "1")
        names = [
            p for p in sorted({*files, *folders}) if p.startswith(prefix) and (recursive or "/" not in p[len(prefix) :])
        ]
        start = int(query.get("cursor", 0))
        page_size = self.tree_page_size_expanded if expand else self.tree_page_size
        page = [
            self._entry_json(repo, sha, p, files.get(p), folders.get(p), expand)
            for p in names[start : start + page_size]
        ]
        headers = {}
        if start + page_size < len(names):
            next_query = urlencode({"recursive": str(recursive), "expand": str(expand), "cursor": start + page_size})
            url = f"{self.endpoint}/api/{repo['type']}s/{repo['id']}/tree/{quote(revision, safe='')}"
            headers["Link"] = f'<{url}{"/" + quote(path) if path else ""}?{next_query}>; rel="next"'
        return self._json(page, headers=headers)

    def _paths_info(self, repo: dict, revision: str, paths: list[str], expand: str):
        sha, files = self._files(repo, revision)
        folders = _folders(files)
        found = [p.strip("/") for p in paths if p.strip("/") in files or p.strip("/") in folders]
        return self._json(
            [self._entry_json(repo, sha, p, files.get(p), folders.get(p), expand.lower() == "true") for p in found]
        )

    def _upload_mode(self, path: str, size: int, sample: bytes, patterns) -> str:
        by_attributes = False
        for pattern, is_lfs in patterns:  # the last matching line wins, as in git
            if _matches(pattern, path):
                by_attributes = is_lfs
        # the Hub refuses binary files in plain git and stores large ones through LFS
        return "lfs" if by_attributes or size >= LFS_SIZE_THRESHOLD or b"\0" in sample else "regular"

    def _preupload(self, repo: dict, revision: str, payload: dict):
        _, files = self._files(repo, revision)
        patterns = self.storage.lfs_patterns(files)
        ignore_text = payload.get("gitIgnore") or self.storage.read_text(files.get(".gitignore")) or ""
        ignore = [ln.strip() for ln in ignore_text.splitlines() if ln.strip() and not ln.startswith("#")]
        answers = []
        for item in payload.get("files", []):
            path = item["path"]
            mode = self._upload_mode(path, item["size"], base64.b64decode(item.get("sample", "")), patterns)
            ignored = False
            for pattern in ignore:  # later lines win, '!' re-includes
                if _matches(pattern.lstrip("!"), path):
                    ignored = not pattern.startswith("!")
            answer = {"path": path, "uploadMode": mode, "shouldIgnore": ignored}
            if path in files:
                existing = files[path]
                answer["oid"] = existing["sha256"] if existing["lfs"] else existing["oid"]
            answers.append(answer)
        return self._json({"files": answers, "commitOid": self.storage.resolve(repo, revision)})

    def _commit(self, repo: dict, revision: str, body: bytes, create_pr: bool):
        lines = [json.loads(line) for line in body.splitlines() if line.strip()]
        if not lines or lines[0].get("key") != "header":
            raise HubError(400, "The commit payload must start with a header line")
        header = lines[0]["value"]
        with self.storage.lock:
            repo = self.storage.load(repo["type"], repo["id"])  # re-read under the lock: commits are serialised
            if revision not in repo["refs"]["heads"] and not revision.startswith("refs/pr/"):
                raise HubError(404, f"Invalid rev id: {revision} (commits go to a branch)", "RevisionNotFound")
            head = self.storage.resolve(repo, revision)
            if header.get("parentCommit") and header["parentCommit"] != head:
                raise HubError(412, "A commit has happened since. Please refresh and try again.")
            files = dict(repo["commits"][head]["files"])
            for line in lines[1:]:
                self._apply(files, line["key"], line["value"])
            ref = revision
            if create_pr:
                ref = f"refs/pr/{len(repo['refs']['pr']) + 1}"
            sha = self.storage.add_commit(
                repo, ref, files, header.get("summary") or "Upload", header.get("description") or "", parent=head
            )
        url = self._repo_url(repo["type"], repo["id"])
        return self._json(
            {
                "success": True,
                "commitOid": sha,
                "commitUrl": f"{url}/commit/{sha}",
                "hookOutput": "",
                "pullRequestUrl": f"{url}/discussions/{ref.split('/')[-1]}" if create_pr else None,
            }
        )

    def _apply(self, files: dict, key: str, value: dict) -> None:
        path = value["path"].strip("/")
        if key == "file":
            content = (
                base64.b64decode(value["content"]) if value.get("encoding") == "base64" else value["content"].encode()
            )
            files[path] = self.storage.file_entry(self.storage.put_bytes(content), lfs=False)
        elif key == "lfsFile":
            blob = self.storage.blob_path(value["oid"])
            if not blob.exists() or ("size" in value and blob.stat().st_size != value["size"]):
                raise HubError(400, f"LFS object {value['oid']} for {path} was not uploaded (or has another size)")
            files[path] = self.storage.file_entry(value["oid"], lfs=True)
        elif key == "deletedFile":
            if files.pop(path, None) is None:
                raise HubError(404, f"A file with this name doesn't exist: {path}", "EntryNotFound")
        elif key == "deletedFolder":
            doomed = [p for p in files if p.startswith(path + "/")]
            if not doomed:
                raise HubError(404, f"A folder with this name doesn't exist: {path}", "EntryNotFound")
            for p in doomed:
                del files[p]
        else:
            raise HubError(400, f"Unknown commit operation {key!r}")

    def _refs(self, repo: dict, include_prs: bool) -> dict:
        refs = repo["refs"]
        answer = {
            "branches": [{"name": n, "ref": f"refs/heads/{n}", "targetCommit": s} for n, s in refs["heads"].items()],
            "tags": [{"name": n, "ref": f"refs/tags/{n}", "targetCommit": s} for n, s in refs["tags"].items()],
            "converts": [],
        }
        if include_prs:
            answer["pullRequests"] = [
                {"name": n, "ref": f"refs/pr/{n}", "targetCommit": s} for n, s in refs["pr"].items()
            ]
        return answer

    def _ref_change(self, repo: dict, kind: str, method: str, name: str, payload: dict):
        with self.storage.lock:
            repo = self.storage.load(repo["type"], repo["id"])
            table = repo["refs"]["heads" if kind == "branch" else "tags"]
            if method == "DELETE":
                if table.pop(name, None) is None:
                    raise HubError(404, f"{kind} {name} not found", "RevisionNotFound")
            elif kind == "branch":
                if name in table:
                    raise HubError(409, f"Branch {name} already exists")
                table[name] = self.storage.resolve(repo, payload.get("startingPoint") or "main")
            else:  # tag/{revision} with {"tag": name}
                if payload["tag"] in table:
                    raise HubError(409, f"Tag {payload['tag']} already exists")
                table[payload["tag"]] = self.storage.resolve(repo, name)
            self.storage.save(repo)
        return self._json({})

    # -- Git LFS
    def _signature(self, oid: str, size: int) -> str:
        return hmac.new(self.secret, f"{oid}:{size}".encode(), hashlib.sha256).hexdigest()

    def _lfs_batch(self, repo_type: str, repo_id: str, payload: dict):
        self.storage.load(repo_type, repo_id)
        if payload.get("operation") != "upload":
            raise HubError(400, "The test Hub serves LFS uploads only (downloads go through /resolve)")
        objects = []
        for obj in payload.get("objects", []):
            oid, size = obj["oid"], int(obj["size"])
            answer = {"oid": oid, "size": size, "authenticated": True}
            blob = self.storage.blob_path(oid)
            if not (blob.exists() and blob.stat().st_size == size):
                query = urlencode({"size": size, "sig": self._signature(oid, size)})
                answer["actions"] = {
                    "upload": {"href": f"{self.endpoint}/__lfs__/upload/{oid}?{query}"},
                    "verify": {"href": f"{self.endpoint}/__lfs__/verify"},
                }
            objects.append(answer)
        return (
            200,
            {"Content-Type": "application/vnd.git-lfs+json"},
            json.dumps({"transfer": "basic", "objects": objects, "hash_algo": "sha256"}).encode(),
            None,
        )

    def _lfs_object(self, method: str, rest: list[str], query: dict, body):
        if method == "PUT" and rest[:1] == ["upload"] and len(rest) == 2:
            oid, size = rest[1], int(query.get("size", -1))
            if not hmac.compare_digest(query.get("sig", ""), self._signature(oid, size)):
                raise HubError(403, "Invalid upload signature")
            self.storage.put_stream(body, oid, size)
            return 200, {"ETag": f'"{oid}"'}, b"", None
        if method == "POST" and rest == ["verify"]:
            payload = json.loads(body.read())
            blob = self.storage.blob_path(payload["oid"])
            if not blob.exists() or blob.stat().st_size != payload["size"]:
                raise HubError(404, f"LFS object {payload['oid']} not found")
            return self._json({"success": True})
        raise HubError(404, "Unknown LFS route")

    # -- downloads
    def _resolve(self, repo_type: str, repo_id: str, revision: str, path: str, headers, token: str):
        repo = self._load_readable(repo_type, repo_id, token)
        sha, files = self._files(repo, revision)
        entry = files.get(path)
        if entry is None:
            raise HubError(404, f"Entry not found: {path}", "EntryNotFound", {"X-Repo-Commit": sha})
        etag = entry["sha256"] if entry["lfs"] else entry["oid"]
        answer = {
            "X-Repo-Commit": sha,
            "ETag": f'"{etag}"',
            "Accept-Ranges": "bytes",
            "Content-Type": "application/octet-stream",
            "Content-Disposition": f'inline; filename="{path.split("/")[-1]}"',
        }
        if entry["lfs"]:
            answer.update({"X-Linked-Etag": f'"{etag}"', "X-Linked-Size": str(entry["size"])})
        size, span = entry["size"], None
        match = re.fullmatch(r"bytes=(\d*)-(\d*)", headers.get("Range") or "")
        if match and (match.group(1) or match.group(2)):
            first, last = match.groups()
            start = int(first) if first else max(size - int(last), 0)
            end = min(int(last), size - 1) if first and last else size - 1
            if start >= size or start > end:
                raise HubError(416, "Requested range not satisfiable", headers={"Content-Range": f"bytes */{size}"})
            span = (start, end)
            answer["Content-Range"] = f"bytes {start}-{end}/{size}"
        return (206 if span else 200), answer, self.storage.blob_path(entry["sha256"]), span


class _SpooledBody:
    """A request body read in full from the socket (Content-Length or chunked), spooled to disk when large."""

    def __init__(self, handler: BaseHTTPRequestHandler, limit: int):
        self.file = tempfile.SpooledTemporaryFile(max_size=8 << 20)
        total = 0
        for chunk in self._chunks(handler):
            total += len(chunk)
            if total > limit:
                raise HubError(413, f"Request body larger than the test Hub's limit of {limit} bytes")
            self.file.write(chunk)
        self.file.seek(0)

    @staticmethod
    def _chunks(handler) -> Iterator[bytes]:
        if "chunked" in (handler.headers.get("Transfer-Encoding") or "").lower():
            while size := int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16):
                yield handler.rfile.read(size)
                handler.rfile.readline()
            while handler.rfile.readline().strip():  # trailers
                pass
            return
        remaining = int(handler.headers.get("Content-Length") or 0)
        while remaining > 0:
            chunk = handler.rfile.read(min(remaining, 1 << 20))
            if not chunk:
                raise ConnectionError("client closed the connection mid-body")
            remaining -= len(chunk)
            yield chunk

    def read(self, size: int = -1) -> bytes:
        return self.file.read(size)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the clients' connection pools expect
    timeout = 30  # an idle keep-alive connection is dropped after this many seconds
    server: _HubHTTPServer

    def do_GET(self):  # noqa: N802 (http.server's naming)
        self._dispatch("GET")

    def do_HEAD(self):  # noqa: N802
        self._dispatch("HEAD")

    def do_POST(self):  # noqa: N802
        self._dispatch("POST")

    def do_PUT(self):  # noqa: N802
        self._dispatch("PUT")

    def do_DELETE(self):  # noqa: N802
        self._dispatch("DELETE")

    def _dispatch(self, method: str) -> None:
        try:
            body = _SpooledBody(self, self.server.max_body_bytes)
            status, headers, payload, span = self.server.app.handle(method, self.path, self.headers, body)
        except HubError as err:
            if err.status == 413:
                self.close_connection = True  # the rest of the body was not read
            status, headers, payload, span = (
                err.status,
                {"Content-Type": "application/json", **err.headers},
                json.dumps({"error": err.message, **err.fields}).encode(),
                None,
            )
            headers["X-Error-Message"] = err.message.splitlines()[0][:200]
            if err.code:
                headers["X-Error-Code"] = err.code
        except (ConnectionError, OSError):
            self.close_connection = True
            return
        except Exception as err:  # a bug in the test Hub: answer 500 and keep serving, like a real server
            self.server.errors.append(f"{method} {self.path}: {err!r}")
            status, headers, payload, span = (
                500,
                {"Content-Type": "application/json"},
                json.dumps({"error": f"test Hub internal error: {err!r}"}).encode(),
                None,
            )
        self.server.request_log.append((method, urlsplit(self.path).path, status))
        self._send(method, status, headers, payload, span)

    def _send(self, method: str, status: int, headers: dict, payload, span) -> None:
        if isinstance(payload, Path):
            start, end = span or (0, payload.stat().st_size - 1)
            length = max(end - start + 1, 0)
        else:
            payload = payload or b""
            length = len(payload)
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(length))
        self.end_headers()
        if method == "HEAD":
            return
        if isinstance(payload, Path):
            with open(payload, "rb") as blob:
                blob.seek(start)
                while length > 0 and (chunk := blob.read(min(length, 1 << 20))):
                    self.wfile.write(chunk)
                    length -= len(chunk)
        else:
            self.wfile.write(payload)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (http.server's signature)
        pass  # quiet: requests are in server.request_log


class _HubHTTPServer(ThreadingHTTPServer):
    daemon_threads = False  # server_close() joins the handler threads: nothing outlives stop()
    block_on_close = True

    def __init__(self, app_factory, max_body_bytes: int):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.app: HubApp = app_factory(f"http://127.0.0.1:{self.server_address[1]}")
        self.max_body_bytes = max_body_bytes
        self.request_log: deque = deque(maxlen=10_000)
        self.errors: list[str] = []
        self.connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()

    def server_bind(self) -> None:
        socketserver.TCPServer.server_bind(self)  # HTTPServer's getfqdn() can stall on machines without DNS
        self.server_name, self.server_port = self.server_address[:2]

    def process_request_thread(self, request, client_address):
        with self._connections_lock:
            self.connections.add(request)
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._connections_lock:
                self.connections.discard(request)

    def close_connections(self) -> None:
        """Wake handler threads waiting on idle keep-alive connections so they can end."""
        with self._connections_lock:
            for connection in list(self.connections):
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)


class LocalHub:
    """A running local Hub (see `running_hub`).

    Attributes:
        endpoint: `http://127.0.0.1:PORT`, the value for `HF_ENDPOINT`.
        app: The HubApp answering requests (e.g. `app.tree_page_size = 2` to exercise the clients' pagination).
        storage: The HubStorage holding its repos.
        request_log: Recent `(method, path, status)` tuples, to check what a client called.
        errors: Internal errors of the server (a test may assert it is empty).
    """

    token = "hf_local_test_token"

    def __init__(self, storage_dir: str | os.PathLike, username: str = "hub-test-user", max_body_bytes: int = 2 << 30):
        self.storage = HubStorage(storage_dir, username)
        self._server = _HubHTTPServer(lambda endpoint: HubApp(self.storage, endpoint), max_body_bytes)
        self.app: HubApp = self._server.app
        self.endpoint = self.app.endpoint
        self.port = self._server.server_address[1]
        self.request_log, self.errors = self._server.request_log, self._server.errors
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, name=f"local-hub-{self.port}", daemon=True
        )
        self._thread.start()
        self.running = True

    def stop(self) -> None:
        """Stop serving, close the listening socket and every connection, and join all server threads."""
        if not self.running:
            return
        self.running = False
        self._server.shutdown()
        self._server.close_connections()
        self._server.server_close()
        self._thread.join()

    def upload_dataset(self, repo_id: str, folder: str | os.PathLike, hf_home: str | os.PathLike) -> None:
        """Create the dataset repository ``repo_id`` and upload ``folder`` to it, in a fresh process as a publisher
        would (``huggingface_hub``'s ``create_repo`` and ``upload_folder``, with ``hf_home`` as its HF_HOME)."""
        run_python(
            f"""
from huggingface_hub import HfApi
api = HfApi()
api.create_repo({repo_id!r}, repo_type="dataset")
api.upload_folder(repo_id={repo_id!r}, repo_type="dataset", folder_path={str(folder)!r})
""",
            self.env(hf_home),
        )

    def env(self, hf_home: str | os.PathLike, offline: bool = False, base: dict | None = None) -> dict[str, str]:
        """Environment for a client subprocess: this Hub as endpoint, a token, no Xet, its own HF_HOME, quiet.

        Args:
            hf_home: The HF_HOME of the client (a fresh tmp dir for a "new user"); caches live under it.
            offline: Set HF_HUB_OFFLINE=1 / HF_DATASETS_OFFLINE=1 (works after `stop()` too).
            base: Variables to start from (default: os.environ minus every cache/token/offline override).
        """
        env = dict(os.environ if base is None else base)
        for key in (
            "HF_HUB_CACHE",
            "HUGGINGFACE_HUB_CACHE",
            "HF_ASSETS_CACHE",
            "HUGGINGFACE_ASSETS_CACHE",
            "HF_DATASETS_CACHE",
            "HF_MODULES_CACHE",
            "HF_XET_CACHE",
            "TRANSFORMERS_CACHE",
            "HF_TOKEN_PATH",
            "HUGGING_FACE_HUB_TOKEN",
            "TRANSFORMERS_OFFLINE",
            "HF_HUB_ENABLE_HF_TRANSFER",
            "XDG_CACHE_HOME",
        ):
            env.pop(key, None)
        flag = "1" if offline else "0"
        env.update(
            {
                "HF_ENDPOINT": self.endpoint,
                "HF_TOKEN": self.token,
                "HF_HUB_DISABLE_XET": "1",
                "HF_HOME": str(hf_home),
                "HF_HUB_OFFLINE": flag,
                "HF_DATASETS_OFFLINE": flag,
                "HF_HUB_DISABLE_TELEMETRY": "1",
                "HF_HUB_DISABLE_PROGRESS_BARS": "1",
                "HF_DATASETS_DISABLE_PROGRESS_BARS": "1",
                "HF_HUB_DISABLE_UPDATE_CHECK": "1",
                "DISABLE_TELEMETRY": "1",
                "TOKENIZERS_PARALLELISM": "false",
                "NO_PROXY": "127.0.0.1,localhost",
                "no_proxy": "127.0.0.1,localhost",
            }
        )
        return env


@contextlib.contextmanager
def running_hub(storage_dir: str | os.PathLike, username: str = "hub-test-user") -> Iterator[LocalHub]:
    """Run a local Hub on 127.0.0.1 (ephemeral port) for the duration of the `with` block.

    Args:
        storage_dir: Folder for its repos and blobs (reusing a folder serves the repos stored there).
        username: The user `whoami` reports.
    """
    hub = LocalHub(storage_dir, username)
    try:
        yield hub
    finally:
        hub.stop()


def run_python(code: str, env: dict[str, str], timeout: float = 300, cwd: str | os.PathLike | None = None) -> str:
    """Run `code` in a fresh Python subprocess with `env`; return its stdout, or fail with its stderr.

    Args:
        code: Python source (a downstream user's script).
        env: Environment, typically `hub.env(hf_home)`.
        timeout: Seconds before the subprocess is killed.
        cwd: Working directory (default: a temporary folder, so nothing local shadows a Hub repo id).
    """
    with tempfile.TemporaryDirectory() as scratch:
        result = subprocess.run(
            [sys.executable, "-c", code], env=env, cwd=cwd or scratch, capture_output=True, text=True, timeout=timeout
        )
    if result.returncode != 0:
        raise AssertionError(f"client subprocess failed ({result.returncode}):\n{result.stderr[-6000:]}")
    return result.stdout


@pytest.fixture
def hub(tmp_path_factory) -> Iterator[LocalHub]:
    """A local Hub with empty storage, stopped after the test."""
    with running_hub(tmp_path_factory.mktemp("hub_storage")) as local_hub:
        yield local_hub


def main() -> None:
    """`python tests/hub_server.py --storage DIR`: serve a local Hub until interrupted (for manual checks)."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--storage", required=True, help="folder for repos and blobs")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # stop cleanly on `kill PID` too
    with running_hub(args.storage) as local_hub:
        print(f"HF_ENDPOINT={local_hub.endpoint} HF_TOKEN={local_hub.token} HF_HUB_DISABLE_XET=1", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
