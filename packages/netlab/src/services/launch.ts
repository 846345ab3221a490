import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Lab } from "../lab-handle.js";
import { must, tool } from "../shell.js";
import { labAddresses } from "../topology.js";
import type { TargetServicesConfig } from "./target-services.js";

/** Path of a script in this folder, for `node --import tsx <script>` inside a namespace. */
export function serviceScript(name: string): string {
  return fileURLToPath(new URL(`./${name}`, import.meta.url));
}

/**
 * Starts a TypeScript script inside a namespace and waits for its `{"ready":true}` line. The process is
 * `ip netns exec` replaced by node (exec, same pid), so killing the child kills the service.
 */
export function startInNamespace(
  lab: Lab,
  node: string,
  script: string,
  args: readonly string[],
  timeoutMs = 15_000,
): Promise<ChildProcess> {
  const child = lab.spawn(node, process.execPath, ["--import", "tsx", script, ...args]);
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    const timer = setTimeout(() => fail(`not ready after ${timeoutMs} ms`), timeoutMs);
    const fail = (why: string): void => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`${script} in ${lab.ns(node)}: ${why}\n${err.trim()}`));
    };
    child.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes('{"ready":true}')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once("exit", (code) => fail(`exited with ${code}`));
  });
}

/** A self-signed certificate for www.vantage.test and t1's addresses (probes see an untrusted chain). */
async function makeCertificate(dir: string): Promise<{ certFile: string; keyFile: string }> {
  const certFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");
  await must(tool("openssl"), [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    keyFile,
    "-out",
    certFile,
    "-days",
    "2",
    "-subj",
    `/CN=www.${labAddresses.dnsZone}`,
    "-addext",
    `subjectAltName=DNS:www.${labAddresses.dnsZone},IP:${labAddresses.web4},IP:${labAddresses.web6}`,
  ]);
  return { certFile, keyFile };
}

export async function startTargetServices(lab: Lab): Promise<ChildProcess> {
  const config: TargetServicesConfig = {
    http: 80,
    https: 443,
    dns: 53,
    tcp: [labAddresses.tcpOpenPort],
    ...(await makeCertificate(lab.dir)),
  };
  return startInNamespace(lab, "t1", serviceScript("target-services.ts"), [JSON.stringify(config)]);
}
