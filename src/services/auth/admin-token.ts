// The admin token is the one credential over every project, and the dashboard's session, CSRF and
// flash keys derive from it: any project's secret-key holder gets a session cookie signed with a
// key derived from it, so a short token could be guessed offline. A token this short is treated
// as unset (admin API and dashboard refuse to work) rather than trusted.
import { AppError } from "../../lib/errors";
import { sha256Hex, timingSafeEqualHex } from "./keys";

export const ADMIN_TOKEN_MIN_LENGTH = 32;

/** The configured admin token, or null when it is unset or too short to be used. */
export const usableAdminToken = (token: string | undefined): string | null =>
  token !== undefined && token.length >= ADMIN_TOKEN_MIN_LENGTH ? token : null;

/** 401 for a surface the admin token guards while the token is unusable; `what` names it. */
export const adminTokenUnusable = (what: "admin API" | "dashboard") =>
  new AppError("unauthorized", `the ${what} is not configured: ADMIN_TOKEN is not set or shorter than ${ADMIN_TOKEN_MIN_LENGTH} characters`);

/** Whether `given` is the admin token, compared as SHA-256 digests in constant time. */
export async function isAdminToken(adminToken: string, given: string): Promise<boolean> {
  const [a, b] = await Promise.all([sha256Hex(given), sha256Hex(adminToken)]);
  return timingSafeEqualHex(a, b);
}
