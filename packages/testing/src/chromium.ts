import { existsSync } from "node:fs";

/**
 * The Chromium the browser tests drive through playwright-core: `VANTAGE_CHROMIUM` when set, else Debian's
 * old headless shell (`chromium-headless-shell`, what playwright itself runs headless), else Debian's
 * `chromium`. The shell renders with the same Blink without the browser's own interface: a page (its
 * renderer, its load, the second after it) cost about 0.8 s of CPU in it against 3.8 s in `chromium`
 * (docs/benchmarks.md). `scripts/ensure-tools.sh --test` installs the shell.
 */
export function chromiumPath(): string {
  const candidates = [
    process.env.VANTAGE_CHROMIUM,
    "/usr/lib/chromium/chromium-headless-shell",
    "/usr/bin/chromium-headless-shell",
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
  ];
  const found = candidates.find((p): p is string => !!p && existsSync(p));
  if (!found) {
    throw new Error(
      "no Chromium: run `bash scripts/ensure-tools.sh --test` (installs Debian's chromium-headless-shell) or set VANTAGE_CHROMIUM",
    );
  }
  return found;
}
