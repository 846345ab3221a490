import { useEffect, useState } from "preact/hooks";
import { ApiError, call, onSessionChange, session } from "../api.js";
import { messages } from "../i18n.js";
import { ApiErrorBox } from "./api-error.js";

const t = messages({
  en: {
    share: "Share",
    sharing: "Publishing…",
    shared: "Public link (no sign-in needed)",
    copy: "Copy public link",
    copied: "Copied",
    failed: "Copy failed: select the link",
    revoke: "Revoke",
    revoked: "The public link is revoked: it answers “not found” now.",
    notOwner: "Only the account that ran this task can share it.",
  },
  cn: {
    share: "分享",
    sharing: "正在发布…",
    shared: "公开链接（无需登录）",
    copy: "复制公开链接",
    copied: "已复制",
    failed: "复制失败：请手动选择链接",
    revoke: "撤销",
    revoked: "公开链接已撤销：现在打开会显示“未找到”。",
    notOwner: "只有运行此任务的账户才能分享它。",
  },
  tw: {
    share: "分享",
    sharing: "正在發布…",
    shared: "公開連結（無需登入）",
    copy: "複製公開連結",
    copied: "已複製",
    failed: "複製失敗：請手動選取連結",
    revoke: "撤銷",
    revoked: "公開連結已撤銷：現在開啟會顯示「找不到」。",
    notOwner: "只有執行此任務的帳戶才能分享它。",
  },
});

interface ShareView {
  share_id: string;
  url: string;
}

interface ShareState {
  shareable: boolean;
  share: ShareView | null;
}

/**
 * For a signed-in owner of a finished task: "Share" publishes it (`POST /v1/probe/tasks/{id}/share`) as a
 * public, read-only link, shown with a copy button and "Revoke" (`DELETE`), after which the link answers
 * 404. Whether the signed-in user owns the task, and its live link if it has one, come from
 * `GET /v1/probe/tasks/{id}/share` first: nothing shows for anyone else's task (an anonymous one), nor
 * signed out, nor while that answer is not in.
 */
export function SharePublish({ taskId }: { taskId: string }) {
  const [signedIn, setSignedIn] = useState(session.token !== null);
  const [shareable, setShareable] = useState(false);
  const [share, setShare] = useState<ShareView | null>(null);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState("");
  const [error, setError] = useState<unknown>(null);
  useEffect(() => onSessionChange(() => setSignedIn(session.token !== null)), []);
  const path = `/v1/probe/tasks/${encodeURIComponent(taskId)}/share`;
  useEffect(() => {
    setShareable(false);
    setShare(null);
    if (!signedIn) return;
    let current = true;
    call<ShareState>("GET", path).then(
      (state) => {
        if (!current) return;
        setShareable(state.shareable);
        setShare(state.share);
      },
      // Not this user's to share (or the server is away): the action stays hidden.
      () => {},
    );
    return () => {
      current = false;
    };
  }, [signedIn, path]);
  if (!signedIn || !shareable) return null;
  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    setNote("");
    try {
      await work();
    } catch (err) {
      if (err instanceof ApiError && err.status === 404 && !share) setNote(t("notOwner"));
      else setError(err);
    } finally {
      setBusy(false);
    }
  };
  const publish = () => act(async () => setShare(await call<ShareView>("POST", path)));
  const revoke = () =>
    act(async () => {
      await call("DELETE", path);
      setShare(null);
      setNote(t("revoked"));
    });
  const copy = () =>
    navigator.clipboard?.writeText(share?.url ?? "").then(
      () => setNote(t("copied")),
      () => setNote(t("failed")),
    ) ?? setNote(t("failed"));
  return (
    <div data-testid="share-publish">
      {share ? (
        <p class="row">
          <span class="muted">{t("shared")}:</span>
          <a href={share.url} data-testid="public-link" class="anywhere" target="_blank" rel="noopener">
            {share.url}
          </a>
          <button type="button" class="secondary" onClick={copy}>
            {t("copy")}
          </button>
          <button type="button" class="secondary" disabled={busy} onClick={() => void revoke()}>
            {t("revoke")}
          </button>
        </p>
      ) : (
        <p class="row">
          <button type="button" disabled={busy} onClick={() => void publish()}>
            {busy ? t("sharing") : t("share")}
          </button>
        </p>
      )}
      <p class="muted" role="status">
        {note}
      </p>
      <ApiErrorBox error={error} />
    </div>
  );
}
