/**
 * Credits the IP lookup owes its data, for the route (or an /about page) to show next to its answers.
 * From the licence files shipped in the packages: @ip-location-db/asn carries ROUTEVIEWS-LICENSE,
 * DBIP-LICENSE and NRO_LICENSE (all CC BY 4.0; DB-IP asks web applications to link back to db-ip.com on
 * pages that display or use its results); the country MMDB's package.json says CC0-1.0 but it ships
 * NRO_LICENSE too (its README: "CC BY 4.0 by NRO"), so NRO is credited for the countries as well.
 */
export const IP_DATA_ATTRIBUTION = {
  /** One line for a response footer or a page; the DB-IP link must stay a link in HTML. */
  text:
    "IP Geolocation by DB-IP (https://db-ip.com), CC BY 4.0; AS data from RouteViews (routeviews.org) and the " +
    "NRO (nro.net), CC BY 4.0; compiled by ip-location-db (github.com/sapics/ip-location-db).",
  /** DB-IP's own snippet, for HTML pages that display results. */
  html: "<a href='https://db-ip.com'>IP Geolocation by DB-IP</a>",
  sources: [
    {
      name: "DB-IP",
      credit: "IP Geolocation by DB-IP",
      url: "https://db-ip.com",
      license: "CC BY 4.0",
      licenseUrl: "https://creativecommons.org/licenses/by/4.0/",
      covers: "AS organisation names (isp) and supplemental AS numbers",
      requirement: "web pages that display or use the results must link back to https://db-ip.com",
    },
    {
      name: "RouteViews",
      credit: "RouteViews, University of Oregon",
      url: "https://www.routeviews.org/routeviews/",
      license: "CC BY 4.0",
      licenseUrl: "https://creativecommons.org/licenses/by/4.0/",
      covers: "IPv4 AS numbers",
      requirement: "attribution to routeviews.org",
    },
    {
      name: "NRO",
      credit: "Number Resource Organization (RIR statistics and WHOIS)",
      url: "https://www.nro.net/",
      license: "CC BY 4.0",
      licenseUrl: "https://creativecommons.org/licenses/by/4.0/",
      covers: "IPv6 and supplemental IPv4 AS numbers; countries",
      requirement: "attribution to nro.net",
    },
    {
      name: "ip-location-db",
      credit: "ip-location-db by sapics (geo-whois-asn-country, asn)",
      url: "https://github.com/sapics/ip-location-db",
      license: "CC0-1.0 (country database); the ASN compilation carries its sources' CC BY 4.0",
      licenseUrl: "https://creativecommons.org/publicdomain/zero/1.0/",
      covers: "country (GeoFeed > RIR WHOIS > RIR ASN-country merge) and the ASN compilation",
      requirement: "none for the country data beyond NRO's",
    },
  ],
} as const;
