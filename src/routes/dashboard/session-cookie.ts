// The dashboard's cookies. Both are scoped to /dashboard, HttpOnly, SameSite=Strict and Secure
// whenever the request came over https; neither holds a credential (see services/dashboard/session).
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { CookieOptions } from "hono/utils/cookie";
import { FLASH_TTL_SECONDS, SESSION_TTL_SECONDS } from "../../services/dashboard/session";

export const SESSION_COOKIE = "mintyard_session";
export const FLASH_COOKIE = "mintyard_flash";
export const DASHBOARD_PATH = "/dashboard";

/** The request came over https: cookies are Secure and pages send HSTS (decision 109). */
export const overHttps = (c: Context) => new URL(c.req.url).protocol === "https:";

const options = (c: Context, maxAge: number): CookieOptions => ({
  path: DASHBOARD_PATH,
  httpOnly: true,
  sameSite: "Strict",
  secure: overHttps(c),
  maxAge,
});

export const readSessionCookie = (c: Context) => getCookie(c, SESSION_COOKIE);
export const setSessionCookie = (c: Context, token: string) => setCookie(c, SESSION_COOKIE, token, options(c, SESSION_TTL_SECONDS));
export const clearSessionCookie = (c: Context) => deleteCookie(c, SESSION_COOKIE, options(c, 0));

export const readFlashCookie = (c: Context) => getCookie(c, FLASH_COOKIE);
export const setFlashCookie = (c: Context, sealed: string) => setCookie(c, FLASH_COOKIE, sealed, options(c, FLASH_TTL_SECONDS));
export const clearFlashCookie = (c: Context) => deleteCookie(c, FLASH_COOKIE, options(c, 0));
