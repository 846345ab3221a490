import { useState } from "preact/hooks";
import { call, form } from "../api.js";
import { ConfirmButton } from "../components/account-confirm.js";
import { describedBy, FieldError, FormError, invalid } from "../components/account-form-error.js";
import { SecretOnce } from "../components/account-secret.js";
import { formatTime, messages } from "../i18n.js";
import type { Route } from "../router.js";
import { Card, DataTable, ErrorBox, Loading, useLoad } from "../ui.js";

const t = messages({
  en: {
    title: "API keys",
    intro: "Keys let scripts and tools use the API as you. Send one in a request header:",
    howA: "Authorization: Bearer <key>",
    howB: "X-API-Key: <key> (or Authorization: Bearer <key>)",
    create: "Create a key",
    name: "Name",
    namePlaceholder: "e.g. ci-deploy",
    scopes: "Scopes",
    read: "read (GET requests)",
    write: "write (everything else)",
    creating: "Creating…",
    createButton: "Create key",
    yours: "Your keys",
    none: "No keys yet.",
    prefix: "Prefix",
    scopesCol: "Scopes",
    created: "Created",
    lastUsed: "Last used",
    expires: "Expires",
    never: "never",
    notYet: "not yet",
    revoke: "Revoke",
    revokeNamed: "Revoke {name}",
    revokeQuestion: "Revoke {name}? Programs using it stop working at once.",
    revokeYes: "Revoke",
    revoked: "Key {name} revoked.",
    actions: "Actions",
    mcpTitle: "MCP tokens",
    mcpIntro:
      "An MCP token lets an MCP client (Claude Desktop, an IDE, an agent) use Vantage's tools at {path}, as you. It works there only: every other route refuses it, so a token pasted into a client's settings cannot manage your account. Tools that run probes need the write scope.",
    mcpCreate: "Create an MCP token",
    mcpCreateButton: "Create token",
    mcpYours: "Your MCP tokens",
    mcpNone: "No MCP tokens yet.",
    mcpRevoked: "MCP token {name} revoked.",
    mcpRevokeQuestion: "Revoke {name}? MCP clients using it stop working at once.",
    mcpNamePlaceholder: "e.g. claude-desktop",
  },
  cn: {
    title: "API 密钥",
    intro: "脚本和工具可以用密钥以你的身份调用 API。在请求头中发送：",
    howA: "Authorization: Bearer <密钥>",
    howB: "X-API-Key: <密钥>（或 Authorization: Bearer <密钥>）",
    create: "创建密钥",
    name: "名称",
    namePlaceholder: "例如 ci-deploy",
    scopes: "权限范围",
    read: "read（GET 请求）",
    write: "write（其他请求）",
    creating: "创建中…",
    createButton: "创建密钥",
    yours: "你的密钥",
    none: "还没有密钥。",
    prefix: "前缀",
    scopesCol: "权限范围",
    created: "创建时间",
    lastUsed: "最近使用",
    expires: "过期时间",
    never: "永不",
    notYet: "尚未使用",
    revoke: "吊销",
    revokeNamed: "吊销 {name}",
    revokeQuestion: "吊销 {name}？使用它的程序将立即失效。",
    revokeYes: "吊销",
    revoked: "密钥 {name} 已吊销。",
    actions: "操作",
    mcpTitle: "MCP 令牌",
    mcpIntro:
      "MCP 令牌让 MCP 客户端（Claude Desktop、IDE、智能体）以你的身份在 {path} 使用 Vantage 的工具。它只在那里有效：其他接口一律拒绝，所以填在客户端设置里的令牌无法管理你的账号。运行探测的工具需要 write 权限。",
    mcpCreate: "创建 MCP 令牌",
    mcpCreateButton: "创建令牌",
    mcpYours: "你的 MCP 令牌",
    mcpNone: "还没有 MCP 令牌。",
    mcpRevoked: "MCP 令牌 {name} 已吊销。",
    mcpRevokeQuestion: "吊销 {name}？使用它的 MCP 客户端将立即失效。",
    mcpNamePlaceholder: "例如 claude-desktop",
  },
  tw: {
    title: "API 金鑰",
    intro: "腳本和工具可以用金鑰以你的身分呼叫 API。在請求標頭中傳送：",
    howA: "Authorization: Bearer <金鑰>",
    howB: "X-API-Key: <金鑰>（或 Authorization: Bearer <金鑰>）",
    create: "建立金鑰",
    name: "名稱",
    namePlaceholder: "例如 ci-deploy",
    scopes: "權限範圍",
    read: "read（GET 請求）",
    write: "write（其他請求）",
    creating: "建立中…",
    createButton: "建立金鑰",
    yours: "你的金鑰",
    none: "還沒有金鑰。",
    prefix: "前綴",
    scopesCol: "權限範圍",
    created: "建立時間",
    lastUsed: "最近使用",
    expires: "到期時間",
    never: "永不",
    notYet: "尚未使用",
    revoke: "撤銷",
    revokeNamed: "撤銷 {name}",
    revokeQuestion: "撤銷 {name}？使用它的程式將立即失效。",
    revokeYes: "撤銷",
    revoked: "金鑰 {name} 已撤銷。",
    actions: "操作",
    mcpTitle: "MCP 權杖",
    mcpIntro:
      "MCP 權杖讓 MCP 用戶端（Claude Desktop、IDE、智慧代理）以你的身分在 {path} 使用 Vantage 的工具。它只在那裡有效：其他介面一律拒絕，所以填在用戶端設定裡的權杖無法管理你的帳號。執行探測的工具需要 write 權限。",
    mcpCreate: "建立 MCP 權杖",
    mcpCreateButton: "建立權杖",
    mcpYours: "你的 MCP 權杖",
    mcpNone: "還沒有 MCP 權杖。",
    mcpRevoked: "MCP 權杖 {name} 已撤銷。",
    mcpRevokeQuestion: "撤銷 {name}？使用它的 MCP 用戶端將立即失效。",
    mcpNamePlaceholder: "例如 claude-desktop",
  },
});

/** A key as either form lists it: Form A `key_prefix` (MCP tokens `token_prefix`) and `scopes`, Form B `prefix`. */
interface ApiKey {
  id: string;
  name: string;
  prefix?: string;
  key_prefix?: string;
  token_prefix?: string;
  scopes?: ("read" | "write")[];
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

/** API keys, or (Form A) MCP tokens: where they live, how a list page names them, and their secret's field. */
type Kind = "api" | "mcp";
const kinds = {
  api: { path: "/v1/account/api-keys", list: "api_keys", secret: "key" },
  mcp: { path: "/v1/account/mcp-tokens", list: "tokens", secret: "token" },
} as const;

async function listKeys(kind: Kind): Promise<ApiKey[]> {
  const k = kinds[kind];
  if (form === "a") {
    const all: ApiKey[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await call<Record<string, ApiKey[]> & { total: number }>(
        "GET",
        `${k.path}?limit=100&offset=${offset}`,
      );
      const items = page[k.list] ?? [];
      all.push(...items);
      if (items.length < 100 || all.length >= page.total) return all;
    }
  }
  return (await call<{ items: ApiKey[] }>("GET", k.path)).items;
}

function CreateKey({ kind, onCreated }: { kind: Kind; onCreated: (secret: string) => void }) {
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState({ read: true, write: true });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const mcp = kind === "mcp";
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body: Record<string, unknown> = { name: name.trim() };
      if (form === "a") body.scopes = (["read", "write"] as const).filter((s) => scopes[s]);
      const created = await call<Record<string, string>>("POST", kinds[kind].path, { body });
      setName("");
      onCreated(created[kinds[kind].secret] ?? "");
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <form class="stack" onSubmit={submit} aria-label={mcp ? t("mcpCreate") : t("create")}>
      <label>
        {t("name")}
        <input
          name="name"
          required
          maxLength={64}
          placeholder={mcp ? t("mcpNamePlaceholder") : t("namePlaceholder")}
          value={name}
          aria-invalid={invalid(error, "body.name")}
          aria-describedby={describedBy(error, "body.name")}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <FieldError error={error} path="body.name" />
      </label>
      {form === "a" ? (
        <fieldset style={{ border: "none", padding: 0, margin: 0 }}>
          <legend style={{ fontSize: "0.9rem", marginBottom: "4px" }}>{t("scopes")}</legend>
          {(["read", "write"] as const).map((s) => (
            <label style={{ display: "flex", gap: "6px", alignItems: "center" }}>
              <input
                type="checkbox"
                checked={scopes[s]}
                onChange={(e) => setScopes({ ...scopes, [s]: e.currentTarget.checked })}
              />
              {t(s)}
            </label>
          ))}
        </fieldset>
      ) : null}
      <div>
        <button type="submit" disabled={busy || name.trim() === ""}>
          {busy ? t("creating") : mcp ? t("mcpCreateButton") : t("createButton")}
        </button>
      </div>
      <FormError error={error} placed={["body.name"]} />
    </form>
  );
}

/** One kind's create form and list: a new secret shown once, revoking asks first. */
function KeySection({ kind }: { kind: Kind }) {
  const keys = useLoad(() => listKeys(kind));
  const [secret, setSecret] = useState<string>();
  const [notice, setNotice] = useState("");
  const [error, setError] = useState<unknown>();
  const mcp = kind === "mcp";
  return (
    <>
      {secret ? <SecretOnce secret={secret} onDone={() => setSecret(undefined)} /> : null}
      <Card title={mcp ? t("mcpCreate") : t("create")}>
        <CreateKey
          kind={kind}
          onCreated={(s) => {
            setSecret(s);
            setNotice("");
            keys.reload();
          }}
        />
      </Card>
      <Card title={mcp ? t("mcpYours") : t("yours")}>
        <p role="status" class="ok">
          {notice}
        </p>
        <ErrorBox error={error} />
        {keys.error ? (
          <ErrorBox error={keys.error} onRetry={keys.reload} />
        ) : !keys.data ? (
          <Loading />
        ) : keys.data.length === 0 ? (
          <p class="muted">{mcp ? t("mcpNone") : t("none")}</p>
        ) : (
          <DataTable
            heads={[
              t("name"),
              t("prefix"),
              ...(form === "a" ? [t("scopesCol")] : []),
              t("created"),
              t("lastUsed"),
              t("expires"),
              t("actions"),
            ]}
            cards
          >
            {keys.data.map((k) => (
              <tr key={k.id} data-key-id={k.id}>
                <td data-label={t("name")}>{k.name}</td>
                <td data-label={t("prefix")}>
                  <code>{k.key_prefix ?? k.token_prefix ?? k.prefix}…</code>
                </td>
                {form === "a" ? <td data-label={t("scopesCol")}>{(k.scopes ?? []).join(", ")}</td> : null}
                <td data-label={t("created")}>{formatTime(k.created_at)}</td>
                <td data-label={t("lastUsed")}>
                  {k.last_used_at ? formatTime(k.last_used_at) : t("notYet")}
                </td>
                <td data-label={t("expires")}>{k.expires_at ? formatTime(k.expires_at) : t("never")}</td>
                <td data-label={t("actions")}>
                  <ConfirmButton
                    label={t("revoke")}
                    accessibleLabel={t("revokeNamed", { name: k.name })}
                    question={t(mcp ? "mcpRevokeQuestion" : "revokeQuestion", { name: k.name })}
                    yes={t("revokeYes")}
                    onConfirm={async () => {
                      setError(undefined);
                      try {
                        await call("DELETE", `${kinds[kind].path}/${encodeURIComponent(k.id)}`);
                        setNotice(t(mcp ? "mcpRevoked" : "revoked", { name: k.name }));
                        keys.reload();
                      } catch (err) {
                        setError(err);
                      }
                    }}
                  />
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </Card>
    </>
  );
}

/** `#/keys`: the account's API keys, and in Form A its MCP tokens (Form B's MCP clients use an API key). */
export function KeysPage(_props: { route: Route }) {
  return (
    <div>
      <h1>{t("title")}</h1>
      <p class="muted">
        {t("intro")} <code>{form === "a" ? t("howA") : t("howB")}</code>
      </p>
      <KeySection kind="api" />
      {form === "a" ? (
        <section aria-labelledby="mcp-tokens">
          <h2 id="mcp-tokens">{t("mcpTitle")}</h2>
          <p class="muted">{t("mcpIntro", { path: `${location.origin}/v1/mcp` })}</p>
          <KeySection kind="mcp" />
        </section>
      ) : null}
    </div>
  );
}
