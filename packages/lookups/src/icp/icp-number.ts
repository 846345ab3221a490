import type { IcpLicenseType } from "./schema.js";

/*
 * MIIT numbers: `<province>ICP备<digits>号` for a non-commercial filing, `<province>ICP证<digits>号` for a
 * commercial licence, and `-N` for each website of the registrant (`京ICP备10046444号-9`). Digits: 6 for old
 * 证 numbers, 8 for old 备 numbers, 10 (year first) for new ones; 4–12 leaves room without taking noise.
 * Province: the one-character abbreviations, the alternatives sites use included (蜀 川, 黔 贵, 滇 云,
 * 秦 陕, 陇 甘). Hong Kong, Macao and Taiwan have no ICP system.
 */
const PROVINCES = "京津冀晋蒙辽吉黑沪苏浙皖闽赣鲁豫鄂湘粤桂琼渝川蜀贵黔云滇藏陕秦甘陇青宁新";

const NUMBER = new RegExp(`^([${PROVINCES}])ICP(备|证)(\\d{4,12})号(?:-(\\d{1,4}))?$`);

// In running text: the same shape with spaces allowed between the parts (footers write `京ICP备 123号`),
// `icp` in any case, the dashes editors substitute for `-`, and no digit right after the suffix.
const IN_TEXT = new RegExp(
  `([${PROVINCES}])\\s*ICP\\s*(备|证)\\s*(\\d{4,12})\\s*号(?:\\s*[-\u2010-\u2013\u2212]\\s*(\\d{1,4})(?!\\d))?`,
  "gi",
);

export interface IcpNumber {
  /** Canonical form: half-width, no spaces, `ICP` upper-case. */
  icp_number: string;
  /** Without the `-N` website suffix. */
  main_licence: string;
  license_type: Exclude<IcpLicenseType, "">;
  province: string;
}

/**
 * A well-formed ICP number → its parts; anything else → null. Full-width characters (`京ＩＣＰ备１２３４５６７８号`)
 * and spaces are tolerated, so a number copied from a page validates as shown; the content is not relaxed.
 */
export function validateIcpNumber(raw: string): IcpNumber | null {
  const text = raw.normalize("NFKC").replace(/\s+/g, "").replace(/icp/i, "ICP");
  const m = NUMBER.exec(text);
  if (!m) return null;
  return toNumber(m[1] ?? "", m[2] ?? "", m[3] ?? "", m[4]);
}

/**
 * Every distinct ICP number shown in an HTML page, in the order they first appear. Tags count as spaces
 * (a number split by a `<span>` is still read), the usual entities are decoded (`&#20140;` is 京), and
 * full-width forms are folded. 公网安备 (public-security) numbers and B2 licences are not ICP numbers.
 */
export function parseIcpNumbers(html: string): IcpNumber[] {
  const seen = new Map<string, IcpNumber>();
  for (const m of pageText(html).matchAll(IN_TEXT)) {
    const found = toNumber(m[1] ?? "", m[2] ?? "", m[3] ?? "", m[4]);
    if (!seen.has(found.icp_number)) seen.set(found.icp_number, found);
  }
  return [...seen.values()];
}

function toNumber(province: string, kind: string, digits: string, suffix: string | undefined): IcpNumber {
  const main = `${province}ICP${kind}${digits}号`;
  return {
    icp_number: suffix === undefined ? main : `${main}-${suffix}`,
    main_licence: main,
    license_type: kind === "证" ? "commercial_license" : "non_commercial_filing",
    province,
  };
}

const NAMED: Record<string, string> = { nbsp: " ", amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** The text a reader sees, roughly: enough to find numbers, not a renderer. */
function pageText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<[/!a-z][^>]*>/gi, " ")
    .replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (entity, body: string) => {
      if (body[0] !== "#") return NAMED[body.toLowerCase()] ?? entity;
      const code =
        body[1] === "x" || body[1] === "X" ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    })
    .normalize("NFKC");
}
