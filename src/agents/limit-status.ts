/**
 * What an agent CLI's error text says of the account, for the backends that
 * give it only in words (codex, pi): refused for its rate (429, "rate
 * limit", "Too Many Requests"), refused for the provider's load (529, 503,
 * "overloaded"), or neither. The caller rules out a usage limit first: its
 * words may say 429 too.
 */
export function limitStatusOf(text: string): 429 | 529 | null {
  if (/\b429\b|too many requests|rate.?limit/i.test(text)) return 429;
  if (/\b(529|503)\b|overloaded/i.test(text)) return 529;
  return null;
}

/**
 * Whether an agent CLI's error text says the API does not have the model
 * (404 `not_found_error`, `model_not_found`, "model ... does not exist"):
 * the turn may go on with a fallback model, never with a retry.
 */
export function modelUnavailable(text: string): boolean {
  return /model_not_found|\bmodel\b[^\n]*\b(does not exist|not found|not available|unavailable|not supported)/i.test(
    text,
  );
}
