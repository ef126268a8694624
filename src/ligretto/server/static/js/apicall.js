// One call of the server's HTTP API (docs/protocol.md): JSON in and out, the profile's
// secret as `Authorization: Bearer` where given, and every failure as an error of the
// caller's kind (`ApiError` or a subclass): `offline` when the request never reached
// the server, else the answer's `error` code, `message`, the HTTP status and the body.

/** A refused or failed call: the server's error code, its message, the status, the body. */
export class ApiError extends Error {
  constructor(code, message = "", status = 0, body = null) {
    super(message || code);
    this.code = code;
    this.status = status;
    this.body = body;
  }
}

/** `method path` with `body` (JSON) and `secret`; the answer's JSON (null: none, as a 204). */
export async function apiCall(method, path, { body, secret } = {}, Failure = ApiError) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (secret) headers.Authorization = `Bearer ${secret}`;
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new Failure("offline");
  }
  let answer = null;
  try {
    answer = await response.json();
  } catch {
    answer = null; // an answer without a body (204)
  }
  if (!response.ok) throw new Failure(answer?.error || "generic", answer?.message || "", response.status, answer);
  return answer;
}
