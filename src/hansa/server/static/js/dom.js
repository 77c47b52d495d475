// Tiny DOM helpers.  User-supplied text (player names, moves, errors) is only ever inserted with
// textContent / text nodes: nothing here parses HTML.
// The pages' Content-Security-Policy forbids inline styles: a style="..." attribute is refused by the browser,
// so styles are given as objects and set property by property (CSSOM), which the policy allows.

const SVG_NS = "http://www.w3.org/2000/svg";

function applyAttrs(el, attrs, isSvg) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") el.textContent = String(value);
    else if (key === "class") el.setAttribute("class", value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style") {
      if (typeof value !== "object") throw new TypeError("style must be an object of properties (CSP: no style attributes)");
      for (const [p, v] of Object.entries(value)) el.style.setProperty(p, v);
    } else if (key.startsWith("on")) {
      // Inline handler attributes (onclick="...") are refused by the CSP as well: functions only.
      if (typeof value !== "function") throw new TypeError(`${key} must be a function (CSP: no inline handlers)`);
      el.addEventListener(key.slice(2), value);
    } else if (!isSvg && key in el && typeof value !== "string") el[key] = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** h("div", {class: "x", text: "safe"}, child, "text child", ...) */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  applyAttrs(el, attrs, false);
  append(el, children);
  return el;
}

/** The same for SVG elements. */
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  applyAttrs(el, attrs, true);
  append(el, children);
  return el;
}

/** el.append(...children), skipping null / undefined / false (Element.append would write them as text). */
export function put(el, ...children) {
  append(el, children);
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function $(sel, root = document) {
  return root.querySelector(sel);
}

/** Copy text to the clipboard (falls back to a hidden textarea). */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = h("textarea", { style: { position: "fixed", left: "-1000px" } });
    ta.value = text;
    document.body.append(ta);
    ta.select();
    let ok = false;
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    ta.remove();
    return ok;
  }
}

/** Absolute URL for a server path like "/game/x#token=y". */
export function absUrl(path) {
  return new URL(path, location.origin).href;
}

/** Dark symbols where they contrast more than white ones (WCAG relative luminance): yellow, green, teal. */
export function isLight(hex) {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex || "");
  if (!m) return false;
  const [r, g, b] = m.slice(1).map((x) => {
    const v = parseInt(x, 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  const lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return (lum + 0.05) / 0.05 > 1.05 / (lum + 0.05);
}
