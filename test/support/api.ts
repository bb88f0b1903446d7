// One JSON request to the server under test, answered as { status, headers, body, text }: what every
// API test reads back. A body is sent as JSON unless given raw (malformed or compressed on purpose).
export interface JsonAnswer<T> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface JsonRequest {
  method?: string;
  json?: unknown;
  raw?: string | Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
}

// Tests read response bodies whose shape is the thing under test, hence `any` by default.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function requestJson<T = any>(url: string, init: JsonRequest = {}): Promise<JsonAnswer<T>> {
  const body = init.raw ?? (init.json === undefined ? undefined : JSON.stringify(init.json));
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: body === undefined ? (init.headers ?? {}) : { 'content-type': 'application/json', ...init.headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, text };
}
