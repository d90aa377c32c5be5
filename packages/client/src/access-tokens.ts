/**
 * Where every request and the WebSocket get their IdToken. The login module implements it; the HTTP
 * and WebSocket clients only ever ask it, so no caller handles a token.
 */
export interface AccessTokens {
  /** A token valid for at least a few more seconds: the cached one, renewed first when it is about to expire. */
  current(): Promise<string>;
  /** The gateway refused `token` (401): the next `current()` logs in or refreshes again. */
  rejected(token: string): void;
}
