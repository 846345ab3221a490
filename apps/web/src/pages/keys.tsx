import { useState } from "preact/hooks";
import { call, form } from "../api.js";
import { ConfirmButton } from "../components/account-confirm.js";
import { FormError, invalid } from "../components/account-form-error.js";
import { SecretOnce } from "../components/account-secret.js";
import { formatTime, messages } from "../i18n.js";
import type { Route } from "../router.js";
import { Card, ErrorBox, Loading, useLoad } from "../ui.js";

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
  },
});

/** A key as either form lists it: Form A `key_prefix` and `scopes`, Form B `prefix`. */
interface ApiKey {
  id: string;
  name: string;
  prefix?: string;
  key_prefix?: string;
  scopes?: ("read" | "write")[];
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

async function listKeys(): Promise<ApiKey[]> {
  if (form === "a") {
    const all: ApiKey[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await call<{ api_keys: ApiKey[]; total: number }>(
        "GET",
        `/v1/account/api-keys?limit=100&offset=${offset}`,
      );
      all.push(...page.api_keys);
      if (page.api_keys.length < 100 || all.length >= page.total) return all;
    }
  }
  return (await call<{ items: ApiKey[] }>("GET", "/v1/account/api-keys")).items;
}

function CreateKey({ onCreated }: { onCreated: (secret: string) => void }) {
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState({ read: true, write: true });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body: Record<string, unknown> = { name: name.trim() };
      if (form === "a") body.scopes = (["read", "write"] as const).filter((s) => scopes[s]);
      const created = await call<{ key: string }>("POST", "/v1/account/api-keys", { body });
      setName("");
      onCreated(created.key);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <form class="stack" onSubmit={submit} aria-label={t("create")}>
      <label>
        {t("name")}
        <input
          name="name"
          required
          maxLength={64}
          placeholder={t("namePlaceholder")}
          value={name}
          aria-invalid={invalid(error, "body.name")}
          onInput={(e) => setName(e.currentTarget.value)}
        />
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
          {busy ? t("creating") : t("createButton")}
        </button>
      </div>
      <FormError error={error} />
    </form>
  );
}

/** `#/keys`: the account's API keys; a new key's secret is shown once, revoking asks first. */
export function KeysPage(_props: { route: Route }) {
  const keys = useLoad(listKeys);
  const [secret, setSecret] = useState<string>();
  const [notice, setNotice] = useState("");
  const [error, setError] = useState<unknown>();
  return (
    <div>
      <h1>{t("title")}</h1>
      <p class="muted">
        {t("intro")} <code>{form === "a" ? t("howA") : t("howB")}</code>
      </p>
      {secret ? <SecretOnce secret={secret} onDone={() => setSecret(undefined)} /> : null}
      <Card title={t("create")}>
        <CreateKey
          onCreated={(s) => {
            setSecret(s);
            setNotice("");
            keys.reload();
          }}
        />
      </Card>
      <Card title={t("yours")}>
        <p role="status" class="ok">
          {notice}
        </p>
        <ErrorBox error={error} />
        {keys.error ? (
          <ErrorBox error={keys.error} onRetry={keys.reload} />
        ) : !keys.data ? (
          <Loading />
        ) : keys.data.length === 0 ? (
          <p class="muted">{t("none")}</p>
        ) : (
          <div class="table-wrap">
            <table class="cards">
              <thead>
                <tr>
                  <th scope="col">{t("name")}</th>
                  <th scope="col">{t("prefix")}</th>
                  {form === "a" ? <th scope="col">{t("scopesCol")}</th> : null}
                  <th scope="col">{t("created")}</th>
                  <th scope="col">{t("lastUsed")}</th>
                  <th scope="col">{t("expires")}</th>
                  <th scope="col">{t("actions")}</th>
                </tr>
              </thead>
              <tbody>
                {keys.data.map((k) => (
                  <tr key={k.id} data-key-id={k.id}>
                    <td data-label={t("name")}>{k.name}</td>
                    <td data-label={t("prefix")}>
                      <code>{k.key_prefix ?? k.prefix}…</code>
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
                        question={t("revokeQuestion", { name: k.name })}
                        yes={t("revokeYes")}
                        onConfirm={async () => {
                          setError(undefined);
                          try {
                            await call("DELETE", `/v1/account/api-keys/${encodeURIComponent(k.id)}`);
                            setNotice(t("revoked", { name: k.name }));
                            keys.reload();
                          } catch (err) {
                            setError(err);
                          }
                        }}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
    </div>
  );
}
