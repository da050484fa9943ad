// Tells the server the viewer's time zone (its IANA name, e.g. "Europe/Paris") in the `tz`
// cookie, so that the pages show times in it (dewee.middleware.viewer_time_zone). Without
// JavaScript the server's own zone is used, and every time says which zone it is in.
(function () {
  "use strict";
  let zone;
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch (error) {
    return;
  }
  if (!zone || !/^[A-Za-z0-9_+\-\/]+$/.test(zone)) return;
  const current = document.cookie.split("; ").find((pair) => pair.startsWith("tz="));
  if (current === "tz=" + zone) return;
  const secure = location.protocol === "https:" ? "; Secure" : "";
  document.cookie = "tz=" + zone + "; path=/; max-age=31536000; SameSite=Lax" + secure;
})();
