// One request to the customer API over HTTP as a client makes it: the key as a bearer token, a
// JSON body when one is given. Tests and benches that talk to a listening server share it.

export interface ApiResponse {
  status: number;
  headers: Headers;
  bytes: Buffer;
  /** The body parsed as JSON ({} when empty). */
  json<T = Record<string, unknown>>(): T;
}

export async function apiCall(
  base: string,
  key: string | undefined,
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: {
      ...(key !== undefined && { authorization: `Bearer ${key}` }),
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  return {
    status: res.status,
    headers: res.headers,
    bytes,
    json: <T>() => (bytes.length > 0 ? JSON.parse(bytes.toString()) : {}) as T,
  };
}
