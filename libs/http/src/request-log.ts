/**
 * The request target as request logs show it: the path as sent, and of the query string only the parameter names,
 * each value replaced by `…`. Query values can be personal data (`externalUserRef`, a customer's own reference) or
 * opaque cursors; the names are enough to tell one kind of request from another. `/v1/acceptances?externalUserRef=
 * customer-1042&limit=5` → `/v1/acceptances?externalUserRef=…&limit=…`.
 */
export function urlForLog(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url.slice(q + 1);
  if (query === '') return url;
  const names = query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    return eq < 0 ? pair : `${pair.slice(0, eq)}=…`;
  });
  return `${url.slice(0, q)}?${names.join('&')}`;
}
