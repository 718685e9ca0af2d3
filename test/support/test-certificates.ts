import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { generate } from 'selfsigned';

/** A test CA and a loopback server certificate it signed, for HTTPS receivers trusted only by the test configuration. */
export interface TestCertificates {
  /** Folder holding `ca.pem` (give its path to `WEBHOOK_TEST_CA_FILE`); delete it after the suite. */
  dir: string;
  caFile: string;
  /** PEM key and certificate of `127.0.0.1` / `localhost`. */
  key: string;
  cert: string;
}

/** Creates a P-256 test CA and a server certificate for 127.0.0.1 and localhost. */
export async function testCertificates(): Promise<TestCertificates> {
  const ca = await generate([{ name: 'commonName', value: 'Webhook test CA' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [{ name: 'basicConstraints', cA: true, critical: true }, { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true }],
  });
  const leaf = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    ca: { key: ca.private, cert: ca.cert },
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] }],
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-webhook-ca-'));
  const caFile = path.join(dir, 'ca.pem');
  writeFileSync(caFile, ca.cert);
  return { dir, caFile, key: leaf.private, cert: leaf.cert };
}
