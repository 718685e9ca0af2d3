/**
 * Recomputes every test vector of docs/protocol.md from its inputs and compares with the values
 * written there, so the document cannot drift from the code. Vectors are fenced blocks whose info
 * string carries `vector=<name>`; hex blocks may be wrapped.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import canonicalize from 'canonicalize';
import { acceptanceIdOf, buildAcceptanceMessage, parseAcceptanceMessage, type AcceptanceMessageFields } from './acceptance-message';
import { bytesToBase58 } from './base58';
import { canonicalContent, contentHash, versionFingerprint, type VersionFingerprintInput } from './content';
import { auditEntryHash, type AuditEntryFields } from './audit-chain';
import { buildEd25519Instruction } from './ed25519-instruction';
import { encodeMemo, parseMemo, type MemoRecord } from './memo';
import { buildSignInMessage, parseSignInMessage, type SignInMessageFields } from './sign-in-message';
import { verifyEd25519 } from './signatures';
import { filledSeed, keyFromSeed, seedFromHex, signerFromSeed } from './testing/keys';
import { buildAcceptanceTransaction } from './transactions';
import { VERIFIER_CHECKS, VERIFIER_CHECKS_V2 } from './verifier';
import { batchLeafBytes, batchLeafHash } from './batch';
import { merkleInclusionProof, merkleLeafHash, merkleRoot, verifyMerkleInclusion } from './merkle';

const ROOT = join(__dirname, '..', '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'protocol.md'), 'utf8');

function readVectors(markdown: string): Map<string, string> {
  const vectors = new Map<string, string>();
  const fence = /^```[a-z]* vector=([A-Za-z0-9._-]+)\n([\s\S]*?)\n```$/gm;
  for (const m of markdown.matchAll(fence)) {
    if (vectors.has(m[1]!)) throw new Error(`vector ${m[1]} is defined twice`);
    vectors.set(m[1]!, m[2]!);
  }
  return vectors;
}

const VECTORS = readVectors(DOC);
const used = new Set<string>();
const text = (name: string): string => {
  const value = VECTORS.get(name);
  if (value === undefined) throw new Error(`docs/protocol.md has no vector ${name}`);
  used.add(name);
  return value;
};
const hex = (name: string) => text(name).replace(/\s+/g, '');
const json = <T>(name: string): T => JSON.parse(text(name)) as T;

describe('docs/protocol.md test vectors', () => {
  it('content hash of a small text', () => {
    const bytes = canonicalContent(json<string>('content-small.input'));
    expect(bytes.toString('hex')).toBe(hex('content-small.canonical-hex'));
    expect(contentHash(bytes)).toBe(text('content-small.hash'));
  });

  it('content hash at the edges of lines and byte-order marks', () => {
    const bytes = canonicalContent(json<string>('content-edges.input'));
    expect(bytes.toString('hex')).toBe(hex('content-edges.canonical-hex'));
    expect(contentHash(bytes)).toBe(text('content-edges.hash'));
    expect(canonicalContent(bytes.toString('utf8')).equals(bytes)).toBe(true);
  });

  it('content hash of the real document', () => {
    const source = readFileSync(join(ROOT, text('content-file.path')), 'utf8');
    const bytes = canonicalContent(source);
    expect(String(bytes.length)).toBe(text('content-file.length'));
    expect(contentHash(bytes)).toBe(text('content-file.hash'));
  });

  it('keys from seeds', () => {
    expect(keyFromSeed(seedFromHex(hex('keys.signer-seed'))).address).toBe(text('keys.signer-address'));
    expect(keyFromSeed(seedFromHex(hex('keys.fee-payer-seed'))).address).toBe(text('keys.fee-payer-address'));
    const input = json<AcceptanceMessageFields>('acceptance.input');
    expect([input.organization, input.document, input.versionAddress]).toEqual([0x0c, 0x0d, 0x0e].map((b) => keyFromSeed(filledSeed(b)).address));
    expect(input.signer).toBe(text('keys.signer-address'));
  });

  it('fingerprint', () => {
    const input = json<VersionFingerprintInput>('fingerprint.input');
    expect(canonicalize(input)).toBe(text('fingerprint.jcs'));
    expect(versionFingerprint(input)).toBe(text('fingerprint.output'));
    expect(input.contentHash).toBe(text('content-file.hash'));
  });

  it('acceptance message, ID and signature', () => {
    const input = json<AcceptanceMessageFields>('acceptance.input');
    const message = buildAcceptanceMessage(input);
    expect(message).toBe(text('acceptance.message'));
    expect(parseAcceptanceMessage(message)).toEqual(input);
    expect(DOC).toContain(`The message (${Buffer.byteLength(message)} bytes)`);
    expect(input.fingerprint).toBe(text('fingerprint.output'));
    expect(acceptanceIdOf(message)).toBe(text('acceptance.id'));
    const signer = keyFromSeed(seedFromHex(hex('keys.signer-seed')));
    const signature = signer.sign(Buffer.from(message, 'utf8'));
    expect(bytesToBase58(signature)).toBe(text('acceptance.signature'));
    expect(verifyEd25519(input.signer, Buffer.from(message, 'utf8'), signature)).toBe(true);
  });

  it('Ed25519 instruction data', () => {
    const signer = keyFromSeed(seedFromHex(hex('keys.signer-seed')));
    const message = Buffer.from(text('acceptance.message'), 'utf8');
    const ix = buildEd25519Instruction({ publicKey: signer.publicKey, signature: signer.sign(message), message });
    expect(Buffer.from(ix.data).toString('hex')).toBe(hex('ed25519.instruction-data'));
  });

  it.each(['org', 'doc', 'ver', 'accept', 'member', 'member-revoked', 'shard', 'audit', 'batch'])('memo record %s', (kind) => {
    const record = json<MemoRecord>(`memo.${kind}.input`);
    expect(encodeMemo(record)).toBe(text(`memo.${kind}.text`));
    expect(parseMemo(text(`memo.${kind}.text`))).toEqual(record);
  });

  it('audit log entry: canonical encoding and hash; the anchor record names it', () => {
    const entry = json<AuditEntryFields>('audit.entry');
    expect(canonicalize(entry)).toBe(text('audit.canonical'));
    expect(createHash('sha256').update(text('audit.canonical'), 'utf8').digest('hex')).toBe(text('audit.hash'));
    expect(auditEntryHash(entry)).toBe(text('audit.hash'));
    expect(json<{ head: string; sequence: number }>('memo.audit.input')).toMatchObject({ head: text('audit.hash'), sequence: entry.sequence });
  });

  it('memo records chain to the other vectors', () => {
    const ver = json<MemoRecord & { kind: 'ver' }>('memo.ver.input');
    const fp = json<VersionFingerprintInput>('fingerprint.input');
    expect(ver).toMatchObject({ document: fp.document, number: fp.number, label: fp.label, title: fp.title, contentHash: fp.contentHash, effectiveAt: fp.effectiveAt });
    expect(ver.fingerprint).toBe(text('fingerprint.output'));
    expect(json<{ acceptanceId: string }>('memo.accept.input').acceptanceId).toBe(text('acceptance.id'));
    expect(json<{ member: string }>('memo.member.input').member).toBe(text('keys.signer-address'));
    expect(json<{ operator: string }>('memo.shard.input').operator).toBe(text('keys.fee-payer-address'));
  });

  it('acceptance transaction', async () => {
    const input = json<AcceptanceMessageFields>('acceptance.input');
    const message = text('acceptance.message');
    const signer = keyFromSeed(seedFromHex(hex('keys.signer-seed')));
    const tx = await buildAcceptanceTransaction({
      feePayer: await signerFromSeed(seedFromHex(hex('keys.fee-payer-seed'))),
      signer: signer.address,
      signature: signer.sign(Buffer.from(message, 'utf8')),
      message,
      acceptanceId: acceptanceIdOf(message),
      versionAddress: input.versionAddress,
      lifetime: { blockhash: text('transaction.blockhash'), lastValidBlockHeight: 1000n },
    });
    expect(text('transaction.blockhash')).toBe(bytesToBase58(filledSeed(0x33)));
    expect(tx.signature).toBe(text('transaction.signature'));
    expect(String(tx.wire.length)).toBe(text('transaction.size'));
    expect(createHash('sha256').update(tx.wire).digest('hex')).toBe(text('transaction.wire-sha256'));
  });

  it('batched evidence: leaf, leaf hash, a three-leaf root and proof, the anchor record', () => {
    const message = text('acceptance.message');
    const input = json<AcceptanceMessageFields>('acceptance.input');
    const evidence = { acceptanceId: text('acceptance.id'), message, signature: text('acceptance.signature'), signer: input.signer, versionAddress: input.versionAddress };
    const leaf = batchLeafBytes(evidence);
    expect(new TextDecoder().decode(leaf)).toBe(text('batch.leaf'));
    expect(DOC).toContain(`as the exact text hashed (${leaf.length} bytes)`);
    expect(batchLeafHash(evidence)).toBe(text('batch.leaf-hash'));
    expect(createHash('sha256').update(Buffer.concat([Buffer.of(0), Buffer.from(text('batch.leaf'), 'utf8')])).digest('hex')).toBe(text('batch.leaf-hash'));
    const hashes = json<string[]>('batch.leaf-hashes');
    expect(hashes).toEqual([merkleLeafHash(Buffer.from('a')), text('batch.leaf-hash'), merkleLeafHash(Buffer.from('b'))]);
    expect(merkleRoot(hashes)).toBe(text('batch.root'));
    expect(merkleInclusionProof(hashes, 1)).toEqual(json('batch.proof-1'));
    expect(verifyMerkleInclusion(text('batch.leaf-hash'), 1, 3, json('batch.proof-1'), text('batch.root'))).toBe(true);
    expect(json<{ root: string; size: number }>('memo.batch.input')).toMatchObject({ root: text('batch.root'), size: hashes.length });
  });

  it('sign-in message', () => {
    const input = json<SignInMessageFields>('sign-in.input');
    expect(buildSignInMessage(input)).toBe(text('sign-in.message'));
    expect(parseSignInMessage(text('sign-in.message'))).toEqual(input);
  });

  it('the largest svc/1 message size stated in the document', () => {
    const input = json<AcceptanceMessageFields>('acceptance.input');
    const longAddress = 'JEKNVnkbo3jma5nREBBJCDoXFVeKkD56V3xKrvRmWxFG';
    const longest = buildAcceptanceMessage({
      ...input,
      requestDomain: `${'a'.repeat(58)}:65535`,
      organization: longAddress,
      document: longAddress,
      versionAddress: longAddress,
      signer: longAddress,
      versionNumber: 4294967295,
    });
    expect(DOC).toContain(`largest possible message is ${Buffer.byteLength(longest)} bytes`);
  });

  it('the verifier table lists every check, in order, with its criticality', () => {
    const rows = [...DOC.matchAll(/^\| `([a-z.-]+)` \| (yes|no) \|/gm)].map((m) => [m[1], m[2] === 'yes']);
    expect(rows).toEqual(VERIFIER_CHECKS.map((c) => [c.id, c.critical]));
    // §9.1 names the checks proper to svc-receipt/2, each in its place among the v1 checks it shares.
    const v2 = [...DOC.matchAll(/^`([a-z.-]+)`(?: … `[a-z.-]+`)? \| (yes|no|as v1) \|/gm)].map((m) => m[1]);
    const ids = VERIFIER_CHECKS_V2.map((c) => c.id as string);
    expect(v2.map((id) => ids.indexOf(id!))).toEqual([...v2.map((id) => ids.indexOf(id!))].sort((a, b) => a - b));
    for (const id of ['batch.inclusion', 'transaction.anchor']) expect(v2).toContain(id);
    expect(ids.filter((id) => !VERIFIER_CHECKS.some((c) => c.id === id))).toEqual(['batch.inclusion', 'transaction.anchor']);
  });

  afterAll(() => {
    // Every vector in the document must be checked by a test above.
    const unchecked = [...VECTORS.keys()].filter((k) => !used.has(k));
    if (unchecked.length > 0) throw new Error(`vectors not checked: ${unchecked.join(', ')}`);
  });
});
