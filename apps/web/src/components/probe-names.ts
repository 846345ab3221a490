import { messages } from "../i18n.js";
import type { ProbeType } from "./api-types.js";

const t = messages({
  en: { http: "HTTP", ping: "Ping", dns: "DNS", tcp: "TCP", traceroute: "Traceroute", mtr: "MTR" },
  cn: { http: "HTTP", ping: "Ping", dns: "DNS", tcp: "TCP", traceroute: "路由追踪", mtr: "MTR 链路测试" },
  tw: { http: "HTTP", ping: "Ping", dns: "DNS", tcp: "TCP", traceroute: "路由追蹤", mtr: "MTR 鏈路測試" },
});

/** A probe type's name as the page shows it. */
export const probeName = (type: ProbeType): string => t(type);
