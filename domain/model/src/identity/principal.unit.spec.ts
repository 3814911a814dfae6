import type { ApiKeyId, UserId } from '../shared/ids';
import { mayManageCredentials, type Principal } from './principal';

const principal = (over: Partial<Principal>): Principal => ({ userId: 'u' as UserId, email: 'a@example.com', role: 'admin', scheme: 'basic', apiKeyId: null, ...over });

describe('mayManageCredentials', () => {
  it('lets a password manage API keys and users: HTTP Basic, or a session signed in with one', () => {
    expect(mayManageCredentials(principal({ scheme: 'basic' }))).toBe(true);
    expect(mayManageCredentials(principal({ scheme: 'bearer' }))).toBe(true);
  });

  it('refuses whatever rests on an API key: the key itself, a session begun with one, and a key principal built without its id', () => {
    expect(mayManageCredentials(principal({ scheme: 'api_key', apiKeyId: 'k' as ApiKeyId }))).toBe(false);
    expect(mayManageCredentials(principal({ scheme: 'bearer', apiKeyId: 'k' as ApiKeyId }))).toBe(false);
    expect(mayManageCredentials(principal({ scheme: 'api_key', apiKeyId: null }))).toBe(false);
  });
});
