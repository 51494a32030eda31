// Thin fetch wrapper: every answer comes back as {status, body}; only a
// network failure (or an abort) throws.
export async function call(method, path, data, signal) {
  const init = { method, headers: { Accept: "application/json" }, credentials: "same-origin", signal };
  if (data !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(data);
  }
  const response = await fetch(path, init);
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  return { status: response.status, body };
}

export const api = {
  create: (data) => call("POST", "/api/games", data),
  get: (id) => call("GET", `/api/games/${encodeURIComponent(id)}`),
  act: (id, data) => call("POST", `/api/games/${encodeURIComponent(id)}/actions`, data),
  clock: (id, running) => call("POST", `/api/games/${encodeURIComponent(id)}/clock`, { running }),
  hint: (id, version, signal) =>
    call("POST", `/api/games/${encodeURIComponent(id)}/hint`, { version }, signal),
  deals: (variant, start, count) => call("GET", `/api/deals/${variant}?start=${start}&count=${count}`),
};
