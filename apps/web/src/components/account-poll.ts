import { useEffect, useRef, useState } from "preact/hooks";

/**
 * Loads on mount, when `deps` change, and again every `everyMs` while the page is visible, keeping the
 * last data on screen while a refresh runs (no flicker); `refresh` loads at once.
 */
export function usePoll<T>(load: () => Promise<T>, everyMs: number, deps: unknown[] = []) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [n, setN] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      if (!document.hidden) {
        try {
          const data = await loadRef.current();
          if (live) setState({ data, loading: false });
        } catch (error) {
          if (live) setState((s) => ({ ...s, error, loading: false }));
        }
      }
      if (live) timer = setTimeout(run, everyMs);
    };
    setState((s) => ({ ...s, loading: true }));
    run();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [...deps, n, everyMs]);
  return { ...state, refresh: () => setN((x) => x + 1) };
}
