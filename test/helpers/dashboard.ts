// A minimal browser for the dashboard through SELF.fetch: a cookie jar (name → value, honouring
// Max-Age=0 deletions), form posts, manual redirects, and the CSRF token read off the last page.
// Every response is secret-scanned: a key shown once is registered as a secret right after the
// page that showed it, so any later page or log line holding it fails the file.
import { SELF } from "cloudflare:test";
import { BASE } from "./http";
import { scanForSecrets } from "./secret-scan";

export interface Page {
  status: number;
  headers: Headers;
  html: string;
  location: string | null;
  setCookies: string[];
}

const setCookiesOf = (headers: Headers) => headers.getSetCookie();

export class DashboardClient {
  readonly cookies = new Map<string, string>();
  csrf: string | undefined;

  constructor(readonly base = BASE) {}

  private cookieHeader() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  private async send(path: string, init: RequestInit & { headers?: Record<string, string> }): Promise<Page> {
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookies.size) headers.cookie = this.cookieHeader();
    const response = await SELF.fetch(`${this.base}${path}`, { ...init, headers, redirect: "manual" });
    const html = await response.text();
    scanForSecrets(`dashboard ${init.method ?? "GET"} ${path} → ${response.status}`, `${[...response.headers].join("\n")}\n${html}`);
    const setCookies = setCookiesOf(response.headers);
    for (const line of setCookies) {
      const [pair] = line.split(";");
      const index = pair!.indexOf("=");
      const name = pair!.slice(0, index).trim();
      const value = pair!.slice(index + 1).trim();
      if (/;\s*max-age=0/i.test(line) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    if (csrf) this.csrf = csrf;
    return { status: response.status, headers: response.headers, html, location: response.headers.get("location"), setCookies };
  }

  get(path: string) {
    return this.send(path, { method: "GET" });
  }

  /** A form POST; the page's CSRF token is added unless `fields.csrf` is given (null: omitted). */
  post(path: string, fields: Record<string, string | null> = {}, headers: Record<string, string> = {}) {
    const form = new URLSearchParams();
    const withCsrf = "csrf" in fields ? fields : { ...fields, csrf: this.csrf ?? null };
    for (const [name, value] of Object.entries(withCsrf)) if (value !== null) form.set(name, value);
    return this.send(path, { method: "POST", body: form.toString(), headers: { "content-type": "application/x-www-form-urlencoded", ...headers } });
  }

  /** Follows a 303 with a GET, as a browser does. */
  async follow(page: Page) {
    if (page.status !== 303 || !page.location) throw new Error(`expected a 303, got ${page.status}: ${page.html.slice(0, 500)}`);
    const target = new URL(page.location, this.base);
    return this.get(target.pathname + target.search);
  }

  async signIn(credential: string) {
    const page = await this.post("/dashboard/sign-in", { credential, csrf: null });
    if (page.status !== 303) throw new Error(`sign-in: ${page.status} ${page.html.slice(0, 500)}`);
    return this.follow(page);
  }
}

/** Text of the page with tags removed and entities decoded (enough for assertions). */
export function pageText(html: string) {
  return html
    .replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");
}

export const createdKeyOf = (html: string) => /<code id="created-key" data-key-id="([^"]+)">([^<]+)<\/code>/.exec(html);
