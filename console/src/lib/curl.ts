// "Copy as curl" of the evaluate playground (pure: unit-tested in curl.test.ts).

/** Single-quotes a shell word: ' becomes '\''. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The curl command of one POST /api/v1/evaluate. The key is left as $ENSIGN_SDK_KEY so no secret
 * lands in the clipboard, a terminal history or a chat.
 */
export function evaluateCurl(origin: string, body: unknown): string {
  return [
    `curl -s -X POST ${shellQuote(`${origin}/api/v1/evaluate`)}`,
    `  -H "Authorization: Bearer $ENSIGN_SDK_KEY"`,
    `  -H 'Content-Type: application/json'`,
    `  -d ${shellQuote(JSON.stringify(body))}`,
  ].join(' \\\n');
}
