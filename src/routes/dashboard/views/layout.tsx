import type { Child } from "hono/jsx";
import { raw } from "hono/html";
import { DASHBOARD_CSS } from "../assets";

export interface PageContext {
  nonce: string;
  /** Who is signed in, for the header; absent on the sign-in page. */
  signedInAs?: string;
  csrf?: string;
}

export function Alerts(props: { error?: string; notice?: string }) {
  return (
    <>
      {props.error ? (
        <p class="alert error" role="alert">
          <strong>Error:</strong> {props.error}
        </p>
      ) : null}
      {props.notice ? (
        <p class="alert notice" role="status">
          {props.notice}
        </p>
      ) : null}
    </>
  );
}

export function CsrfField(props: { csrf?: string }) {
  return props.csrf ? <input type="hidden" name="csrf" value={props.csrf} /> : null;
}

export function Layout(props: { title: string; page: PageContext; children: Child }) {
  const { page } = props;
  return (
    <>
      {raw("<!doctype html>")}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="referrer" content="same-origin" />
          <title>{props.title} · Mintyard dashboard</title>
          <style nonce={page.nonce}>{raw(DASHBOARD_CSS)}</style>
        </head>
        <body>
          <header>
            <a href="/dashboard">Mintyard dashboard</a>
            {page.signedInAs ? (
              <span>
                <span class="muted">Signed in as {page.signedInAs}</span>{" "}
                <form class="inline" method="post" action="/dashboard/sign-out">
                  <CsrfField csrf={page.csrf} />
                  <button type="submit">Sign out</button>
                </form>
              </span>
            ) : null}
          </header>
          <main>{props.children}</main>
        </body>
      </html>
    </>
  );
}
