// Small helpers every page uses: building elements and asking the API.

/** An element with attributes (`class`, `data-*`, `title`, ...) and children (elements or text). */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== null && value !== undefined && value !== false) node.setAttribute(name, value);
  }
  node.append(...children.flat().filter((child) => child !== null && child !== undefined));
  return node;
}

/** GET a path of the API as JSON; a refusal throws an Error carrying the API's reason and message. */
export async function getJson(path, token = null) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  return answered(await fetch(path, { headers }));
}

/** POST a JSON body to a path of the API, answered as getJson's. */
export async function postJson(path, body, token = null) {
  const headers = { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) };
  return answered(await fetch(path, { method: "POST", headers, body: JSON.stringify(body) }));
}

async function answered(response) {
  const body = await response.json();
  if (!response.ok) {
    const error = new Error(`${body.reason}: ${body.message}`);
    error.status = response.status;
    throw error;
  }
  return body;
}

export function showError(error) {
  const box = document.getElementById("error");
  box.textContent = error ? String(error.message || error) : "";
  box.hidden = !error;
}

export function seatName(seat) {
  return seat.name || (seat.bot ? `bot ${seat.bot}` : seat.open ? "open seat" : "?");
}

/** A rating's number as the tables show it. */
export const fixed = (value, digits = 2) => value.toFixed(digits);

/** An API time (ISO 8601 UTC) as "YYYY-MM-DD HH:MM:SS". */
export const when = (time) => time.replace("T", " ").slice(0, 19);
