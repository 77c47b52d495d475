// The signed-in account of this browser, if any (docs/api.md, "Accounts"): asked for once per page
// (GET /api/account); the session itself is an HttpOnly cookie the page never sees.  Its CSRF token goes to
// api.js, which sends it with every request that changes something.  A guest (no account) changes nothing:
// seat links work exactly as before.

import { api, csrf } from "./api.js";

let current = null; // {id, name} or null
const listeners = new Set();

function apply(data) {
  current = data && data.account ? data.account : null;
  csrf.token = current && data.csrf ? data.csrf : null;
  for (const fn of listeners) fn(current);
}

let loading = null;

/** The signed-in account ({id, name}) or null; the first call asks the server, later ones reuse its answer. */
export function loadSession() {
  if (!loading) {
    loading = api.account().then(apply, () => apply(null)).then(() => current);
    csrf.ready = loading;
  }
  return loading;
}

/** The account now known (null before loadSession settles, or for a guest). */
export function account() {
  return current;
}

/** After sign-up, sign-in or a password change: the server's {account, csrf}; after sign-out: null. */
export function setSession(data) {
  apply(data);
}

/** Call fn(account | null) whenever the session changes. */
export function onSession(fn) {
  listeners.add(fn);
}

// Every page that shows the account asks at once, before its first request that changes something.
loadSession();
