/**
 * The public receipt page: server-rendered, self-contained HTML (inline CSS, no scripts, no external
 * assets), so that it renders under `default-src 'none'; style-src 'unsafe-inline'; img-src data:`.
 * Every value from the receipt is escaped by the `html` template.
 */
import type { AcceptanceReceipt, CheckStatus, Verdict, VerificationCheck, VerificationReport } from '@svc/evidence';
import { html, raw, type SafeHtml } from './html';

/** Everything the page shows. */
export interface ReceiptPageModel {
  receipt: AcceptanceReceipt;
  /** The service's verification of the receipt against the ledger, made for this request. */
  report: VerificationReport;
  /** When `report` was made. */
  checkedAt: Date;
  /** Commitment of the acceptance transaction: `finalized` or `confirmed`. */
  commitment: string;
  /** Path of the receipt JSON download, e.g. `/receipts/<id>.json`. */
  downloadPath: string;
  /** File name of the download, e.g. `receipt-<id>.json`. */
  downloadName: string;
  /** A public JSON-RPC endpoint of the receipt's network, for `svc verify --rpc`; null when none is announced. */
  rpcUrl: string | null;
}

/** The security headers of every HTML page (and download) of this module. */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

const VERDICTS: Record<Verdict, { title: string; tone: Tone }> = {
  VALID: { title: 'Valid', tone: 'good' },
  VALID_WITH_WARNINGS: { title: 'Valid, with warnings', tone: 'warn' },
  INVALID: { title: 'Invalid', tone: 'bad' },
  INCONCLUSIVE: { title: 'Inconclusive', tone: 'neutral' },
};

const STATUSES: Record<CheckStatus, { text: string; tone: Tone }> = {
  pass: { text: 'pass', tone: 'good' },
  warn: { text: 'warn', tone: 'warn' },
  fail: { text: 'fail', tone: 'bad' },
  skip: { text: 'skip', tone: 'neutral' },
};

type Tone = 'good' | 'warn' | 'bad' | 'neutral';

const STYLE = raw(`
:root{color-scheme:light dark;--fg:#1b1f24;--muted:#5b636e;--bg:#f6f7f9;--card:#fff;--line:#dde1e6;--code:#f0f2f5;
--good:#116329;--good-bg:#dafbe1;--warn:#7d4e00;--warn-bg:#fff8c5;--bad:#a40e26;--bad-bg:#ffebe9;--neutral:#424a53;--neutral-bg:#eaeef2}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9aa4af;--bg:#0d1117;--card:#161b22;--line:#30363d;--code:#1f252d;
--good:#56d364;--good-bg:#0f2d1a;--warn:#e3b341;--warn-bg:#2e2410;--bad:#ff7b72;--bad-bg:#3a1216;--neutral:#c9d1d9;--neutral-bg:#262c34}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:860px;margin:0 auto;padding:24px 16px 48px}
h1{font-size:1.5rem;margin:0 0 4px}
h2{font-size:1.05rem;margin:0 0 12px}
p{margin:0 0 10px}
a{color:inherit}
section,.verdict{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:16px 18px;margin:0 0 16px}
.muted{color:var(--muted)}
.id{font-size:.85rem}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem}
.mono,dd{overflow-wrap:anywhere}
pre{background:var(--code);border-radius:6px;padding:12px;margin:0;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}
dl{display:grid;grid-template-columns:minmax(120px,190px) 1fr;gap:6px 16px;margin:0}
dt{color:var(--muted)}
dd{margin:0}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(380px,1fr));gap:0 16px}
.grid dl{grid-template-columns:max-content 1fr}
.verdict{border-width:2px}
.verdict .label{font-size:1.35rem;font-weight:700;margin:0 0 4px}
.tone-good{border-color:var(--good)}.tone-good .label{color:var(--good)}
.tone-warn{border-color:var(--warn)}.tone-warn .label{color:var(--warn)}
.tone-bad{border-color:var(--bad)}.tone-bad .label{color:var(--bad)}
.tone-neutral{border-color:var(--neutral)}.tone-neutral .label{color:var(--neutral)}
table{width:100%;border-collapse:collapse}
td{border-top:1px solid var(--line);padding:6px 4px;vertical-align:top}
td.st{width:56px}
.badge{display:inline-block;min-width:44px;text-align:center;border-radius:999px;padding:0 8px;font-size:.75rem;font-weight:600;text-transform:uppercase}
.badge.good{color:var(--good);background:var(--good-bg)}.badge.warn{color:var(--warn);background:var(--warn-bg)}
.badge.bad{color:var(--bad);background:var(--bad-bg)}.badge.neutral{color:var(--neutral);background:var(--neutral-bg)}
.detail{color:var(--muted);font-size:.85rem;overflow-wrap:anywhere}
pre.command{overflow-wrap:normal}
details>summary{cursor:pointer;font-weight:600}
details[open]>summary{margin-bottom:10px}
.button{display:inline-block;border:1px solid var(--line);border-radius:6px;padding:6px 12px;text-decoration:none;font-weight:600;background:var(--code)}
@media (max-width:560px){dl,.grid dl{grid-template-columns:1fr}dd{margin-bottom:6px}.grid{grid-template-columns:1fr}}
`);

/** Renders a full HTML document around `body`. */
export function layout(title: string, body: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** The receipt page of one acceptance. */
export function renderReceiptPage(m: ReceiptPageModel): string {
  const r = m.receipt;
  const verdict = VERDICTS[m.report.verdict];
  const command = `svc verify ${m.downloadName} --rpc ${m.rpcUrl ?? '<JSON-RPC URL of the ' + r.network.label + ' network>'}`;
  const body = html`
<header>
<h1>Acceptance receipt</h1>
<p class="muted">${r.document.title}, version ${r.version.label}, accepted on ${r.network.label}.</p>
<p class="id muted">Acceptance ID <span class="mono">${r.acceptanceId}</span></p>
</header>

<div class="verdict tone-${verdict.tone}" role="status">
<p class="label">${verdict.title} <span class="mono muted">(${m.report.verdict})</span></p>
<p>${m.report.summary}</p>
<p class="muted">Checked by this service against the ledger at ${m.checkedAt.toISOString()}.</p>
</div>

<div class="grid">
<section>
<h2>Who signed</h2>
${definitions([
  ['Signer', mono(r.acceptance.signer)],
  ['Signer type', r.acceptance.signerType],
  ['Signature', mono(r.acceptance.signature)],
])}
</section>

<section>
<h2>When</h2>
${definitions([
  ['Block time', r.transaction.blockTime === null ? 'unknown' : utc(r.transaction.blockTime)],
  ['Slot', mono(String(r.transaction.slot))],
  ['Commitment', m.commitment],
  ['Network', html`${r.network.label} <span class="mono muted">${r.network.chainId}</span>`],
])}
</section>
</div>

<section>
<h2>What</h2>
${definitions([
  ['Organization', html`${r.organization.name}<br><span class="mono muted">${r.organization.address}</span>`],
  ['Document', html`${r.document.title} <span class="muted">(${r.document.slug})</span><br><span class="mono muted">${r.document.address}</span>`],
  ['Version', html`${r.version.number} · ${r.version.label} · ${r.version.title}<br><span class="mono muted">${r.version.address}</span>`],
  ['Effective', r.version.effectiveAt === null ? 'on publication' : utc(r.version.effectiveAt)],
  ['Content hash', mono(r.version.contentHash)],
  ['Fingerprint', mono(r.version.fingerprint)],
  ['Published in', mono(r.version.publicationSignature)],
])}
</section>

<section>
<h2>Where and how it was recorded</h2>
${definitions([
  ['Requested from', mono(r.acceptance.requestDomain)],
  ['Transaction', mono(r.transaction.signature)],
  ['Fee', `${r.fees.lamports} lamports (${sol(r.fees.lamports)} SOL)`],
  ['Fee paid by', html`${mono(r.fees.payer)} <span class="muted">(${r.fees.sponsor === 'svc' ? "the service's relayer" : "the organization's sponsorship"})</span>`],
  ['Reimbursed', r.fees.reimbursedLamports === null ? null : `${r.fees.reimbursedLamports} lamports`],
])}
</section>

<section>
<h2>Verification checks</h2>
${checksTable(m.report.checks)}
</section>

<section>
<h2>Signed message</h2>
<p class="muted">The exact text the signer signed (${Buffer.byteLength(r.acceptance.message, 'utf8')} bytes, UTF-8).</p>
<pre>${r.acceptance.message}</pre>
</section>

<section>
<details>
<summary>Full text of the document (${r.documentText.length.toLocaleString('en-US')} characters)</summary>
<pre>${r.documentText}</pre>
</details>
</section>

<section>
<h2>Verify it yourself</h2>
<p>This page is the service's own check. The receipt file holds everything needed to check it without the service:
the document text, the signed message and signature, and the ledger transaction.</p>
<p><a class="button" href="${m.downloadPath}" download="${m.downloadName}">Download the receipt (JSON)</a></p>
<p>Then check it against any node of its network (${r.network.label}) with the open verifier:</p>
<pre class="command">${command}</pre>
<p class="muted">Format <span class="mono">${r.format}</span>, specified in the service's evidence protocol (docs/protocol.md).</p>
</section>
`;
  return layout(`Receipt: ${r.document.title} ${r.version.label} — ${verdict.title}`, body).value;
}

/** A small error page (400, 404, 500…) in the receipt page's style. */
export function renderErrorPage(status: number, heading: string, message: string): string {
  const body = html`
<section>
<h1>${heading}</h1>
<p>${message}</p>
<p class="muted">HTTP ${status}</p>
</section>
`;
  return layout(`${heading} (${status})`, body).value;
}

/** A term and its value; rows whose value is null are left out. */
type Row = [string, SafeHtml | string | null];

function definitions(rows: Row[]): SafeHtml {
  return html`<dl>${rows.filter(([, value]) => value !== null).map(([term, value]) => html`<dt>${term}</dt><dd>${value}</dd>`)}</dl>`;
}

function checksTable(checks: VerificationCheck[]): SafeHtml {
  const rows = checks.map((c) => {
    const status = STATUSES[c.status];
    return html`<tr><td class="st"><span class="badge ${status.tone}">${status.text}</span></td><td>${c.label}${
      c.critical ? '' : html` <span class="muted">(informative)</span>`
    }<div class="detail">${c.detail}</div></td></tr>`;
  });
  return html`<table><tbody>${rows}</tbody></table>`;
}

function mono(text: string): SafeHtml {
  return html`<span class="mono">${text}</span>`;
}

/** Unix seconds → `2025-01-31 12:00:00 UTC`. */
function utc(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('T', ' ').replace(/\.000Z$/, ' UTC');
}

/** Lamports → SOL, exact (9 decimals, trailing zeros dropped). */
function sol(lamports: number): string {
  const whole = Math.floor(lamports / 1e9);
  const fraction = String(lamports % 1e9).padStart(9, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}
