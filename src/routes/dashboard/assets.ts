// The dashboard's only stylesheet and script: constants sent inline under a per-response CSP
// nonce, so no build step and no static files. Neither contains request data.

export const DASHBOARD_CSS = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.45; }
body { margin: 0 auto; max-width: 72rem; padding: 0 1rem 3rem; }
header { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; justify-content: space-between; border-bottom: 1px solid #8886; padding: .75rem 0; }
header form { display: inline; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; font-size: .9rem; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #8884; vertical-align: top; }
code { font-size: .85rem; word-break: break-all; }
form.inline { display: inline; margin: 0; }
form.stack { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; margin: .5rem 0 1rem; }
label { display: block; font-weight: 600; }
input, select, button { font: inherit; padding: .3rem .5rem; }
.alert { padding: .6rem .8rem; border-radius: .3rem; border: 1px solid; }
.error { border-color: #c33; background: #c331; }
.notice { border-color: #383; background: #3831; }
.once { border-color: #b80; background: #b801; }
.status-pending { color: #b70; } .status-confirmed { color: #282; } .status-reverted, .status-failed { color: #c33; }
.muted { opacity: .75; }
`;

/**
 * Keeps the transaction table live: polls the page's JSON endpoint every 2 s while a transaction
 * is pending, every 10 s otherwise, and not while the tab is hidden. Rows are rebuilt with
 * textContent only, so server data is never parsed as HTML.
 */
export const TRANSACTIONS_SCRIPT = `
(() => {
  const root = document.getElementById("transactions");
  if (!root) return;
  const tbody = root.querySelector("tbody");
  const empty = document.getElementById("tx-empty");
  const note = document.getElementById("tx-refresh");
  let timer;
  const text = (value, code) => {
    const td = document.createElement("td");
    if (code) { const el = document.createElement("code"); el.textContent = value; td.append(el); } else td.textContent = value;
    return td;
  };
  const row = (tx) => {
    const tr = document.createElement("tr");
    tr.dataset.txId = tx.id;
    const status = document.createElement("td");
    const badge = document.createElement("span");
    badge.className = "status status-" + tx.status;
    badge.dataset.status = tx.status;
    badge.textContent = tx.status;
    status.append(badge);
    tr.append(text(tx.id, true), status, text(String(tx.chainId)), text(tx.transactionHash || "-", true), text(tx.createdAt), text(tx.updatedAt), text(tx.errorMessage || ""));
    return tr;
  };
  const schedule = (ms) => { clearTimeout(timer); timer = setTimeout(poll, ms); };
  async function poll() {
    if (document.hidden) return schedule(5000);
    try {
      const response = await fetch(root.dataset.endpoint, { headers: { accept: "application/json" }, cache: "no-store" });
      if (response.status === 401) { note.textContent = "Your session has ended: reload the page to sign in again."; return; }
      if (!response.ok) throw new Error("HTTP " + response.status);
      const { data } = await response.json();
      tbody.replaceChildren(...data.map(row));
      empty.hidden = data.length > 0;
      note.textContent = "Updated at " + new Date().toLocaleTimeString();
      schedule(data.some((tx) => tx.status === "pending") ? 2000 : 10000);
    } catch {
      note.textContent = "Could not refresh the transactions; retrying.";
      schedule(10000);
    }
  }
  schedule(root.querySelector('[data-status="pending"]') ? 2000 : 10000);
})();
`;
