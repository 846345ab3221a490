import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ApiError } from "./api.js";
import { errorSentence } from "./error-messages.js";
import { messages } from "./i18n.js";

const t = messages({
  en: { loading: "Loading…", retry: "Try again", error: "Error", technical: "Technical details" },
  cn: { loading: "加载中…", retry: "重试", error: "错误", technical: "技术细节" },
  tw: { loading: "載入中…", retry: "重試", error: "錯誤", technical: "技術細節" },
});

/**
 * An API error as the user reads it: a sentence for its code in the current locale; the API's own message
 * and code folded away under "Technical details" (for a bug report, not for reading).
 */
export function ErrorBox({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (!error) return null;
  const e = error instanceof ApiError ? error : undefined;
  return (
    <div class="error" role="alert">
      <strong>{t("error")}</strong> {errorSentence(error)}
      {onRetry ? (
        <button type="button" class="link" onClick={onRetry}>
          {t("retry")}
        </button>
      ) : null}
      {e && e.code !== "network" ? (
        <details class="muted" data-testid="error-technical">
          <summary>{t("technical")}</summary>
          {e.message} <code class="code">{e.code}</code>
        </details>
      ) : null}
    </div>
  );
}

export function Loading() {
  return (
    <p class="muted" aria-busy="true">
      {t("loading")}
    </p>
  );
}

/** Runs `load` on mount and when `deps` change; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [n, setN] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, n]);
  return { ...state, reload: () => setN((x) => x + 1) };
}

export function Card({
  title,
  children,
  actions,
}: {
  title?: ComponentChildren;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) {
  return (
    <section class="card">
      {title || actions ? (
        <header class="card-head">
          {title ? <h2>{title}</h2> : <span />}
          {actions}
        </header>
      ) : null}
      {children}
    </section>
  );
}

/**
 * A table in its horizontal scroll box, one column heading per `heads` entry, `children` the body rows.
 * `cards`: at phone width each row becomes a card (its cells then need a `data-label`).
 */
export function DataTable({
  heads,
  label,
  cards,
  children,
}: {
  heads: string[];
  label?: string;
  cards?: boolean;
  children: ComponentChildren;
}) {
  return (
    <div class="table-wrap">
      <table class={cards ? "cards" : undefined} aria-label={label}>
        <thead>
          <tr>
            {heads.map((h) => (
              <th key={h} scope="col">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A country's flag from its ISO 3166-1 alpha-2 code (regional indicator letters); "" when not a code. */
export function flag(country: string | null | undefined): string {
  if (!country || !/^[A-Za-z]{2}$/.test(country)) return "";
  const base = 0x1f1e6 - 65;
  const up = country.toUpperCase();
  return String.fromCodePoint(base + up.charCodeAt(0), base + up.charCodeAt(1));
}

export function StatusDot({ ok, label }: { ok: boolean | null; label: string }) {
  return (
    <span class={`dot ${ok === null ? "dot-unknown" : ok ? "dot-ok" : "dot-bad"}`} title={label}>
      <span class="sr-only">{label}</span>
    </span>
  );
}
