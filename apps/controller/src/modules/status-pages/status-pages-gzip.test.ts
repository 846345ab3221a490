import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { newUser } from "../../testing/accounts.js";
import { dbKinds } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { createPage, monitorOf, uniqueSlug } from "./testing/status-api.js";

/** A public page's prepared bytes: gzip for clients that take it, the same page either way. */
describe.each(dbKinds)("gzip'd status pages on %s", (kind) => {
  const db = useTestDb(kind);

  it("answers the HTML gzip'd when asked, the same page; either tag gets a 304; badges go as they are", async () => {
    const t = db.app("b");
    const u = await newUser(t, "owner");
    const api = await monitorOf(t, u, "API", "up");
    const slug = uniqueSlug("gzip");
    await createPage(t, u, {
      slug,
      title: "Zipped",
      components: [{ name: "API", monitor_ids: [api.id] }],
      auto_incidents: false,
    });
    const path = `/status/${slug}`;

    const plain = await t.app.request(path);
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("vary")).toBe("Accept-Encoding");
    const page = await plain.text();
    expect(page).toContain("<h1>Zipped</h1>");

    const zipped = await t.app.request(path, { headers: { "accept-encoding": "gzip, deflate, br" } });
    expect(zipped.status).toBe(200);
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(zipped.headers.get("vary")).toBe("Accept-Encoding");
    expect(zipped.headers.get("content-type")).toMatch(/^text\/html/);
    expect(zipped.headers.get("content-security-policy")).toContain("script-src 'none'");
    const bytes = Buffer.from(await zipped.arrayBuffer());
    expect(bytes.length).toBeLessThan(Buffer.byteLength(page));
    expect(gunzipSync(bytes).toString("utf8")).toBe(page);
    // Two representations, two strong tags; each names the same page, so either is a match.
    const plainTag = plain.headers.get("etag")!;
    const zippedTag = zipped.headers.get("etag")!;
    expect(zippedTag).not.toBe(plainTag);
    for (const tag of [plainTag, zippedTag]) {
      for (const encoding of ["gzip", "identity"]) {
        const again = await t.app.request(path, {
          headers: { "accept-encoding": encoding, "if-none-match": tag },
        });
        expect(again.status, `${tag} ${encoding}`).toBe(304);
        expect(again.headers.get("vary")).toBe("Accept-Encoding");
        expect(again.headers.get("content-encoding")).toBeNull();
      }
    }

    // gzip refused (q=0): the page as it is.
    const refused = await t.app.request(path, { headers: { "accept-encoding": "gzip;q=0" } });
    expect(refused.headers.get("content-encoding")).toBeNull();
    expect(await refused.text()).toBe(page);

    // A badge is small: never compressed, and no Vary.
    const badge = await t.app.request(`${path}/badge/status.svg`, { headers: { "accept-encoding": "gzip" } });
    expect(badge.headers.get("content-encoding")).toBeNull();
    expect(badge.headers.get("vary")).toBeNull();
    expect(await badge.text()).toMatch(/^<svg /);
  });
});
