import { raw } from "hono/html";
import type { projectOverview } from "../../../services/dashboard/project-page";
import type { CreatedKeyFlash } from "../../../services/dashboard/session";
import { TRANSACTIONS_SCRIPT } from "../assets";
import { formatUnits, keysItCreated } from "./format";
import { Alerts, CsrfField, Layout, type PageContext } from "./layout";

type Overview = Awaited<ReturnType<typeof projectOverview>>;

const KIND_LABEL = { api: "API key", secret: "Secret key" } as const;

function CreatedKey(props: { created: CreatedKeyFlash }) {
  const { created } = props;
  return (
    <section class="alert once" aria-labelledby="created-key-heading">
      <h2 id="created-key-heading">New {KIND_LABEL[created.kind].toLowerCase()} created</h2>
      <p>Copy it now: it is shown only this once and cannot be recovered.</p>
      <p>
        <code id="created-key" data-key-id={created.id}>
          {created.key}
        </code>
      </p>
    </section>
  );
}

/**
 * For each key, how many unrevoked keys its sessions created, and theirs (decision 110). A key's
 * creator is always an older key of the project, so the walk has no cycle.
 */
function liveDescendantCounts(keys: Overview["keys"]): Map<string, number> {
  const children = new Map<string, Overview["keys"]>();
  for (const key of keys) {
    if (!key.createdByKeyId) continue;
    const siblings = children.get(key.createdByKeyId) ?? [];
    siblings.push(key);
    children.set(key.createdByKeyId, siblings);
  }
  const count = (keyId: string): number => (children.get(keyId) ?? []).reduce((total, child) => total + (child.revokedAt ? 0 : 1) + count(child.id), 0);
  return new Map(keys.map((key) => [key.id, count(key.id)]));
}

/** Shown while keys this key created are live, revoked or not itself: after a leak, all of them go. */
function RevokeWithDescendants(props: { projectId: string; keyId: string; prefix: string; count: number; csrf?: string }) {
  if (props.count === 0) return null;
  const label = keysItCreated(props.count);
  return (
    <form class="inline" method="post" action={`/dashboard/projects/${props.projectId}/keys/${props.keyId}/revoke`}>
      <CsrfField csrf={props.csrf} />
      <input type="hidden" name="descendants" value="on" />
      <button type="submit" aria-label={`Revoke with the ${label}: ${props.prefix}…`}>
        Revoke with the {label}
      </button>
    </form>
  );
}

function Keys(props: { overview: Overview; csrf?: string; currentKeyId?: string }) {
  const { project, keys } = props.overview;
  const prefixOf = new Map(keys.map((key) => [key.id, key.prefix]));
  const descendants = liveDescendantCounts(keys);
  return (
    <section aria-labelledby="keys">
      <h2 id="keys">Keys</h2>
      <form class="stack" method="post" action={`/dashboard/projects/${project.id}/keys`}>
        <CsrfField csrf={props.csrf} />
        <div>
          <label for="key-kind">Kind</label>
          <select id="key-kind" name="kind">
            <option value="api">API key (reads, listings)</option>
            <option value="secret">Secret key (spends with the project wallet)</option>
          </select>
        </div>
        <button type="submit">Create key</button>
      </form>
      {keys.length === 0 ? (
        <p>No keys yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Kind</th>
              <th scope="col">Created</th>
              <th scope="col">Created by</th>
              <th scope="col">Status</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr data-key-id={key.id}>
                <td>
                  <code>{key.prefix}…</code>
                  {key.id === props.currentKeyId ? <span class="muted"> (this session)</span> : null}
                </td>
                <td>{KIND_LABEL[key.kind]}</td>
                <td>{key.createdAt}</td>
                <td>
                  {/* Null is the admin token, or a key older than the lineage (migration 0026). */}
                  {key.createdByKeyId ? <code>{prefixOf.get(key.createdByKeyId)}…</code> : "admin or not recorded"}
                </td>
                <td>{key.revokedAt ? `revoked ${key.revokedAt}` : "active"}</td>
                <td>
                  {key.revokedAt ? null : (
                    <form class="inline" method="post" action={`/dashboard/projects/${project.id}/keys/${key.id}/revoke`}>
                      <CsrfField csrf={props.csrf} />
                      <button type="submit" aria-label={`Revoke ${KIND_LABEL[key.kind].toLowerCase()} ${key.prefix}`}>
                        Revoke
                      </button>
                    </form>
                  )}
                  <RevokeWithDescendants projectId={project.id} keyId={key.id} prefix={key.prefix} count={descendants.get(key.id) ?? 0} csrf={props.csrf} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Wallet(props: { overview: Overview }) {
  const { wallet } = props.overview;
  return (
    <section aria-labelledby="wallet">
      <h2 id="wallet">Wallet</h2>
      <p>
        Address: <code id="wallet-address">{wallet.address}</code>
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">Chain</th>
            <th scope="col">Balance</th>
          </tr>
        </thead>
        <tbody>
          {wallet.balances.map((balance) => (
            <tr data-chain-id={String(balance.chainId)}>
              <td>{balance.chainId}</td>
              <td>
                {balance.balance === null
                  ? `unavailable (${"error" in balance ? balance.error : "no answer"})`
                  : `${formatUnits(balance.balance)} ${balance.symbol}`}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Drops(props: { overview: Overview }) {
  const { rows, total } = props.overview.drops;
  return (
    <section aria-labelledby="drops">
      <h2 id="drops">Drops ({total})</h2>
      {rows.length === 0 ? (
        <p id="drops-empty">No drops yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Symbol</th>
              <th scope="col">Chain</th>
              <th scope="col">Contract</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((drop) => (
              <tr>
                <td>{drop.name}</td>
                <td>{drop.symbol}</td>
                <td>{drop.chainId}</td>
                <td>
                  <code>{drop.contractAddress}</code>
                </td>
                <td>{drop.createdAt}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Transactions(props: { overview: Overview; nonce: string }) {
  const { project, transactions } = props.overview;
  return (
    <section aria-labelledby="transactions-heading">
      <h2 id="transactions-heading">Transactions ({transactions.total})</h2>
      <p id="tx-refresh" class="muted" aria-live="polite">
        Statuses refresh automatically while this page is open.
      </p>
      <div id="transactions" data-endpoint={`/dashboard/projects/${project.id}/transactions.json`}>
        <p id="tx-empty" hidden={transactions.data.length > 0}>
          No transactions yet.
        </p>
        <table>
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Status</th>
              <th scope="col">Chain</th>
              <th scope="col">Hash</th>
              <th scope="col">Created</th>
              <th scope="col">Updated</th>
              <th scope="col">Error</th>
            </tr>
          </thead>
          <tbody>
            {transactions.data.map((tx) => (
              <tr data-tx-id={tx.id}>
                <td>
                  <code>{tx.id}</code>
                </td>
                <td>
                  <span class={`status status-${tx.status}`} data-status={tx.status}>
                    {tx.status}
                  </span>
                </td>
                <td>{tx.chainId}</td>
                <td>
                  <code>{tx.transactionHash}</code>
                </td>
                <td>{tx.createdAt}</td>
                <td>{tx.updatedAt}</td>
                <td>{tx.errorMessage ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <script nonce={props.nonce}>{raw(TRANSACTIONS_SCRIPT)}</script>
    </section>
  );
}

export function ProjectPage(props: {
  page: PageContext;
  overview: Overview;
  /** The secret key this session signed in with (marked in the key list). */
  currentKeyId?: string;
  created?: CreatedKeyFlash;
  error?: string;
  notice?: string;
}) {
  const { project } = props.overview;
  return (
    <Layout title={project.name} page={props.page}>
      <h1>{project.name}</h1>
      <Alerts error={props.error} notice={props.notice} />
      {props.created ? <CreatedKey created={props.created} /> : null}
      <dl>
        <dt>Project id</dt>
        <dd>
          <code id="project-id">{project.id}</code>
        </dd>
        <dt>Created</dt>
        <dd>{project.createdAt}</dd>
      </dl>
      <Wallet overview={props.overview} />
      <Keys overview={props.overview} csrf={props.page.csrf} currentKeyId={props.currentKeyId} />
      <Drops overview={props.overview} />
      <Transactions overview={props.overview} nonce={props.page.nonce} />
    </Layout>
  );
}
