import { type ComponentChildren, Fragment } from "preact";

/** A two-column list of labelled values; rows whose value is null, undefined or "" are left out. */
export function Facts({ rows }: { rows: [string, ComponentChildren][] }) {
  const shown = rows.filter(([, v]) => v !== null && v !== undefined && v !== "" && v !== false);
  return (
    <dl class="facts">
      {shown.map(([k, v]) => (
        <Fragment key={k}>
          <dt class="muted">{k}</dt>
          <dd>{v}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

/** A large label: an SSL grade, a reputation score. */
export function Badge(props: {
  tone: "ok" | "warn" | "bad" | "muted";
  children: ComponentChildren;
  label: string;
}) {
  return (
    <div role="img" aria-label={props.label} data-testid="badge" class={`badge ${props.tone}`}>
      {props.children}
    </div>
  );
}
