// The account in every page's top bar: "Sign in" for a guest (a dialog that also creates an account); for a
// signed-in player their name, a menu of Profile, Account (change the password, sign out everywhere, delete the
// account) and Sign out.  Dialogs are <dialog> elements: focus stays inside, Escape closes, Enter submits.
//
// mountAccount(nav) after initLanguage(): adds the account to the top bar's `nav` (the last item).

import { api } from "./api.js";
import { h, clear } from "./dom.js";
import { errorMessage, language, t, tn } from "./i18n.js";
import { account, loadSession, onSession, setSession } from "./session.js";

/** The server's name and password rules (accounts.py), checked before asking so the player reads them in their language. */
export const NAME_MIN = 2;
export const NAME_MAX = 30;
const NAME_FORBIDDEN = /[/\\:?#%&<>"'`]/;
export const PASSWORD_MIN = 8;
const PASSWORD_MAX = 200;

/** /player/NAME, the profile page of an account. */
export function profileUrl(name) {
  return `/player/${encodeURIComponent(name)}`;
}

/** "in 42 seconds" / "in 15 minutes": how long a 429 asks to wait. */
export function waitText(seconds) {
  const s = Math.max(1, Math.ceil(Number(seconds) || 0));
  if (s < 90) return t("account.waitSeconds", { n: s });
  return t("account.waitMinutes", { n: Math.ceil(s / 60) });
}

/** An account request's failure in the player's words (the server's own words kept where they add something). */
export function accountError(err, mode) {
  const status = err && err.status;
  if (status === 401) return mode === "signin" ? t("account.err.wrong") : t("account.err.wrongPassword");
  if (status === 429) {
    if (mode === "signup") return err.retryAfter ? t("account.err.tooManySignups", { wait: waitText(err.retryAfter) }) : t("account.err.tooManySignupsNow");
    return err.retryAfter ? t("account.err.tooMany", { wait: waitText(err.retryAfter) }) : t("account.err.tooManyNow");
  }
  if (status === 409) return t("account.err.taken");
  if (status === 403 && mode === "signin") return t("account.err.disabled");
  return errorMessage(err);
}

/** The name and password rules, checked here first: a translated message, or null when they hold. */
export function ruleError(name, password, forSignup) {
  const n = name.trim();
  if (!n) return t("account.err.noName");
  if (!password) return t("account.err.noPassword");
  if (!forSignup) return null;
  if (n.length < NAME_MIN || n.length > NAME_MAX) return t("account.err.nameLength", { min: NAME_MIN, max: NAME_MAX });
  if (NAME_FORBIDDEN.test(n)) return t("account.err.nameChars", { chars: "/ \\ : ? # % & < > \" ' `" });
  return passwordError(password, n);
}

function passwordError(password, name) {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) return t("account.err.passwordLength", { min: PASSWORD_MIN });
  if (name && password.trim().toLowerCase() === name.trim().toLowerCase()) return t("account.err.passwordIsName");
  return null;
}

function field(label, input, hint) {
  const id = input.id;
  return h("div", { class: "acc-field" },
    h("label", { for: id, text: label }),
    input,
    hint ? h("p", { class: "acc-hint muted", id: `${id}-hint`, text: hint }) : null);
}

function dialogShell(id, titleKey) {
  const title = h("h2", { id: `${id}-title`, text: t(titleKey) });
  const close = h("button", { type: "button", class: "acc-close", "aria-label": t("account.close"), title: t("account.close"), text: "×" });
  const body = h("div", { class: "acc-body" });
  const dialog = h("dialog", { id, class: "account-dialog", "aria-labelledby": `${id}-title` },
    h("div", { class: "acc-head" }, title, close), body);
  close.addEventListener("click", () => dialog.close());
  // A click on the backdrop (outside the dialog's box) closes it too.
  dialog.addEventListener("click", (ev) => {
    if (ev.target !== dialog) return;
    const r = dialog.getBoundingClientRect();
    if (ev.clientX < r.left || ev.clientX > r.right || ev.clientY < r.top || ev.clientY > r.bottom) dialog.close();
  });
  document.body.append(dialog);
  return { dialog, title, body };
}

function busy(button, on) {
  button.disabled = on;
  button.setAttribute("aria-busy", on ? "true" : "false");
}

// ------------------------------------------------------------------ sign in / create an account

let signinDialog = null;

/** The sign-in dialog; mode "signin" or "signup". */
export function openSignIn(mode = "signin") {
  if (!signinDialog) signinDialog = buildSignIn();
  signinDialog.show(mode);
}

function buildSignIn() {
  const { dialog, title, body } = dialogShell("signin-dialog", "account.signIn");
  let mode = "signin";
  const name = h("input", { id: "acc-name", name: "username", type: "text", autocomplete: "username", required: true, maxlength: 60, autocapitalize: "none", spellcheck: "false" });
  const password = h("input", { id: "acc-password", name: "password", type: "password", required: true, maxlength: 200 });
  const again = h("input", { id: "acc-password2", name: "password2", type: "password", autocomplete: "new-password", maxlength: 200 });
  const nameRow = field(t("account.name"), name, t("account.nameRules", { min: NAME_MIN, max: NAME_MAX }));
  const passRow = field(t("account.password"), password, t("account.passwordRules", { min: PASSWORD_MIN }));
  const againRow = field(t("account.passwordAgain"), again);
  const error = h("p", { id: "acc-error", class: "error acc-error", role: "alert", hidden: true });
  const submit = h("button", { type: "submit", id: "acc-submit", class: "primary" });
  const intro = h("p", { class: "acc-intro muted" });
  const switchText = h("span", { class: "muted" });
  const switchBtn = h("button", { type: "button", id: "acc-switch", class: "link-btn" });
  const form = h("form", { id: "signin-form", class: "acc-form", novalidate: true },
    intro, nameRow, passRow, againRow, error, h("div", { class: "acc-actions" }, submit),
    h("p", { class: "acc-switch" }, switchText, " ", switchBtn));
  body.append(form);

  function setMode(m) {
    mode = m;
    const up = m === "signup";
    title.textContent = t(up ? "account.createTitle" : "account.signIn");
    submit.textContent = t(up ? "account.create" : "account.signIn");
    intro.textContent = t(up ? "account.createIntro" : "account.signInIntro");
    switchText.textContent = t(up ? "account.haveAccount" : "account.noAccount");
    switchBtn.textContent = t(up ? "account.signIn" : "account.createLink");
    password.setAttribute("autocomplete", up ? "new-password" : "current-password");
    for (const row of [nameRow, passRow]) row.querySelector(".acc-hint").hidden = !up;
    for (const input of [name, password]) {
      if (up) input.setAttribute("aria-describedby", `${input.id}-hint`);
      else input.removeAttribute("aria-describedby");
    }
    againRow.hidden = !up;
    again.required = up;
    error.hidden = true;
    dialog.dataset.mode = m;
  }
  switchBtn.addEventListener("click", () => {
    setMode(mode === "signup" ? "signin" : "signup");
    (name.value ? password : name).focus();
  });

  function fail(text) {
    error.textContent = text;
    error.hidden = false;
  }
  // What was wrong is gone once the player changes what they typed.
  form.addEventListener("input", () => {
    error.hidden = true;
  });

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const up = mode === "signup";
    const problem = ruleError(name.value, password.value, up) || (up && again.value !== password.value ? t("account.err.mismatch") : null);
    if (problem) {
      fail(problem);
      return;
    }
    error.hidden = true;
    busy(submit, true);
    try {
      const data = up ? await api.signUp(name.value.trim(), password.value) : await api.signIn(name.value.trim(), password.value);
      setSession(data);
      password.value = "";
      again.value = "";
      dialog.close();
    } catch (err) {
      fail(accountError(err, mode));
      password.select();
    } finally {
      busy(submit, false);
    }
  });

  return {
    show(m) {
      setMode(m);
      if (!dialog.open) dialog.showModal();
      name.focus();
    },
  };
}

// ------------------------------------------------------------------ the account dialog

let accountDialog = null;

export function openAccount() {
  if (!accountDialog) accountDialog = buildAccount();
  accountDialog.show();
}

function buildAccount() {
  const { dialog, title, body } = dialogShell("account-dialog", "account.settings");

  // Change the password.
  const old = h("input", { id: "acc-old", type: "password", autocomplete: "current-password", required: true, maxlength: 200 });
  const fresh = h("input", { id: "acc-new", type: "password", autocomplete: "new-password", required: true, maxlength: 200 });
  const fresh2 = h("input", { id: "acc-new2", type: "password", autocomplete: "new-password", required: true, maxlength: 200 });
  const pwMsg = h("p", { id: "acc-pw-msg", role: "status", hidden: true });
  const pwBtn = h("button", { type: "submit", id: "acc-pw-btn", class: "primary", text: t("account.changePassword") });
  // A hidden name field tells password managers which account the new password belongs to.
  const user = h("input", { type: "text", autocomplete: "username", class: "visually-hidden", tabindex: "-1", "aria-hidden": "true", readonly: true });
  const pwForm = h("form", { id: "password-form", class: "acc-form", novalidate: true },
    h("h3", { text: t("account.changePassword") }), user,
    field(t("account.oldPassword"), old), field(t("account.newPassword"), fresh, t("account.passwordRules", { min: PASSWORD_MIN })),
    field(t("account.passwordAgain"), fresh2), pwMsg, h("div", { class: "acc-actions" }, pwBtn));

  // E-mail notices (docs/api.md, "E-mail notices").
  const emailState = h("p", { id: "acc-email-state", class: "muted" });
  const emailInput = h("input", { id: "acc-email", type: "email", autocomplete: "email", maxlength: 254, required: true });
  const emailBtn = h("button", { type: "submit", id: "acc-email-btn", class: "primary", text: t("account.emailSave") });
  const emailRemove = h("button", { type: "button", id: "acc-email-remove", text: t("account.emailRemove"), hidden: true });
  const notices = h("input", { id: "acc-notices", type: "checkbox" });
  const noticesRow = h("label", { class: "acc-check", for: "acc-notices" }, notices, h("span", { text: t("account.emailNotices") }));
  const emailMsg = h("p", { id: "acc-email-msg", role: "status", hidden: true });
  const emailFields = h("div", { class: "acc-email-fields" }, field(t("account.emailAddress"), emailInput), noticesRow);
  const emailForm = h("form", { id: "email-form", class: "acc-form", novalidate: true },
    h("h3", { text: t("account.email") }), h("p", { class: "muted", text: t("account.emailIntro") }), emailState,
    emailFields, emailMsg, h("div", { class: "acc-actions" }, emailRemove, emailBtn));

  // Sessions.
  const sessionsText = h("p", { id: "acc-sessions", class: "muted" });
  const everywhere = h("button", { type: "button", id: "acc-everywhere", text: t("account.signOutEverywhere") });
  const sessMsg = h("p", { class: "error", role: "alert", hidden: true });
  const sessBox = h("section", { class: "acc-section" }, h("h3", { text: t("account.sessions") }), sessionsText, sessMsg, h("div", { class: "acc-actions" }, everywhere));

  // Delete.
  const delPass = h("input", { id: "acc-del-password", type: "password", autocomplete: "current-password", required: true, maxlength: 200 });
  const delMsg = h("p", { id: "acc-del-msg", class: "error", role: "alert", hidden: true });
  const delBtn = h("button", { type: "submit", id: "acc-del-btn", class: "danger", text: t("account.deleteButton") });
  const delForm = h("form", { id: "delete-form", class: "acc-form acc-danger", novalidate: true },
    h("h3", { text: t("account.delete") }),
    h("p", { class: "acc-warning", text: t("account.deleteWarning") }),
    field(t("account.passwordConfirm"), delPass), delMsg, h("div", { class: "acc-actions" }, delBtn));

  body.append(pwForm, emailForm, sessBox, delForm);

  function say(el, text, isError) {
    el.textContent = text;
    el.className = isError ? "error" : "ok-msg";
    el.hidden = false;
  }

  pwForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const me = account();
    if (!old.value) return say(pwMsg, t("account.err.noPassword"), true);
    const problem = passwordError(fresh.value, me ? me.name : "") || (fresh.value !== fresh2.value ? t("account.err.mismatch") : null);
    if (problem) return say(pwMsg, problem, true);
    busy(pwBtn, true);
    try {
      setSession(await api.changePassword(old.value, fresh.value));
      old.value = fresh.value = fresh2.value = "";
      say(pwMsg, t("account.passwordChanged"), false);
      loadSessions();
    } catch (err) {
      say(pwMsg, accountError(err, "password"), true);
    } finally {
      busy(pwBtn, false);
    }
    return undefined;
  });

  everywhere.addEventListener("click", async () => {
    busy(everywhere, true);
    try {
      await api.signOutEverywhere();
      setSession(null);
      dialog.close();
    } catch (err) {
      say(sessMsg, accountError(err, "session"), true);
    } finally {
      busy(everywhere, false);
    }
  });

  delForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (!delPass.value) return say(delMsg, t("account.err.noPassword"), true);
    busy(delBtn, true);
    try {
      await api.deleteAccount(delPass.value);
      delPass.value = "";
      setSession(null);
      dialog.close();
    } catch (err) {
      say(delMsg, accountError(err, "delete"), true);
    } finally {
      busy(delBtn, false);
    }
    return undefined;
  });

  function showEmail(data) {
    const on = Boolean(data && data.enabled);
    emailFields.hidden = emailBtn.hidden = !on;
    emailRemove.hidden = !on || !data.email;
    if (!on) emailState.textContent = t("account.emailOff");
    else if (!data.email) emailState.textContent = t("account.emailNone");
    else emailState.textContent = t(data.verified ? "account.emailVerified" : "account.emailUnverified", { email: data.email });
    emailState.dataset.state = !on ? "off" : !data.email ? "none" : data.verified ? "verified" : "unverified";
    if (on && data.email && document.activeElement !== emailInput) emailInput.value = data.email;
    notices.checked = Boolean(data && data.notices);
  }

  function emailError(err) {
    if (err && err.status === 400) return t("account.err.email");
    if (err && err.status === 429) return t("account.err.tooManyEmails");
    return errorMessage(err);
  }

  emailForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const value = emailInput.value.trim();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) return say(emailMsg, t("account.err.email"), true);
    busy(emailBtn, true);
    try {
      const data = await api.setEmail(value, language());
      showEmail(data);
      say(emailMsg, data.verified ? t("account.emailVerified", { email: data.email }) : t("account.emailSent", { email: data.email }), false);
    } catch (err) {
      say(emailMsg, emailError(err), true);
    } finally {
      busy(emailBtn, false);
    }
    return undefined;
  });

  emailRemove.addEventListener("click", async () => {
    busy(emailRemove, true);
    try {
      showEmail(await api.removeEmail());
      emailInput.value = "";
      say(emailMsg, t("account.emailRemoved"), false);
    } catch (err) {
      say(emailMsg, emailError(err), true);
    } finally {
      busy(emailRemove, false);
    }
  });

  notices.addEventListener("change", async () => {
    notices.disabled = true;
    try {
      showEmail(await api.setNotices(notices.checked));
      emailMsg.hidden = true;
    } catch (err) {
      notices.checked = !notices.checked;
      say(emailMsg, emailError(err), true);
    } finally {
      notices.disabled = false;
    }
  });

  async function loadEmail() {
    emailState.textContent = t("common.loading");
    try {
      showEmail(await api.email());
    } catch (err) {
      emailState.textContent = errorMessage(err);
    }
  }

  async function loadSessions() {
    sessionsText.textContent = t("common.loading");
    try {
      const data = await api.sessions();
      sessionsText.textContent = tnSessions((data.sessions || []).length);
    } catch (err) {
      sessionsText.textContent = errorMessage(err);
    }
  }

  return {
    show() {
      const me = account();
      title.textContent = me ? t("account.settingsOf", { name: me.name }) : t("account.settings");
      user.value = me ? me.name : "";
      for (const el of [pwMsg, emailMsg, sessMsg, delMsg]) el.hidden = true;
      if (!dialog.open) dialog.showModal();
      old.focus();
      loadSessions();
      loadEmail();
    },
  };
}

function tnSessions(n) {
  return tn("account.sessionsCount", n);
}

// ------------------------------------------------------------------ the top bar

/** The account's place in the top bar: a "Sign in" button, or the player's name opening a menu. */
export function mountAccount(nav) {
  const slot = h("div", { class: "account-slot", id: "account-slot" });
  nav.append(slot);
  const render = (me) => {
    clear(slot);
    slot.dataset.state = me ? "in" : "out";
    if (!me) {
      slot.append(h("button", { type: "button", id: "signin-btn", class: "account-btn", text: t("account.signIn"), onclick: () => openSignIn("signin") }));
      return;
    }
    slot.append(...accountMenu(me));
  };
  onSession(render);
  loadSession().then(render);
  return slot;
}

function accountMenu(me) {
  const button = h("button", { type: "button", id: "account-btn", class: "account-btn signed-in", "aria-haspopup": "menu", "aria-expanded": "false", "aria-controls": "account-menu", title: t("account.signedInAs", { name: me.name }) },
    h("span", { class: "acc-icon", "aria-hidden": "true" }), h("span", { class: "acc-name", text: me.name }));
  const items = [
    h("a", { role: "menuitem", id: "menu-profile", href: profileUrl(me.name), text: t("account.profile") }),
    h("button", { type: "button", role: "menuitem", id: "menu-account", text: t("account.settings") }),
    h("button", { type: "button", role: "menuitem", id: "menu-signout", text: t("account.signOut") }),
  ];
  const menu = h("div", { id: "account-menu", class: "account-menu", role: "menu", "aria-labelledby": "account-btn", hidden: true }, ...items);
  const open = (focusFirst) => {
    menu.hidden = false;
    button.setAttribute("aria-expanded", "true");
    if (focusFirst) items[0].focus();
  };
  const close = (focusButton) => {
    menu.hidden = true;
    button.setAttribute("aria-expanded", "false");
    if (focusButton) button.focus();
  };
  button.addEventListener("click", () => (menu.hidden ? open(false) : close(false)));
  button.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowDown") {
      ev.preventDefault();
      open(true);
    }
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && !menu.hidden) {
      ev.preventDefault();
      close(true);
    }
  });
  menu.addEventListener("keydown", (ev) => {
    const i = items.indexOf(document.activeElement);
    if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      ev.preventDefault();
      items[(i + (ev.key === "ArrowDown" ? 1 : items.length - 1)) % items.length].focus();
    } else if (ev.key === "Tab") close(false);
  });
  document.addEventListener("click", (ev) => {
    if (!menu.hidden && !menu.contains(ev.target) && !button.contains(ev.target)) close(false);
  });
  items[1].addEventListener("click", () => {
    close(false);
    openAccount();
  });
  items[2].addEventListener("click", async () => {
    close(false);
    try {
      await api.signOut();
      setSession(null);
    } catch {
      // Whatever went wrong, show what the server says now: signed out, or still signed in.
      setSession(await api.account().catch(() => null));
    }
  });
  return [button, menu];
}
