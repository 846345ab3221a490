/*
 * What the rating needs from a negotiated suite, read from its IANA name (getCipher().standardName):
 * symmetric strength in bits, forward secrecy, AEAD.
 */

const BITS: [RegExp, number][] = [
  [/_WITH_NULL_|^TLS_NULL/, 0],
  [/EXPORT|_40_|RC4_40|DES40/, 40],
  [/_DES_CBC_|_DES_/, 56],
  [/3DES|DES_EDE/, 112],
  [/_(?:AES|CAMELLIA|ARIA)_256_|CHACHA20/, 256],
  [/_(?:AES|CAMELLIA|ARIA)_128_|RC4_128|SEED|IDEA|SM4/, 128],
];

/** Symmetric key bits of a suite; null when the name is not one we know (left out of the rating). */
export function cipherBits(suite: string): number | null {
  for (const [pattern, bits] of BITS) if (pattern.test(suite)) return bits;
  return null;
}

/** TLS 1.3 suites (TLS_AES_…, TLS_CHACHA20_…) always use an ephemeral key exchange. */
export function forwardSecret(suite: string): boolean {
  return /^TLS_(?:AES|CHACHA20|SM4)_|_(?:ECDHE|DHE)_/.test(suite);
}

export function aead(suite: string): boolean {
  return /_GCM_|_CCM|POLY1305/.test(suite);
}
