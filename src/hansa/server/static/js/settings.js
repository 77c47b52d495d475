// The player's table settings, kept in this browser: the pace at which others' moves are played back,
// colour-blind mode (a symbol on every piece), and whether ending a turn with actions left asks first.

const KEY = "hansa.settings";
const DEFAULTS = { pace: "normal", colourBlind: false, confirmEnd: true };

export function loadSettings() {
  try {
    return { ...DEFAULTS, ...JSON.parse(localStorage.getItem(KEY) || "{}") };
  } catch {
    return { ...DEFAULTS };
  }
}

export function saveSettings(settings) {
  try {
    localStorage.setItem(KEY, JSON.stringify(settings));
  } catch {
    /* private mode: the settings last as long as the page */
  }
}
