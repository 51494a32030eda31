"""The browser's Python runtime: Pyodide, taken from the npm registry's
``pyodide`` package at a pinned version and checked against its published
SHA-512, kept where the site serves it from.

The site serves the runtime itself (never a CDN) under ``/engine/``, each
file stored gzip-compressed beside the original so that it goes out as small
as it can.  Without the runtime the site runs as before: every hint comes
from the server, and ``jielong doctor`` says so.

``python -m jielong.web.services.runtime`` installs it (``make run`` and
``make test`` do).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import os
import shutil
import sys
import tarfile
import urllib.request
import zipfile
from functools import cache
from pathlib import Path

VERSION = "314.0.8"
"""The pinned ``pyodide`` release (CPython 3.14)."""
INTEGRITY = (
    "sha512-74Wq1kXOC+CCEzAfxuRAO701nAcCMLjf8NrwvWpu8S41dVMXwXmLQ05dYB+F4e46AdnGo0oq7YHSVUpHsoarLQ"
    "=="
)
"""The npm registry's integrity value of that release's tarball."""
TARBALL = f"https://registry.npmjs.org/pyodide/-/pyodide-{VERSION}.tgz"

FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
"""What the worker loads of the package (the rest is the console and types)."""


# The standard library's top-level modules and packages the worker keeps of
# the runtime's python_stdlib.zip: those imported once the runtime has
# started and the engine has dealt, played, hinted and analysed a game of
# each family, and those an error's traceback needs.  The rest (email, xml,
# unittest, http, the debugger and more) is about half the archive.
STDLIB_KEEP = frozenset(
    {
        "__future__",
        "_collections_abc",
        "_colorize",
        "_compat_pickle",
        "_opcode_metadata",
        "_py_warnings",
        "_pyodide",
        "_sitebuiltins",
        "_ssl",
        "_strptime",
        "_sysconfigdata__emscripten_wasm32-emscripten",
        "_weakrefset",
        "abc",
        "annotationlib",
        "ast",
        "asyncio",
        "base64",
        "bisect",
        "bz2",
        "calendar",
        "codecs",
        "codeop",
        "collections",
        "compression",
        "concurrent",
        "contextlib",
        "contextvars",
        "copy",
        "copyreg",
        "dataclasses",
        "datetime",
        "dis",
        "encodings",
        "enum",
        "fnmatch",
        "functools",
        "genericpath",
        "glob",
        "hashlib",
        "heapq",
        "hmac",
        "importlib",
        "inspect",
        "io",
        "json",
        "keyword",
        "linecache",
        "locale",
        "logging",
        "lzma",
        "ntpath",
        "numbers",
        "opcode",
        "operator",
        "os",
        "pathlib",
        "pickle",
        "posixpath",
        "pprint",
        "pyodide",
        "random",
        "re",
        "reprlib",
        "secrets",
        "selectors",
        "shutil",
        "signal",
        "site",
        "socket",
        "ssl",
        "stat",
        "string",
        "struct",
        "subprocess",
        "sysconfig",
        "tempfile",
        "textwrap",
        "threading",
        "token",
        "tokenize",
        "traceback",
        "types",
        "typing",
        "warnings",
        "weakref",
        "zipfile",
        "zipimport",
    }
)


def trimmed_stdlib(data: bytes) -> bytes:
    """The runtime's standard library archive with only :data:`STDLIB_KEEP`."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as full,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as kept,
    ):
        for info in full.infolist():
            top = info.filename.split("/")[0].removesuffix(".py")
            if top in STDLIB_KEEP and not info.is_dir():
                kept.writestr(info, full.read(info))
    return out.getvalue()


def runtime_dir() -> Path:
    """Where the runtime is kept: ``JIELONG_RUNTIME_DIR``, or beside the web
    package (the checkout's, for ``make run``)."""
    given = os.environ.get("JIELONG_RUNTIME_DIR")
    if given:
        return Path(given)
    return Path(__file__).resolve().parent.parent / "runtime" / VERSION


def installed(directory: Path | None = None) -> bool:
    where = directory or runtime_dir()
    return all((where / name).is_file() and (where / f"{name}.gz").is_file() for name in FILES)


def check_integrity(data: bytes, integrity: str | None = None) -> None:
    """Raise ``ValueError`` unless ``data`` has the SHA-512 that ``integrity``
    (an npm ``sha512-<base64>`` value; the pinned release's by default) names."""
    algorithm, _, expected = (integrity or INTEGRITY).partition("-")
    if algorithm != "sha512":
        raise ValueError(f"unsupported integrity algorithm {algorithm!r}")
    actual = base64.b64encode(hashlib.sha512(data).digest()).decode()
    if actual != expected:
        raise ValueError(f"pyodide {VERSION}: checksum mismatch (got sha512-{actual})")


def unpack(tarball: bytes, directory: Path) -> None:
    """Keep the worker's files of a checked tarball in ``directory``, each
    also gzip-compressed."""
    check_integrity(tarball)
    staging = directory.with_name(directory.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:
        for name in FILES:
            member = archive.extractfile(f"package/{name}")
            if member is None:
                raise ValueError(f"pyodide {VERSION}: {name} missing from the package")
            data = member.read()
            if name == "python_stdlib.zip":
                data = trimmed_stdlib(data)
            (staging / name).write_bytes(data)
            (staging / f"{name}.gz").write_bytes(gzip.compress(data, 9, mtime=0))
    shutil.rmtree(directory, ignore_errors=True)
    staging.rename(directory)


def fetch(url: str = TARBALL, timeout: float = 120.0) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        data: bytes = answer.read()
    return data


def install(directory: Path | None = None) -> Path:
    where = directory or runtime_dir()
    if not installed(where):
        where.parent.mkdir(parents=True, exist_ok=True)
        unpack(fetch(), where)
    return where


PACKAGE_ROOT = Path(__file__).resolve().parent.parent.parent
"""The ``jielong`` package's folder."""
BROWSER_PARTS = ("engine", "play", "session", "__init__.py", "web/__init__.py", "web/i18n")
"""What the worker imports: the engine, the session, the player's view of a
game, and the message catalogues its refusals are worded from."""


def _browser_files() -> list[Path]:
    found: list[Path] = []
    for part in BROWSER_PARTS:
        path = PACKAGE_ROOT / part
        found += [path] if path.is_file() else sorted(path.rglob("*"))
    return [
        p
        for p in found
        if p.is_file()
        and p.suffix in (".py", ".txt", ".json")
        and "__pycache__" not in p.parts
        and not p.name.startswith("_native_")
        and not p.name.startswith("ui.")  # the page has its own texts
    ]


@cache
def package_archive() -> tuple[str, bytes]:
    """The Python the worker runs, as a zip archive (fixed dates, so the
    same sources give the same bytes), and its digest."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for path in _browser_files():
            name = "jielong/" + path.relative_to(PACKAGE_ROOT).as_posix()
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    data = out.getvalue()
    return hashlib.sha256(data).hexdigest()[:16], data


def main(argv: list[str] | None = None) -> int:
    """``--require``: fail when the runtime cannot be installed (the test
    suite needs it); else the site goes on without it."""
    required = "--require" in (sys.argv[1:] if argv is None else argv)
    try:
        where = install()
    except (OSError, ValueError) as e:
        # the site runs without it: hints come from the server
        print(f"the browser engine (pyodide {VERSION}) is not installed: {e}", file=sys.stderr)
        return 1 if required else 0
    size = sum((where / f"{n}.gz").stat().st_size for n in FILES)
    print(f"browser engine: pyodide {VERSION} in {where} ({size / 1e6:.1f} MB compressed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
