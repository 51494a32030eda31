"""The engine the browser's worker runs, as the site serves it: the runtime
checked against its published checksum, its standard library trimmed to what
the worker imports, the project's package built from the engine's sources
alone, and the ``/engine/`` routes."""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from jielong.web.services import runtime
from tests.api_checks import app_client


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with app_client(tmp_path_factory, "engine") as c:
        yield c


def test_a_tarball_with_another_checksum_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="checksum mismatch"):
        runtime.unpack(b"not the release", tmp_path / "runtime")
    assert not (tmp_path / "runtime").exists()
    with pytest.raises(ValueError, match="unsupported"):
        runtime.check_integrity(b"", "md5-AAAA")


def test_the_checked_files_are_kept_with_their_compressed_copies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stdlib = io.BytesIO()
    with zipfile.ZipFile(stdlib, "w") as z:
        z.writestr("json/__init__.py", "x = 1\n")
        z.writestr("email/__init__.py", "y = 2\n")
        z.writestr("random.py", "z = 3\n")
    tar = io.BytesIO()
    with tarfile.open(fileobj=tar, mode="w:gz") as archive:
        for name in runtime.FILES:
            data = stdlib.getvalue() if name == "python_stdlib.zip" else name.encode()
            info = tarfile.TarInfo(f"package/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    body = tar.getvalue()
    import base64

    integrity = "sha512-" + base64.b64encode(hashlib.sha512(body).digest()).decode()
    monkeypatch.setattr(runtime, "INTEGRITY", integrity)
    runtime.unpack(body, tmp_path / "rt")
    assert runtime.installed(tmp_path / "rt")
    for name in runtime.FILES:
        kept = (tmp_path / "rt" / name).read_bytes()
        assert gzip.decompress((tmp_path / "rt" / f"{name}.gz").read_bytes()) == kept
    with zipfile.ZipFile(tmp_path / "rt" / "python_stdlib.zip") as z:
        assert sorted(z.namelist()) == ["json/__init__.py", "random.py"]


def test_the_package_holds_the_engine_and_nothing_of_the_server() -> None:
    digest, data = runtime.package_archive()
    assert digest == hashlib.sha256(data).hexdigest()[:16]
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert "jielong/engine/rules/core.py" in names
    assert "jielong/play/worker.py" in names and "jielong/session/__init__.py" in names
    assert "jielong/session/game.py" in names and "jielong/session/history.py" in names
    assert "jielong/engine/data/unsolvable-freecell.txt" in names
    assert "jielong/web/i18n/api.en.json" in names
    assert not [n for n in names if "/store/" in n or "/routes/" in n or "_native_" in n]
    assert not [n for n in names if n.endswith(".so") or "__pycache__" in n]
    assert not [n for n in names if n.startswith("jielong/web/i18n/ui.")]


def test_the_manifest_names_the_current_files(client: TestClient) -> None:
    r = client.get("/engine/manifest.json")
    assert r.status_code == 200 and r.headers["cache-control"] == "no-cache"
    body = r.json()
    digest, data = runtime.package_archive()
    assert body["package"] == f"/engine/package-{digest}.zip"
    assert body["available"] == runtime.installed()
    got = client.get(body["package"])
    assert got.status_code == 200 and got.content == data
    assert "immutable" in got.headers["cache-control"]
    assert client.get("/engine/package-0000000000000000.zip").status_code == 404


@pytest.mark.skipif(not runtime.installed(), reason="the engine runtime is not installed")
def test_the_runtime_goes_out_compressed(client: TestClient) -> None:
    base = client.get("/engine/manifest.json").json()["runtime"]
    r = client.get(base + "pyodide.asm.wasm", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200 and r.headers["content-type"] == "application/wasm"
    assert r.headers["content-encoding"] == "gzip"
    assert r.content[:4] == b"\0asm"  # the client undid the compression
    assert client.get(base + "console.html").status_code == 404
    assert client.get("/engine/runtime/0.0.1/pyodide.mjs").status_code == 404
