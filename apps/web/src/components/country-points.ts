import { geoArea, geoCentroid } from "d3-geo";

/**
 * Where a node goes on the map: its country's centroid. world-atlas names countries by their ISO 3166-1
 * numeric code; nodes by alpha-2. This is the alpha-2 code of every numeric code in the 110m atlas
 * (Kosovo has none there: it is matched by name). Countries too small for the atlas, or missing from it,
 * have a fixed point below.
 */
const atlasCodes =
  "FJ242 TZ834 EH732 CA124 US840 KZ398 UZ860 PG598 ID360 AR032 CL152 CD180 SO706 KE404 SD729 TD148 HT332 " +
  "DO214 RU643 BS044 FK238 NO578 GL304 TF260 TL626 ZA710 LS426 MX484 UY858 BR076 BO068 PE604 CO170 PA591 " +
  "CR188 NI558 HN340 SV222 GT320 BZ084 VE862 GY328 SR740 FR250 EC218 PR630 JM388 CU192 ZW716 BW072 NA516 " +
  "SN686 ML466 MR478 BJ204 NE562 NG566 CM120 TG768 GH288 CI384 GN324 GW624 LR430 SL694 BF854 CF140 CG178 " +
  "GA266 GQ226 ZM894 MW454 MZ508 SZ748 AO024 BI108 IL376 LB422 MG450 PS275 GM270 TN788 DZ012 JO400 AE784 " +
  "QA634 KW414 IQ368 OM512 VU548 KH116 TH764 LA418 MM104 VN704 KP408 KR410 MN496 IN356 BD050 BT064 NP524 " +
  "PK586 AF004 TJ762 KG417 TM795 IR364 SY760 AM051 SE752 BY112 UA804 PL616 AT040 HU348 MD498 RO642 LT440 " +
  "LV428 EE233 DE276 BG100 GR300 TR792 AL008 HR191 CH756 LU442 BE056 NL528 PT620 ES724 IE372 NC540 SB090 " +
  "NZ554 AU036 LK144 CN156 TW158 IT380 DK208 GB826 IS352 AZ031 GE268 PH608 MY458 BN096 SI705 FI246 SK703 " +
  "CZ203 ER232 JP392 PY600 YE887 SA682 AQ010 CY196 MA504 EG818 LY434 ET231 DJ262 UG800 RW646 BA070 MK807 " +
  "RS688 ME499 TT780 SS728";

/** [longitude, latitude] of places the 110m atlas does not draw. */
const smallPlaces: Record<string, [number, number]> = {
  SG: [103.82, 1.35],
  HK: [114.17, 22.32],
  MO: [113.55, 22.19],
  BH: [50.56, 26.07],
  MT: [14.42, 35.9],
  MV: [73.22, 3.2],
  MU: [57.55, -20.3],
  SC: [55.45, -4.68],
  AD: [1.52, 42.51],
  MC: [7.42, 43.74],
  LI: [9.55, 47.16],
  SM: [12.46, 43.94],
  VA: [12.45, 41.9],
  BB: [-59.54, 13.19],
  AG: [-61.8, 17.06],
  DM: [-61.37, 15.41],
  GD: [-61.68, 12.12],
  KN: [-62.78, 17.36],
  LC: [-60.98, 13.91],
  VC: [-61.2, 13.25],
  BM: [-64.75, 32.3],
  KY: [-81.25, 19.31],
  GI: [-5.35, 36.14],
  JE: [-2.13, 49.21],
  GG: [-2.58, 49.46],
  IM: [-4.55, 54.24],
  FO: [-6.91, 61.89],
  AW: [-69.97, 12.52],
  CW: [-68.99, 12.17],
  BQ: [-68.26, 12.18],
  GU: [144.79, 13.44],
  MP: [145.7, 15.1],
  AS: [-170.7, -14.27],
  PF: [-149.4, -17.68],
  RE: [55.54, -21.12],
  GP: [-61.55, 16.25],
  MQ: [-61.02, 14.64],
  GF: [-53.1, 3.9],
  YT: [45.1, -12.8],
  PM: [-56.3, 46.9],
  TO: [-175.2, -21.18],
  WS: [-172.1, -13.76],
  KI: [173, 1.4],
  FM: [158.2, 6.9],
  MH: [171.2, 7.1],
  PW: [134.58, 7.51],
  NR: [166.93, -0.52],
  TV: [179.2, -8.52],
  CV: [-23.6, 15.1],
  ST: [6.6, 0.2],
  KM: [43.87, -11.87],
  VI: [-64.9, 18.34],
  VG: [-64.6, 18.42],
  AI: [-63.05, 18.22],
  MS: [-62.19, 16.74],
  TC: [-71.8, 21.8],
  SX: [-63.05, 18.04],
  MF: [-63.08, 18.07],
  BL: [-62.83, 17.9],
  CK: [-159.78, -21.23],
  NU: [-169.87, -19.05],
  WF: [-176.2, -13.3],
  NF: [167.95, -29.04],
  CX: [105.69, -10.45],
  AX: [19.9, 60.2],
  SJ: [16, 78.2],
  XK: [20.9, 42.6],
};

const numericToAlpha2 = new Map(atlasCodes.split(" ").map((e) => [e.slice(2), e.slice(0, 2)] as const));

/** A country of the atlas as topojson-client's `feature` gives it. */
export interface AtlasCountry {
  id?: string | number;
  properties: { name?: string } | null;
  geometry: { type: string; coordinates?: unknown } | null;
}

type Geo = Parameters<typeof geoCentroid>[0];

/** The centroid of the largest part: France's is in France, not pulled towards French Guiana. */
function mainCentroid(f: AtlasCountry): [number, number] {
  const g = f.geometry;
  if (g?.type !== "MultiPolygon") return geoCentroid(f as Geo);
  let best: Geo | undefined;
  let bestArea = -1;
  for (const coordinates of g.coordinates as number[][][][]) {
    const part = { type: "Polygon", coordinates } as Geo;
    const a = geoArea(part);
    if (a > bestArea) {
      bestArea = a;
      best = part;
    }
  }
  return geoCentroid(best!);
}

/** Alpha-2 code → [longitude, latitude], from the atlas's countries plus the small places. */
export function countryPoints(countries: AtlasCountry[]): Map<string, [number, number]> {
  const points = new Map<string, [number, number]>(Object.entries(smallPlaces));
  for (const f of countries) {
    const code =
      f.id !== undefined
        ? numericToAlpha2.get(String(f.id))
        : f.properties?.name === "Kosovo"
          ? "XK"
          : undefined;
    if (code && f.geometry) points.set(code, mainCentroid(f));
  }
  return points;
}

/** Numeric code → alpha-2, for the test of the table itself. */
export const atlasAlpha2 = numericToAlpha2;
