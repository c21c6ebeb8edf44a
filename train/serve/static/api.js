// Talking to the server: JSON in, JSON out; an error answer's `detail` becomes the Error's message.

export async function api(path, { method = "GET", body = undefined, raw = undefined } = {}) {
  const payload = raw !== undefined ? raw : body === undefined ? undefined : JSON.stringify(body);
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: payload === undefined ? {} : { "Content-Type": "application/json" },
      body: payload,
    });
  } catch (err) {
    throw new Error(`the server cannot be reached (${err.message})`);
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    throw new Error(detailText(data) || `${method} ${path} failed: HTTP ${response.status}`);
  }
  return data;
}

/** FastAPI's `detail`: a string, or (validation errors) a list of {loc, msg}. */
function detailText(data) {
  if (!data || data.detail === undefined) return null;
  const { detail } = data;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail.map((d) => (d.loc ? `${d.loc.filter((p) => p !== "body").join(".")}: ${d.msg}` : d.msg)).join("; ");
  }
  return JSON.stringify(detail);
}

/** Show an error line in the page's alert region (and clear it with null). */
export function showError(message) {
  const box = document.getElementById("error");
  const text = document.getElementById("error-text");
  text.textContent = message || "";
  box.hidden = !message;
}
