import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Dashboard, signIn, startDashboard } from "./harness.js";

/**
 * The share button of a finished task's page (`#/tasks/:id`): its signed-in owner publishes it, the public
 * link opens in a signed-out browser and shows the result, and after "Revoke" the link answers 404. The
 * task is a TCP probe of a loopback listener from the embedded controller's local node.
 */
describe("share button on a task's page", () => {
  let d: Dashboard;
  let listener: Server;
  let port: number;
  beforeAll(async () => {
    listener = createServer((socket) => socket.on("error", () => {}).end());
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    port = (listener.address() as { port: number }).port;
    d = await startDashboard({ form: "b" });
  }, 60_000);
  afterAll(async () => {
    await d?.stop();
    await new Promise((resolve) => listener?.close(resolve));
  });

  it("Share publishes the task, the link opens signed out, Revoke makes it 404", async () => {
    const page = await d.page();
    const token = await signIn(page, d.url, `share-${Date.now()}@example.com`);
    const probed = await fetch(`${d.url}/v1/probe/tcp`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ host: "127.0.0.1", port, nodes: ["local"] }),
    });
    expect(probed.status).toBe(200);
    const taskId = ((await probed.json()) as { data: { task_id: string } }).data.task_id;

    await page.goto(`${d.url}/#/tasks/${taskId}`);
    await page.getByTestId("task-status").getByText("Done").waitFor();
    await page.getByRole("button", { name: "Share", exact: true }).click();
    const link = page.getByTestId("public-link");
    await link.waitFor();
    const url = (await link.getAttribute("href")) ?? "";
    expect(url).toMatch(new RegExp(`^${d.url}/share/shr_[A-Za-z0-9_-]+$`));
    await page.getByTestId("share-publish").getByRole("button", { name: "Copy public link" }).waitFor();
    // Opened again, the page shows the live link (the server keeps it), not a fresh Share button.
    await page.reload();
    expect(await page.getByTestId("public-link").getAttribute("href")).toBe(url);

    // A browser without the session (the task itself is the account's: 404 to it) opens the public page
    // and sees the result.
    const outside = await d.page();
    const response = await outside.goto(url);
    expect(response?.status()).toBe(200);
    expect(await outside.getByRole("heading", { level: 1 }).textContent()).toContain(`tcp 127.0.0.1:${port}`);

    await page.getByRole("button", { name: "Revoke" }).click();
    await page.getByText("The public link is revoked").waitFor();
    await page.getByRole("button", { name: "Share", exact: true }).waitFor();
    const gone = await outside.goto(url);
    expect(gone?.status()).toBe(404);

    // An anonymous task (no credentials: nobody owns it) offers no Share to the signed-in user.
    const anonymous = await fetch(`${d.url}/v1/probe/tcp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ host: "127.0.0.1", port, nodes: ["local"] }),
    });
    const anonymousId = ((await anonymous.json()) as { data: { task_id: string } }).data.task_id;
    const asked = page.waitForResponse(
      (r) => r.url().endsWith(`/v1/probe/tasks/${anonymousId}/share`) && r.request().method() === "GET",
    );
    await page.goto(`${d.url}/#/tasks/${anonymousId}`);
    await page.getByTestId("task-status").getByText("Done").waitFor();
    expect(((await (await asked).json()) as { data: unknown }).data).toEqual({
      shareable: false,
      share: null,
    });
    await page.evaluate("new Promise((resolve) => requestAnimationFrame(resolve))");
    expect(await page.getByTestId("share-publish").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Share", exact: true }).count()).toBe(0);

    expect(page.outside).toEqual([]);
    expect(outside.outside).toEqual([]);
    expect(page.errors).toEqual([]);
    // The one error the signed-out browser logs is the revoked link's 404 itself.
    expect(outside.errors).toEqual([expect.stringContaining("404")]);
  }, 120_000);
});
