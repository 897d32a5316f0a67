// A key the dashboard created is shown once (decision 121). Its flash cookie, sealed to the
// session, lives 60 s and could be sent again within them; so the flash also carries a nonce
// that D1 holds until the first page rendering the key deletes it. A replay finds no row and
// gets a notice instead of the key; two pages racing for one flash get one row between them.
import { and, eq, gt } from "drizzle-orm";
import { dashboardKeyDisplays } from "../../db/schema";
import type { ServiceContext } from "../context";
import { FLASH_TTL_SECONDS, randomToken, type Flash } from "./session";

export const KEY_ALREADY_SHOWN =
  "This key was shown once already and is not shown again: if it was not copied, revoke it and create another.";

/** A nonce for the flash that will carry a new key, valid as long as the flash. */
export async function reserveKeyDisplay({ db }: ServiceContext): Promise<string> {
  const nonce = randomToken();
  await db.insert(dashboardKeyDisplays).values({ nonce, expiresAt: new Date(Date.now() + FLASH_TTL_SECONDS * 1000) });
  return nonce;
}

/** The flash as the page may render it: a created key only if this render consumed its nonce. */
export async function showCreatedKeyOnce({ db }: ServiceContext, flash: Flash | null): Promise<Flash | null> {
  if (!flash?.createdKey) return flash;
  const nonce = flash.createdKey.displayNonce;
  // A created key's flash without a nonce shows no key rather than failing.
  const consumed =
    typeof nonce === "string" &&
    (await db
      .delete(dashboardKeyDisplays)
      .where(and(eq(dashboardKeyDisplays.nonce, nonce), gt(dashboardKeyDisplays.expiresAt, new Date())))
      .returning({ nonce: dashboardKeyDisplays.nonce })
      .get());
  return consumed ? flash : { notice: KEY_ALREADY_SHOWN };
}
