/**
 * Endpoint signing secrets at rest: AES-256-GCM under WEBHOOK_SECRET_KEY (a random 12-byte nonce
 * per value; stored as `v1.<nonce>.<ciphertext>.<tag>`, base64url). The sandbox, when the key is
 * not set, derives a fixed key: its secrets protect nothing real. Production requires the key
 * (config.ts).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Config } from '../config';

export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}

export function secretBox(config: Pick<Config, 'WEBHOOK_SECRET_KEY' | 'ENVIRONMENT'>): SecretBox {
  const key = config.WEBHOOK_SECRET_KEY
    ? Buffer.from(config.WEBHOOK_SECRET_KEY, 'base64')
    : createHash('sha256').update(`rental-guarantee ${config.ENVIRONMENT} webhook secrets`).digest();
  return {
    seal(plain) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', nonce, body, cipher.getAuthTag()].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
    },
    open(sealed) {
      const [version, nonce, body, tag] = sealed.split('.');
      if (version !== 'v1' || !nonce || body === undefined || !tag) throw new Error('Unreadable sealed webhook secret.');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/** A new Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
