import { describe, expect, it } from "vitest";
import { parseDig } from "./dig.js";

// Captured from DiG 9.18.49 against the lab's DNS server (`+noall +answer +comments +stats`).
const cname = `;; Got answer:
;; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: 55527
;; flags: qr aa rd; QUERY: 1, ANSWER: 2, AUTHORITY: 0, ADDITIONAL: 1
;; WARNING: recursion requested but not available

;; OPT PSEUDOSECTION:
; EDNS: version: 0, flags:; udp: 1232
;; ANSWER SECTION:
alias.vantage.test.	120	IN	CNAME	www.vantage.test.
www.vantage.test.	300	IN	A	203.0.113.10

;; Query time: 0 msec
;; SERVER: 203.0.113.10#53(203.0.113.10) (UDP)
;; WHEN: Sun Nov 22 08:01:39 UTC 2026
;; MSG SIZE  rcvd: 91
`;
const truncated = `;; Truncated, retrying in TCP mode.
;; Got answer:
;; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: 39288
;; flags: qr aa rd; QUERY: 1, ANSWER: 1, AUTHORITY: 0, ADDITIONAL: 1

;; ANSWER SECTION:
big.vantage.test.	240	IN	TXT	"chunk-00-xxx" "chunk-01-xxx"

;; Query time: 4 msec
;; SERVER: 2001:db8:100::10#53(2001:db8:100::10) (TCP)
`;
const nxdomain = `;; Got answer:
;; ->>HEADER<<- opcode: QUERY, status: NXDOMAIN, id: 14080
;; flags: qr aa rd; QUERY: 1, ANSWER: 0, AUTHORITY: 1, ADDITIONAL: 1
`;
const records = `vantage.test.		3600	IN	SOA	ns1.vantage.test. hostmaster.vantage.test. 2026112201 3600 600 86400 300
vantage.test.		1800	IN	MX	10 mail.vantage.test.
vantage.test.		900	IN	TXT	"two strings" "in one record"
`;

describe("parseDig", () => {
  it("reads status, flags, answers, time and transport", () => {
    const r = parseDig(cname);
    expect(r).toMatchObject({
      status: "NOERROR",
      flags: ["qr", "aa", "rd"],
      protocol: "udp",
      queryTimeMs: 0,
    });
    expect(r.answers).toEqual([
      { name: "alias.vantage.test.", ttl: 120, class: "IN", type: "CNAME", value: "www.vantage.test." },
      { name: "www.vantage.test.", ttl: 300, class: "IN", type: "A", value: "203.0.113.10" },
    ]);
  });

  it("notices the retry over TCP after truncation", () => {
    const r = parseDig(truncated);
    expect(r).toMatchObject({ retriedOverTcp: true, protocol: "tcp" });
    expect(r.answers[0]?.value).toBe('"chunk-00-xxx" "chunk-01-xxx"');
  });

  it("reads NXDOMAIN and bare record lines", () => {
    expect(parseDig(nxdomain)).toMatchObject({ status: "NXDOMAIN", answers: [] });
    expect(parseDig(records).answers.map((a) => [a.type, a.ttl, a.value])).toEqual([
      ["SOA", 3600, "ns1.vantage.test. hostmaster.vantage.test. 2026112201 3600 600 86400 300"],
      ["MX", 1800, "10 mail.vantage.test."],
      ["TXT", 900, '"two strings" "in one record"'],
    ]);
  });
});
