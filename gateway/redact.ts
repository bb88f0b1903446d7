// A message about a user's database can echo what it was given: a driver quoting its connection
// string, a server error naming the password. Before such a message is shown, stored or logged,
// the connection string and its password are taken out of it. Pure: no database.

/**
 * `message` with the connection string replaced by `<connection string>` and its password, as
 * written in the URL or percent-decoded, replaced by `****`.
 */
export function redactConnectionString(message: string, connectionString: string): string {
  let out = connectionString ? message.split(connectionString).join('<connection string>') : message;
  let raw: string;
  try {
    raw = new URL(connectionString).password;
  } catch {
    return out; // not a URL: nothing more to find in it
  }
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // a malformed percent-encoding: only the password as written can appear
  }
  for (const password of new Set([decoded, raw])) {
    if (password) out = out.split(password).join('****');
  }
  return out;
}
