import { TextDecoder } from "node:util";

/*
 * Many mainland sites still serve GBK or GB2312 (often declared only in a <meta> tag, sometimes not at all).
 * Node's TextDecoder knows them with full ICU (the WHATWG labels gb2312, gbk, x-gbk → gbk; gb18030).
 */

/** The charset a page declares: the Content-Type header first, then a <meta> in its first 4 KiB. */
export function declaredCharset(contentType: string | undefined, body: Buffer): string | undefined {
  const fromHeader = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? "")?.[1];
  if (fromHeader) return fromHeader.toLowerCase();
  // latin1 keeps every byte as one character, so the ASCII of the <meta> reads the same in any charset.
  const head = body.subarray(0, 4096).toString("latin1");
  const meta = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
  return meta?.toLowerCase();
}

/**
 * The page as text. A BOM wins, then the declared charset if TextDecoder knows it. Undeclared: UTF-8 if the
 * bytes are valid UTF-8, else GB18030 (a superset of GBK and GB2312), the likeliest for a page that has to
 * carry an ICP number.
 */
export function decodePage(body: Buffer, contentType: string | undefined): string {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return new TextDecoder("utf-8").decode(body);
  const declared = declaredCharset(contentType, body);
  if (declared !== undefined) {
    const decoder = decoderFor(declared);
    if (decoder) return decoder.decode(body);
  }
  try {
    // `stream` lets a body cut at the size cap end inside a UTF-8 sequence without failing the check.
    return new TextDecoder("utf-8", { fatal: true }).decode(body, { stream: true });
  } catch {
    return new TextDecoder("gb18030").decode(body);
  }
}

function decoderFor(label: string): TextDecoder | undefined {
  try {
    return new TextDecoder(label);
  } catch {
    // An unknown label (a typo, a charset TextDecoder lacks): fall back to sniffing.
    return undefined;
  }
}
