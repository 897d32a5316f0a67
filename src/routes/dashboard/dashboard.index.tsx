// The project dashboard: server-rendered HTML (Hono JSX) under /dashboard, outside the OpenAPI
// document. Sessions, CSRF and flashes are described in services/dashboard/session.ts and
// docs/decisions.md §14. Forms POST and redirect (303) on success; a failure re-renders the page
// with the service's error message and status.
import { Hono, type Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { AppError, errorEnvelope, forbidden } from "../../lib/errors";
import { logError } from "../../lib/log";
import type { AppBindings } from "../app-types";
import { clientRefused, countUnknownKey, tooManyUnknownKeys, unknownKeyClient } from "../../lib/unknown-keys";
import { serviceContext } from "../../services/context";
import {
  createProjectKey,
  parseProjectName,
  projectOverview,
  recentTransactions,
  revokeProjectKey,
} from "../../services/dashboard/project-page";
import {
  csrfToken,
  issueSession,
  openFlash,
  randomToken,
  readSession,
  sealFlash,
  verifyCsrf,
  type Flash,
  type Session,
} from "../../services/dashboard/session";
import { wellFormedKey } from "../../services/auth/keys";
import { assertAdmin, assertProjectAccess, endSession, sessionStillValid, signIn } from "../../services/dashboard/sign-in";
import { reserveKeyDisplay, showCreatedKeyOnce } from "../../services/dashboard/key-display";
import { createProject, listProjects } from "../../services/projects";
import {
  clearFlashCookie,
  clearSessionCookie,
  readFlashCookie,
  readSessionCookie,
  setFlashCookie,
  setSessionCookie,
  overHttps,
} from "./session-cookie";
import { readForm } from "./form";
import { ErrorPage } from "./views/error";
import { keysItCreated } from "./views/format";
import type { PageContext } from "./views/layout";
import { ProjectPage } from "./views/project";
import { ProjectsPage } from "./views/projects";
import { SignInPage } from "./views/sign-in";

type DashboardEnv = {
  Bindings: Env;
  Variables: AppBindings["Variables"] & { nonce: string; session: Session | null };
};
type Ctx = Context<DashboardEnv>;

/** Fixed notices for `/dashboard?m=…` (only these strings are ever shown; the query is a key). */
const NOTICES: Record<string, string> = {
  "signed-out": "You are signed out.",
  "key-revoked": "You revoked the secret key this session was opened with, so you are signed out.",
  ended: "Your session has ended: sign in again.",
};

const ERROR_TITLES: Partial<Record<string, string>> = {
  forbidden: "Not allowed",
  not_found: "Not found",
  validation_error: "Invalid request",
};

async function pageContext(c: Ctx): Promise<PageContext> {
  const session = c.get("session");
  const nonce = c.get("nonce");
  if (!session) return { nonce };
  return {
    nonce,
    csrf: await csrfToken(c.env.ADMIN_TOKEN, session),
    signedInAs: session.kind === "admin" ? "admin" : "project secret key",
  };
}

function requireSession(c: Ctx): Session {
  const session = c.get("session");
  if (!session) throw new AppError("unauthorized", "sign in to continue (no session, or it has ended)");
  return session;
}

/** A signed-in form submission with this session's CSRF token. */
async function submittedForm(c: Ctx) {
  const session = requireSession(c);
  const form = await readForm(c);
  if (!(await verifyCsrf(c.env.ADMIN_TOKEN, session, form.csrf))) {
    throw forbidden("missing or invalid CSRF token: reload the page and submit the form again");
  }
  return { session, form };
}

async function takeFlash(c: Ctx, session: Session): Promise<Flash | null> {
  const sealed = readFlashCookie(c);
  if (!sealed) return null;
  clearFlashCookie(c);
  return showCreatedKeyOnce(serviceContext(c.env), await openFlash(c.env.ADMIN_TOKEN, session, sealed));
}

async function redirectWithFlash(c: Ctx, session: Session, location: string, flash: Flash) {
  setFlashCookie(c, await sealFlash(c.env.ADMIN_TOKEN, session, flash));
  return c.redirect(location, 303);
}

const appErrorOnly = (error: unknown): AppError => {
  if (error instanceof AppError) return error;
  throw error;
};

async function renderProjects(c: Ctx, options: { error?: AppError; notice?: string; name?: string } = {}) {
  const projects = await listProjects(serviceContext(c.env));
  return c.html(
    <ProjectsPage page={await pageContext(c)} projects={projects} error={options.error?.message} notice={options.notice} name={options.name} />,
    options.error?.status ?? 200,
  );
}

async function renderProject(c: Ctx, session: Session, projectId: string, options: { error?: AppError; flash?: Flash | null } = {}) {
  const overview = await projectOverview(serviceContext(c.env), projectId);
  return c.html(
    <ProjectPage
      page={await pageContext(c)}
      overview={overview}
      currentKeyId={session.kind === "project" ? session.keyId : undefined}
      created={options.flash?.createdKey}
      notice={options.flash?.notice}
      error={options.error?.message}
    />,
    options.error?.status ?? 200,
  );
}

export const dashboardRouter = new Hono<DashboardEnv>();

dashboardRouter.use("*", async (c, next) => {
  const nonce = randomToken();
  c.set("nonce", nonce);
  // Pages may show a key once: nothing is cached or framed, and no URL leaves in a Referer.
  // (same-origin rather than no-referrer: with no-referrer, browsers send `Origin: null` on
  // form posts, which the origin check below must refuse.)
  c.header("Cache-Control", "no-store");
  c.header(
    "Content-Security-Policy",
    `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  );
  c.header("X-Content-Type-Options", "nosniff");
  c.header("X-Frame-Options", "DENY");
  c.header("Referrer-Policy", "same-origin");
  // Sign-in posts the admin token or a secret key: a browser that has been here over https must
  // never post it over plain http (decision 109). No includeSubDomains: the Worker's route need
  // not own the zone's other hosts.
  if (overHttps(c)) c.header("Strict-Transport-Security", "max-age=31536000");

  const token = readSessionCookie(c);
  let session = await readSession(c.env.ADMIN_TOKEN, token);
  if (session && !(await sessionStillValid(serviceContext(c.env), session))) session = null;
  if (token && !session) clearSessionCookie(c);
  c.set("session", session);
  await next();
});

// Defence in depth next to SameSite=Strict and the CSRF token, and the only guard of the sign-in
// form (no session yet): a browser's cross-site POST carries a foreign Origin.
dashboardRouter.post("*", async (c, next) => {
  const origin = c.req.header("origin");
  if (origin && origin !== new URL(c.req.url).origin) throw forbidden("cross-origin form submissions are refused");
  await next();
});

dashboardRouter.get("/", async (c) => {
  const session = c.get("session");
  if (!session) {
    const notice = NOTICES[c.req.query("m") ?? ""] ?? (readSessionCookie(c) ? NOTICES.ended : undefined);
    return c.html(<SignInPage page={await pageContext(c)} notice={notice} />);
  }
  if (session.kind === "project") return c.redirect(`/dashboard/projects/${session.projectId}`, 303);
  const flash = await takeFlash(c, session);
  return renderProjects(c, { notice: flash?.notice });
});

dashboardRouter.post("/sign-in", async (c) => {
  try {
    // Guessing keys here costs the same lookups as on the API, and counts the same way; a refused
    // client still signs in with the admin token or a key KV knows (decisions 105, 119).
    const client = unknownKeyClient((name) => c.req.header(name));
    const reach = clientRefused(client) ? "kv" : "stores";
    const form = await readForm(c);
    const principal = await signIn(serviceContext(c.env), form.credential, reach).catch(async (error: unknown) => {
      const lookedUp = typeof form.credential === "string" && wellFormedKey(form.credential.trim());
      if (error instanceof AppError && error.code === "unauthorized" && lookedUp) {
        if (reach === "kv") throw tooManyUnknownKeys();
        await countUnknownKey(c.env, client);
      }
      throw error;
    });
    const { token } = await issueSession(c.env.ADMIN_TOKEN, principal);
    setSessionCookie(c, token);
    return c.redirect(principal.kind === "admin" ? "/dashboard" : `/dashboard/projects/${principal.projectId}`, 303);
  } catch (error) {
    const appError = appErrorOnly(error);
    return c.html(<SignInPage page={{ nonce: c.get("nonce") }} error={appError.message} />, appError.status, appError.headers);
  }
});

dashboardRouter.post("/sign-out", async (c) => {
  // Without a live session there is nothing to protect; with one, the token keeps other sites
  // from signing the user out.
  const session = c.get("session");
  if (session) {
    await submittedForm(c);
    await endSession(serviceContext(c.env), session);
  }
  clearSessionCookie(c);
  clearFlashCookie(c);
  return c.redirect("/dashboard?m=signed-out", 303);
});

dashboardRouter.post("/projects", async (c) => {
  const { session, form } = await submittedForm(c);
  assertAdmin(session, "create projects");
  const rawName = typeof form.name === "string" ? form.name : "";
  try {
    const project = await createProject(serviceContext(c.env), parseProjectName(rawName));
    return redirectWithFlash(c, session, `/dashboard/projects/${project.id}`, { notice: `Project “${project.name}” created.` });
  } catch (error) {
    return renderProjects(c, { error: appErrorOnly(error), name: rawName });
  }
});

dashboardRouter.get("/projects/:id", async (c) => {
  const session = requireSession(c);
  const projectId = c.req.param("id");
  assertProjectAccess(session, projectId);
  return renderProject(c, session, projectId, { flash: await takeFlash(c, session) });
});

dashboardRouter.get("/projects/:id/transactions.json", async (c) => {
  try {
    const session = requireSession(c);
    const projectId = c.req.param("id");
    assertProjectAccess(session, projectId);
    return c.json(await recentTransactions(serviceContext(c.env), projectId));
  } catch (error) {
    const appError = appErrorOnly(error);
    return c.json(errorEnvelope(appError, c.get("requestId")), appError.status);
  }
});

dashboardRouter.post("/projects/:id/keys", async (c) => {
  const { session, form } = await submittedForm(c);
  const projectId = c.req.param("id");
  assertProjectAccess(session, projectId);
  try {
    const key = await createProjectKey(serviceContext(c.env), projectId, form.kind, session.kind === "project" ? session.keyId : null);
    return redirectWithFlash(c, session, `/dashboard/projects/${projectId}`, {
      createdKey: { id: key.id, kind: key.kind, key: key.key, prefix: key.prefix, displayNonce: await reserveKeyDisplay(serviceContext(c.env)) },
    });
  } catch (error) {
    return renderProject(c, session, projectId, { error: appErrorOnly(error) });
  }
});

dashboardRouter.post("/projects/:id/keys/:keyId/revoke", async (c) => {
  const { session, form } = await submittedForm(c);
  const projectId = c.req.param("id");
  assertProjectAccess(session, projectId);
  try {
    const key = await revokeProjectKey(serviceContext(c.env), projectId, c.req.param("keyId"), form.descendants === "on");
    // The session's own key, or one of the keys it descends from.
    if (session.kind === "project" && (session.keyId === key.id || key.revoked.includes(session.keyId))) {
      await endSession(serviceContext(c.env), session);
      clearSessionCookie(c);
      clearFlashCookie(c);
      return c.redirect("/dashboard?m=key-revoked", 303);
    }
    const label = key.kind === "api" ? "API key" : "Secret key";
    const others = key.revoked.filter((id) => id !== key.id).length;
    // A key revoked before (a stale page, a second submit): say so, and what went with it now.
    const notice = key.revoked.includes(key.id)
      ? `${label} ${key.prefix}… revoked${others ? `, with ${keysItCreated(others)}` : ""}.`
      : `${label} ${key.prefix}… was already revoked${form.descendants === "on" ? `; revoked now: ${keysItCreated(others)}` : ""}.`;
    return redirectWithFlash(c, session, `/dashboard/projects/${projectId}`, { notice });
  } catch (error) {
    return renderProject(c, session, projectId, { error: appErrorOnly(error) });
  }
});

dashboardRouter.all("*", (c) => {
  throw new AppError("not_found", `no dashboard page at ${c.req.path}`);
});

dashboardRouter.onError(async (error, c) => {
  let appError: AppError;
  if (error instanceof AppError) appError = error;
  else if (error instanceof HTTPException && error.status < 500) appError = new AppError("validation_error", error.message || "unreadable form");
  else {
    logError(c.env, { requestId: c.get("requestId"), method: c.req.method, path: c.req.path }, error);
    appError = new AppError("internal_error", "internal error");
  }
  if (appError.status === 401) {
    return c.html(<SignInPage page={{ nonce: c.get("nonce") }} error={appError.message} />, 401);
  }
  return c.html(
    <ErrorPage
      page={await pageContext(c)}
      title={ERROR_TITLES[appError.code] ?? "Something went wrong"}
      message={appError.message}
      requestId={appError.status >= 500 ? c.get("requestId") : undefined}
    />,
    appError.status,
  );
});
