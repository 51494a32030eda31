"""The engine the browser's worker runs: the Python runtime (Pyodide, served
by the site itself) and the project's own package, under ``/engine/``.

Every address but the manifest names a version or a digest, so each file
is cached for good; the manifest says which are current (or that the
runtime is not installed, and the page asks the server for everything).
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import FileResponse, JSONResponse

from jielong.web.errors import ApiError
from jielong.web.services import runtime

router = APIRouter(prefix="/engine", include_in_schema=False)

FOREVER = "public, max-age=31536000, immutable"
_TYPES = {
    ".mjs": "text/javascript",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".json": "application/json",
}


@router.get("/manifest.json")
def manifest() -> JSONResponse:
    installed = runtime.installed()
    digest, _ = runtime.package_archive()
    body = {
        "available": installed,
        "runtime": f"/engine/runtime/{runtime.VERSION}/" if installed else None,
        "version": runtime.VERSION,
        "package": f"/engine/package-{digest}.zip",
        "digest": digest,
        "files": list(runtime.FILES),
    }
    return JSONResponse(body, headers={"Cache-Control": "no-cache"})


@router.get("/package-{digest}.zip")
def package(digest: str) -> Response:
    current, data = runtime.package_archive()
    if digest != current:
        raise ApiError(404, "not_found")
    return Response(data, media_type="application/zip", headers={"Cache-Control": FOREVER})


@router.get("/runtime/{version}/{name}")
def runtime_file(version: str, name: str, request: Request) -> Response:
    if version != runtime.VERSION or name not in runtime.FILES or not runtime.installed():
        raise ApiError(404, "not_found")
    folder = runtime.runtime_dir()
    media = _TYPES.get("." + name.rpartition(".")[2], "application/octet-stream")
    headers = {"Cache-Control": FOREVER, "Vary": "Accept-Encoding"}
    if "gzip" in request.headers.get("accept-encoding", ""):
        headers["Content-Encoding"] = "gzip"
        return FileResponse(folder / f"{name}.gz", media_type=media, headers=headers)
    return FileResponse(folder / name, media_type=media, headers=headers)
