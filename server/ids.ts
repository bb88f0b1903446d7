import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Opaque ids with a readable prefix: env_k3tq9..., conn_..., repo_... (16 random characters, ~82 bits). */
export function newId(prefix: string): string {
  const bytes = randomBytes(16);
  let out = '';
  // 252 = 7 * 36: values at or above it would bias the alphabet, so they are redrawn
  for (let i = 0; out.length < 16; i++) {
    const b = i < bytes.length ? bytes[i]! : randomBytes(1)[0]!;
    if (b < 252) out += ALPHABET[b % 36];
  }
  return `${prefix}_${out}`;
}
