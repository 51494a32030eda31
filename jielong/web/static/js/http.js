// The one way the page asks the server: every answer comes back as
// {status, body}; only a network failure (or an abort) throws.
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
