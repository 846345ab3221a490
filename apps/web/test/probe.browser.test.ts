import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Dashboard, startDashboard } from "./harness.js";

/**
 * Probes from the dashboard (`#/probe`, `#/tasks/:id`) against the embedded controller's local node, in
 * both API forms: only 127.0.0.1 is probed (the harness allows loopback targets), nothing leaves the host.
 */
describe.each(["a", "b"] as const)("probe page, form %s", (form) => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard({ form });
  }, 60_000);
  afterAll(() => d?.stop());

  it("a ping to 127.0.0.1 shows the node's row pending, then its packets and loss; its link shows the same task", async () => {
    // The most packets the form allows (Form A 50, Form B 10), 200 ms apart: the task runs 10 s or 2 s.
    const count = form === "a" ? 50 : 10;
    // The page that will open the task's link is loaded first, so following the link is only a hash change
    // and happens while the task still runs, however slow the machine (a fresh page load took seconds).
    const live = await d.page();
    await live.goto(`${d.url}/#/probe`);
    await live.getByRole("radio", { name: "Ping" }).waitFor();
    const page = await d.page();
    await page.goto(`${d.url}/#/probe`);
    await page.getByRole("radio", { name: "Ping" }).check();
    await page.getByLabel("Host name or IP address").fill("127.0.0.1");
    await page.getByLabel(/^Packets/).fill(String(count));
    await page.getByRole("radio", { name: "Choose nodes" }).check();
    await page.getByRole("checkbox", { name: /Local node/ }).check();
    const sent = page.waitForRequest((r) => r.method() === "POST" && r.url().endsWith("/v1/probe/ping"));
    await page.getByRole("button", { name: "Run Ping" }).click();

    const request = await sent;
    expect(request.headers().accept).toBe("text/event-stream");
    expect(request.postDataJSON()).toEqual(
      form === "a"
        ? { target: "127.0.0.1", node_ids: ["local"], params: { count } }
        : { host: "127.0.0.1", count, nodes: ["local"] },
    );
    // The row is there, pending, before the node answers.
    await page.locator('li[data-node="local"][data-state="pending"]').waitFor();
    const href = await page.getByTestId("share-link").getAttribute("href");
    expect(href).toMatch(/^#\/tasks\/task_[0-9a-z]+$/);
    // The link opened while the task runs follows it live.
    // Same document, another hash: the app's router shows the task without a page load.
    await live.goto(`${d.url}/${href}`);
    await live.locator('li[data-node="local"][data-state="pending"]').waitFor();
    const row = page.locator('li[data-node="local"][data-state="ok"]');
    await row.waitFor({ timeout: 40_000 });
    const summary = await row.getByTestId("result-summary").textContent();
    expect(summary).toContain(`Sent ${count} · received ${count}`);
    expect(summary).toContain("Loss 0 %");
    expect(summary).toContain("Address 127.0.0.1");
    await page.getByTestId("task-status").getByText("Done").waitFor();
    await row.getByText("Details").click();
    expect(await row.locator("tbody tr").count()).toBe(count); // one per echo

    const followed = live.locator('li[data-node="local"][data-state="ok"]');
    await followed.waitFor({ timeout: 40_000 });
    expect(await followed.getByTestId("result-summary").textContent()).toBe(summary);

    // The link, opened anywhere, shows the same result.
    const other = await d.page();
    await other.goto(`${d.url}/${href}`);
    const again = other.locator('li[data-node="local"][data-state="ok"]');
    await again.waitFor();
    expect(await again.getByTestId("result-summary").textContent()).toBe(summary);
    expect(await other.getByTestId("task-status").textContent()).toBe("Done");
    expect(await other.getByRole("heading", { level: 1 }).textContent()).toContain(
      href!.slice("#/tasks/".length),
    );

    for (const p of [page, live, other]) {
      expect(p.outside).toEqual([]);
      expect(p.errors).toEqual([]);
    }
  }, 120_000);

  it("tcp to a pasted URL, then traceroute: own figures; the task in the address, scrolled to, cleared on switching", async () => {
    const port = Number(new URL(d.url).port);
    // A short window: the results start below the fold unless the page scrolls to them.
    const page = await d.page({ height: 480 });
    await page.goto(`${d.url}/#/probe?type=tcp`);
    const pasted = `http://127.0.0.1:${port}/status`;
    await page.getByLabel("Host name or IP address").fill(pasted);
    const sent = page.waitForRequest((r) => r.method() === "POST" && r.url().endsWith("/v1/probe/tcp"));
    await page.getByRole("button", { name: "Run TCP" }).click();
    expect((await sent).postDataJSON()).toEqual(
      form === "a" ? { target: "127.0.0.1", params: { port } } : { host: "127.0.0.1", port },
    );
    const row = page.locator('li[data-node="local"][data-state="ok"]');
    await row.waitFor({ timeout: 20_000 });
    const summary = await row.getByTestId("result-summary").textContent();
    expect(summary).toMatch(new RegExp(`^Connected in [0-9.]+ ms · to 127\\.0\\.0\\.1:${port}$`));
    const top = `document.querySelector('[data-testid="probe-results"]').getBoundingClientRect().top`;
    expect(await page.evaluate("window.scrollY")).toBeGreaterThan(0);
    // Its start is in view (as high as the page's length lets it go).
    const [at, height] = (await page.evaluate(`[${top}, innerHeight]`)) as [number, number];
    expect(at).toBeGreaterThanOrEqual(0);
    expect(at).toBeLessThan(height - 40);

    // The task is in the address: a reload shows the same results, and the form as it was.
    await page.waitForURL(/#\/probe\?type=tcp&target=[^&]+&task=task_[0-9a-z]+$/);
    const address = page.url();
    await page.reload();
    await row.waitFor({ timeout: 20_000 });
    expect(await row.getByTestId("result-summary").textContent()).toBe(summary);
    expect(await page.getByLabel("Host name or IP address").inputValue()).toBe(pasted);
    expect(page.url()).toBe(address);

    // Another probe type: the old results go, from the page and from the address.
    await page.getByRole("radio", { name: "Traceroute" }).check();
    expect(await page.locator("li[data-node]").count()).toBe(0);
    await page.waitForURL((u) => !u.hash.includes("task="));
    await page.getByRole("button", { name: "Run Traceroute" }).click();
    await page.getByTestId("task-status").getByText("Done").waitFor({ timeout: 30_000 });
    const trace = page.locator('li[data-node="local"][data-state="ok"]');
    expect(await trace.getByTestId("result-summary").textContent()).toContain("Reached at hop 1");
    await trace.getByText("Details").click();
    expect(await trace.locator("tbody tr").first().textContent()).toContain("127.0.0.1");
    expect(page.url()).toMatch(/type=traceroute&.*task=task_/);

    // http with the address family chosen: sent as ip_family, answered over IPv4.
    await page.getByRole("radio", { name: "HTTP" }).check();
    const url = `http://127.0.0.1:${port}/v1/nodes`;
    await page.getByRole("textbox", { name: "URL", exact: true }).fill(url);
    await page.getByLabel("Address family").selectOption("ipv4");
    const http = page.waitForRequest((r) => r.method() === "POST" && r.url().endsWith("/v1/probe/http"));
    await page.getByRole("button", { name: "Run HTTP" }).click();
    expect((await http).postDataJSON()).toEqual(
      form === "a" ? { target: url, params: { ip_family: "ipv4" } } : { url, ip_family: "ipv4" },
    );
    await page.locator('li[data-node="local"][data-state="ok"]').waitFor({ timeout: 20_000 });
    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([]);
  });

  it("an API error is shown with what is wrong, and the form's own checks come first", async () => {
    const page = await d.page();
    await page.goto(`${d.url}/#/probe`);
    // Not an IPv4 address although it ends in a number: the API refuses it (400) before any node is asked.
    await page.getByLabel("Host name or IP address").fill("256.1.1.1");
    await page.getByRole("button", { name: "Run Ping" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toContain("validation_error");
    expect(await page.getByTestId("error-details").textContent()).toContain(
      form === "a" ? "body.target" : "body.host",
    );
    expect(await page.locator("li[data-node]").count()).toBe(0);

    // Choosing nodes but none: said at once, nothing sent.
    await page.getByLabel("Host name or IP address").fill("127.0.0.1");
    await page.getByRole("radio", { name: "Choose nodes" }).check();
    await page.getByRole("button", { name: "Run Ping" }).click();
    await page.getByText("Choose at least one node").waitFor();

    expect(page.outside).toEqual([]);
    // The browser logs the 400 it was answered; nothing else went wrong.
    expect(page.errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
  });

  it("nodes by place: the typed selectors go as `locations`; an unknown one is the API's 400 naming it", async () => {
    const port = Number(new URL(d.url).port);
    const page = await d.page();
    await page.goto(`${d.url}/#/probe?type=tcp`);
    await page.getByLabel("Host name or IP address").fill(`127.0.0.1:${port}`);
    await page.getByRole("radio", { name: "By place" }).check();
    // The local node's country is ZZ ("unknown"); `:1` asks for one node.
    await page.getByPlaceholder("DE, europe:3, germany+hetzner").fill("ZZ:1");
    const sent = page.waitForRequest((r) => r.method() === "POST" && r.url().endsWith("/v1/probe/tcp"));
    await page.getByRole("button", { name: "Run TCP" }).click();
    const locations = [{ selector: "ZZ", count: 1 }];
    expect((await sent).postDataJSON()).toEqual(
      form === "a"
        ? { target: "127.0.0.1", params: { port }, locations }
        : { host: "127.0.0.1", port, locations },
    );
    await page.locator('li[data-node="local"][data-state="ok"]').waitFor({ timeout: 20_000 });

    await page.getByPlaceholder("DE, europe:3, germany+hetzner").fill("atlantis");
    await page.getByRole("button", { name: "Run TCP" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await page.getByTestId("error-details").textContent()).toContain("body.locations.0");
    expect(page.outside).toEqual([]);
    expect(page.errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
  });

  it("a task link that names no task says so", async () => {
    const page = await d.page();
    await page.goto(`${d.url}/#/tasks/task_0000000000000000000000000`);
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toContain("not_found");
    expect(await page.locator("li[data-node]").count()).toBe(0);
    expect(page.outside).toEqual([]);
    expect(page.errors.filter((e) => !/status of 404/.test(e))).toEqual([]);
  });

  it("a server that answers a probe with plain JSON instead of the stream still shows the result", async () => {
    const page = await d.page();
    // As a controller without live results would: the same request, answered as JSON.
    await page.route("**/v1/probe/ping", async (route) => {
      const headers = { ...route.request().headers(), accept: "application/json" };
      await route.fulfill({ response: await route.fetch({ headers }) });
    });
    await page.goto(`${d.url}/#/probe`);
    await page.getByLabel("Host name or IP address").fill("127.0.0.1");
    await page.getByLabel(/^Packets/).fill("2");
    await page.getByRole("button", { name: "Run Ping" }).click();
    const row = page.locator('li[data-node="local"][data-state="ok"]');
    await row.waitFor({ timeout: 20_000 });
    expect(await row.getByTestId("result-summary").textContent()).toContain("Sent 2 · received 2");
    await page.getByTestId("task-status").getByText("Done").waitFor();
    expect(await page.getByTestId("share-link").getAttribute("href")).toMatch(/^#\/tasks\/task_/);
    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([]);
  });
});
